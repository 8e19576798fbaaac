package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/normtop/normtop/probes"
)

// The normtop stream (docs/formats.md): JSON Lines that any trainer can write, read
// by the same Reader as the run file. This file parses its lines; stream_reader.go
// plugs them into Reader.

// StreamVersion is the stream format version this normtop reads up to.
const StreamVersion = 1

// streamTag is the key of the header line that identifies a stream.
const streamTag = "normtop_stream"

// isStream reports whether the first bytes of a file are a stream's: JSON
// Lines start with '{' (after optional blanks), a run file with its magic.
func isStream(p []byte) bool {
	p = bytes.TrimLeft(p, " \t\r\n")
	return len(p) > 0 && p[0] == '{'
}

type streamHeader struct {
	Version *int           `json:"normtop_stream"`
	Meta    probes.RunMeta `json:"meta"`
	Streams []string       `json:"streams"`
	Alerts  string         `json:"alerts"` // "derived" (default) or "written" (docs/formats.md)
	// The writing process, as the Python writer records it: a reader on
	// the same host can tell at once that it is gone.
	WriterPID  int    `json:"writer_pid"`
	WriterHost string `json:"writer_host"`
}

// Values of the header's "alerts" key: who makes the frames' alerts.
const (
	alertsDerived = "derived" // the reader, from the values (the default)
	alertsWritten = "written" // the writer; the reader derives none
)

type streamEval struct {
	Split     string           `json:"split"`
	Loss      probes.JSONFloat `json:"loss"`
	Metric    probes.JSONFloat `json:"metric"`
	Unit      string           `json:"unit"` // "%": metric is a percentage (normtop's own JSONL export)
	TrainLoss probes.JSONFloat `json:"train_loss"`
}

// UnmarshalJSON leaves a missing loss, metric or train loss NaN (unknown),
// not 0.
func (e *streamEval) UnmarshalJSON(b []byte) error {
	type plain streamEval
	nan := probes.JSONFloat(math.NaN())
	p := plain{Loss: nan, Metric: nan, TrainLoss: nan}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*e = streamEval(p)
	return nil
}

type streamAlert struct {
	Kind      string           `json:"kind"`
	Step      int              `json:"step"`
	Layer     *string          `json:"layer"`
	Probe     *string          `json:"probe"`
	Value     probes.JSONFloat `json:"value"`
	Threshold probes.JSONFloat `json:"threshold"`
	Msg       string           `json:"msg"`
}

type streamLine struct {
	Variant      *string                                `json:"variant"`
	VariantIndex *int                                   `json:"variant_index"`
	Step         *int                                   `json:"step"`
	Epoch        probes.JSONFloat                       `json:"epoch"`
	TrainLoss    probes.JSONFloat                       `json:"train_loss"`
	Status       string                                 `json:"status"`
	ElapsedS     probes.JSONFloat                       `json:"elapsed_s"`
	StepsPerSec  probes.JSONFloat                       `json:"steps_per_sec"`
	Layers       map[string]map[string]probes.JSONFloat `json:"layers"`
	Eval         []streamEval                           `json:"eval"`
	Spectrum     *struct {
		Step    int                `json:"step"`
		Sigma   []probes.JSONFloat `json:"sigma"`
		EffRank probes.JSONFloat   `json:"eff_rank"`
	} `json:"spectrum"`
	Alerts []streamAlert   `json:"alerts"`
	Batch  json.RawMessage `json:"batch"` // stream_batch.go
	Hist   json.RawMessage `json:"hist"`  // stream_hist.go
	System *struct {
		WallS        probes.JSONFloat `json:"wall_s"`
		RSSBytes     probes.JSONFloat `json:"rss_bytes"`
		CUDAMaxBytes probes.JSONFloat `json:"cuda_max_bytes"`
	} `json:"system"`
	End *struct {
		Status   string         `json:"status"`
		Diverged map[string]int `json:"diverged"`
	} `json:"end"`
}

// streamMap is what decoding a frame line needs from the header: variant
// and layer lookup by name.
type streamMap struct {
	meta     probes.RunMeta
	variants map[string]int // by Spec and by Name
	layers   map[string]int
}

func newStreamMap(m probes.RunMeta) *streamMap {
	s := &streamMap{meta: m, variants: map[string]int{}, layers: map[string]int{}}
	for i := len(m.Variants) - 1; i >= 0; i-- { // the first of duplicates wins
		s.variants[m.Variants[i].Name] = i
	}
	for i := len(m.Variants) - 1; i >= 0; i-- {
		if m.Variants[i].Spec != "" {
			s.variants[m.Variants[i].Spec] = i
		}
	}
	for i := len(m.Layers) - 1; i >= 0; i-- {
		s.layers[m.Layers[i]] = i
	}
	return s
}

