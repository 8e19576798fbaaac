package record

import "github.com/normtop/normtop/probes"

// streamAlerts derives the per-layer alerts of a stream's frames from their
// values (probes.Alerter: the rules of normtop's own Collector), one state
// per variant, so that every writer gets them without computing them. An
// alert the line already carries (same kind, step, layer and probe: e.g. a
// stream made from `normtop export`) is not added twice.
type streamAlerts struct {
	layers    []string
	byVariant map[int]*probes.Alerter
}

func newStreamAlerts(layers []string) *streamAlerts {
	return &streamAlerts{layers: layers, byVariant: map[int]*probes.Alerter{}}
}

// add appends f's derived alerts to f.Alerts. Frames must come in file
// order; a reader that goes back to the start begins with a new
// streamAlerts.
func (s *streamAlerts) add(f *probes.Frame) {
	if f.Layers == nil {
		return
	}
	a := s.byVariant[f.Variant]
	if a == nil {
		a = probes.NewAlerter(s.layers)
		s.byVariant[f.Variant] = a
	}
	written := len(f.Alerts)
	for _, d := range a.Alerts(nil, f) {
		if !hasAlert(f.Alerts[:written], d) {
			f.Alerts = append(f.Alerts, d)
		}
	}
}

func hasAlert(as []probes.Alert, d probes.Alert) bool {
	for _, a := range as {
		if a.Kind == d.Kind && a.Step == d.Step && a.Layer == d.Layer && a.Probe == d.Probe {
			return true
		}
	}
	return false
}
