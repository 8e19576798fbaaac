package record

import "github.com/normtop/normtop/probes"

// The byte-aligned fields of a frame payload that are more than one value:
// the spectrum and an alert (an Eval's are in eval.go).

// spectrum writes s: its step, len(Sigma)+1 (0 for a nil Sigma, so nil
// and empty round-trip apart), the values and the effective rank.
func (e *enc) spectrum(s *probes.Spectrum) {
	e.varint(int64(s.Step))
	if s.Sigma == nil {
		e.uvarint(0)
	} else {
		e.uvarint(uint64(len(s.Sigma)) + 1)
	}
	for _, x := range s.Sigma {
		e.f64(x)
	}
	e.f64(s.EffRank)
}

// spectrum reads what enc.spectrum wrote; a length that the payload cannot
// hold marks d bad before anything is allocated.
func (d *dec) spectrum() *probes.Spectrum {
	s := &probes.Spectrum{Step: d.int()}
	n := d.uvarint()
	if n > 0 {
		if n-1 > uint64(len(d.b)/8) {
			d.bad = true
			return nil
		}
		s.Sigma = make([]float64, n-1)
		for i := range s.Sigma {
			s.Sigma[i] = d.f64()
		}
	}
	s.EffRank = d.f64()
	return s
}

// minAlertSize is the smallest encoded alert: kind, step, layer, probe, two
// float64s and an empty message.
const minAlertSize = 1 + 1 + 1 + 1 + 8 + 8 + 1

func (e *enc) alert(a probes.Alert) {
	e.u8(byte(a.Kind))
	e.varint(int64(a.Step))
	e.varint(int64(a.Layer))
	e.u8(byte(a.Probe))
	e.f64(a.Value)
	e.f64(a.Threshold)
	e.str(a.Msg)
}

func (d *dec) alert() probes.Alert {
	var a probes.Alert
	a.Kind = probes.AlertKind(d.u8())
	a.Step = d.int()
	a.Layer = d.int()
	a.Probe = probes.Probe(d.u8())
	a.Value = d.f64()
	a.Threshold = d.f64()
	a.Msg = d.str()
	return a
}