// parseStreamHeader decodes the first line of a stream.
func parseStreamHeader(line []byte) (h streamHeader, err error) {
	if err := json.Unmarshal(line, &h); err != nil {
		return h, fmt.Errorf("its first line is not a JSON object (%v)", err)
	}
	switch {
	case h.Version == nil:
		return h, fmt.Errorf("it is JSON Lines but its first line has no %q key: not a normtop stream (see docs/formats.md)", streamTag)
	case *h.Version > StreamVersion:
		return h, fmt.Errorf("it is stream format version %d; this normtop reads up to %d", *h.Version, StreamVersion)
	case *h.Version < 1:
		return h, fmt.Errorf("invalid stream format version %d", *h.Version)
	case len(h.Meta.Variants) == 0:
		return h, fmt.Errorf("its header names no variant (meta.Variants is empty)")
	case h.Alerts != "" && h.Alerts != alertsDerived && h.Alerts != alertsWritten:
		return h, fmt.Errorf("its header has \"alerts\":%q (valid: %q, %q)", h.Alerts, alertsDerived, alertsWritten)
	case len(h.Meta.Variants) > maxStreamVariants || len(h.Meta.Layers) > maxStreamLayers:
		return h, fmt.Errorf("its header names %d variants and %d layers; at most %d and %d", len(h.Meta.Variants), len(h.Meta.Layers), maxStreamVariants, maxStreamLayers)
	case seriesOver(len(h.Meta.Variants), len(h.Meta.Layers), int(probes.NumProbes)):
		return h, seriesError(len(h.Meta.Variants), len(h.Meta.Layers), int(probes.NumProbes))
	}
	if l := h.Meta.Histogram; l != nil {
		if err := l.Check(); err != nil {
			return h, fmt.Errorf("its header's meta.Histogram: %v", err)
		}
	}
	for _, p := range h.Streams {
		// Confined to the stream's directory: a header is untrusted input,
		// and "../../../etc/passwd" must not make a reader open it.
		if !filepath.IsLocal(p) {
			return h, fmt.Errorf("its header's \"streams\" entry %q is not a file name inside the stream's directory (absolute and \"..\" paths are refused)", p)
		}
	}
	return h, nil
}

// Limits that keep a forged header from making every frame allocate a lot.
const (
	maxStreamVariants = 1 << 12
	maxStreamLayers   = 1 << 14
	maxSpectrum       = 1 << 20
)

// lineKind classifies a parsed line.
const (
	lineFrame = iota
	lineEnd
)

// parseStreamLine decodes one line after the header into a Frame, or into
// an End (kind lineEnd). An error is the reason the line is damaged; the
// checks run in a fixed order, so a line with several faults is always
// reported by the same one.
func (s *streamMap) parseStreamLine(line []byte) (f probes.Frame, e End, kind int, err error) {
	nan := probes.JSONFloat(math.NaN())
	l := streamLine{Epoch: 0, TrainLoss: nan, ElapsedS: 0, StepsPerSec: 0}
	if err := json.Unmarshal(line, &l); err != nil {
		return f, e, 0, fmt.Errorf("not a JSON object: %v", err)
	}
	if l.End != nil {
		e, err = s.parseEnd(l.End.Status, l.End.Diverged)
		if err != nil {
			return f, e, 0, err
		}
		return f, e, lineEnd, nil
	}
	if l.Step == nil {
		return f, e, 0, fmt.Errorf(`frame line has no "step"`)
	}
	if *l.Step < 0 {
		// Steps count up from 0 or 1; a negative one would sort before
		// every real frame and seek nowhere.
		return f, e, 0, fmt.Errorf(`frame line has "step":%d; a step is never negative`, *l.Step)
	}
	f.Step = *l.Step
	if f.Variant, err = s.frameVariant(&l); err != nil {
		return f, e, 0, err
	}
	f.Epoch, f.TrainLoss, f.StepsPerSec = float64(l.Epoch), float64(l.TrainLoss), float64(l.StepsPerSec)
	if el := float64(l.ElapsedS); el > 0 && el < float64(math.MaxInt64)/1e9 {
		f.Elapsed = time.Duration(el * 1e9)
	}
	if f.Status, err = parseFrameStatus(l.Status); err != nil {
		return f, e, 0, err
	}
	if l.Batch != nil && !bytes.Equal(l.Batch, []byte("null")) {
		if f.Batch, err = parseStreamBatch(l.Batch); err != nil {
			return f, e, 0, err
		}
	}
	if l.Hist != nil && !bytes.Equal(l.Hist, []byte("null")) {
		if f.Hists, err = s.parseStreamHists(l.Hist); err != nil {
			return f, e, 0, err
		}
	}
	if l.Layers != nil {
		f.Layers = s.layerValues(l.Layers)
	}
	if sy := l.System; sy != nil {
		f.System = &probes.System{WallS: float64(sy.WallS), RSSBytes: float64(sy.RSSBytes), CUDAMaxBytes: float64(sy.CUDAMaxBytes)}
	}
	if l.Eval != nil {
		if f.Eval, err = parseEvals(l.Eval); err != nil {
			return f, e, 0, err
		}
	}
	if sp := l.Spectrum; sp != nil {
		if len(sp.Sigma) > maxSpectrum {
			return f, e, 0, fmt.Errorf("spectrum has %d values; at most %d", len(sp.Sigma), maxSpectrum)
		}
		f.Spectrum = &probes.Spectrum{Step: sp.Step, EffRank: float64(sp.EffRank)}
		if sp.Sigma != nil {
			f.Spectrum.Sigma = make([]float64, len(sp.Sigma))
			for i, x := range sp.Sigma {
				f.Spectrum.Sigma[i] = float64(x)
			}
		}
	}
	if l.Alerts != nil {
		f.Alerts = s.alerts(l.Alerts)
	}
	return f, e, lineFrame, nil
}

// parseEnd decodes an end line's status and diverged variants (by index
// or name).
func (s *streamMap) parseEnd(status string, diverged map[string]int) (End, error) {
	e := End{Status: status}
	switch e.Status {
	case StatusCompleted, StatusInterrupted, StatusDiverged:
	default:
		return e, fmt.Errorf("end line has status %q (valid: completed, interrupted, diverged)", e.Status)
	}
	for k, step := range diverged {
		v, ok := s.variantOf(k)
		if !ok {
			return e, fmt.Errorf("end line names unknown variant %q", k)
		}
		if e.Diverged == nil {
			e.Diverged = map[int]int{}
		}
		e.Diverged[v] = step
	}
	return e, nil
}

// frameVariant is the variant a frame line names: by index, by name or
// spec, or implied when the header has only one.
func (s *streamMap) frameVariant(l *streamLine) (int, error) {
	switch {
	case l.VariantIndex != nil:
		if *l.VariantIndex < 0 || *l.VariantIndex >= len(s.meta.Variants) {
			return 0, fmt.Errorf("variant_index %d out of range (the header has %d variants)", *l.VariantIndex, len(s.meta.Variants))
		}
		return *l.VariantIndex, nil
	case l.Variant != nil:
		v, ok := s.variants[*l.Variant]
		if !ok {
			return 0, fmt.Errorf("variant %q is not in the header", *l.Variant)
		}
		return v, nil
	case len(s.meta.Variants) == 1:
		return 0, nil
	}
	return 0, fmt.Errorf(`frame line names no variant ("variant" or "variant_index")`)
}

// parseFrameStatus decodes a frame's status; none means running.
func parseFrameStatus(st string) (probes.Status, error) {
	switch st {
	case "", "running":
		return probes.Running, nil
	case "diverged":
		return probes.Diverged, nil
	case "done":
		return probes.Done, nil
	case "stopped":
		return probes.Stopped, nil
	}
	return probes.Running, fmt.Errorf("status %q (valid: running, diverged, done, stopped)", st)
}

// layerValues places a line's values by layer and probe name, every value
// the line lacks NaN. Names this normtop does not know are dropped, as the
// run file's registry does.
func (s *streamMap) layerValues(layers map[string]map[string]probes.JSONFloat) []probes.LayerValues {
	out := make([]probes.LayerValues, len(s.meta.Layers))
	for i := range out {
		out[i] = probes.EmptyLayerValues()
	}
	for name, vals := range layers {
		li, ok := s.layers[name]
		if !ok {
			continue
		}
		for pn, v := range vals {
			if p, ok := probes.ProbeByName(pn); ok {
				out[li][p] = float64(v)
			}
		}
	}
	return out
}

// parseEvals decodes a line's evaluations; every one needs a split.
func parseEvals(evals []streamEval) ([]probes.Eval, error) {
	out := make([]probes.Eval, 0, len(evals))
	for _, ev := range evals {
		if ev.Split == "" {
			return nil, fmt.Errorf("an eval entry has no split")
		}
		metric := float64(ev.Metric)
		if ev.Unit == "%" { // an export's accuracy: back to the fraction a Frame holds
			metric /= 100
		}
		out = append(out, probes.Eval{Split: ev.Split, Loss: float64(ev.Loss), Metric: metric, TrainLoss: float64(ev.TrainLoss)})
	}
	return out, nil
}

// alerts decodes a line's written alerts; kinds this normtop does not know
// are dropped, and an unknown layer or probe name leaves the alert without
// one.
func (s *streamMap) alerts(as []streamAlert) []probes.Alert {
	out := make([]probes.Alert, 0, len(as))
	for _, a := range as {
		k, ok := alertKindByName(a.Kind)
		if !ok {
			continue // a kind this normtop does not know
		}
		al := probes.Alert{Kind: k, Step: a.Step, Layer: -1, Probe: probes.NumProbes,
			Value: float64(a.Value), Threshold: float64(a.Threshold), Msg: a.Msg}
		if a.Layer != nil {
			if li, ok := s.layers[*a.Layer]; ok {
				al.Layer = li
			}
		}
		if a.Probe != nil {
			if p, ok := probes.ProbeByName(*a.Probe); ok {
				al.Probe = p
			}
		}
		out = append(out, al)
	}
	return out
}

// variantOf resolves an end line's variant key: an index or a name.
func (s *streamMap) variantOf(k string) (int, bool) {
	if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < len(s.meta.Variants) {
		return i, true
	}
	v, ok := s.variants[k]
	return v, ok
}

func alertKindByName(n string) (probes.AlertKind, bool) {
	for k := probes.AlertKind(0); k < probes.NumAlertKinds; k++ {
		if k.String() == n {
			return k, true
		}
	}
	return 0, false
}
