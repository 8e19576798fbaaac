package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/normtop/normtop/probes"
)

// A stream frame line's "hist" key (docs/formats.md): layer name → that
// layer's input histogram in the bins the header's meta.Histogram
// declares, {"mean": m, "std": s, "under": u, "counts": [c0, …], "over": o,
// "nan": n}. `normtop export --format jsonl` writes the same key, so an
// export stays a stream.

// streamHist holds one layer's values undecoded, so that each is checked
// for what it must be (a count: digits only; mean and σ: a finite number
// or null) and a refusal names the key.
type streamHist struct {
	Mean   json.RawMessage `json:"mean"`
	Std    json.RawMessage `json:"std"`
	Under  json.RawMessage `json:"under"`
	Over   json.RawMessage `json:"over"`
	NaN    json.RawMessage `json:"nan"`
	Counts json.RawMessage `json:"counts"`
}

// parseStreamHists decodes a line's "hist" value into histograms
// ascending by layer; layers the header does not name are dropped (as
// "layers" drops them). An error is the reason the line is refused.
func (s *streamMap) parseStreamHists(raw json.RawMessage) ([]probes.Histogram, error) {
	l := s.meta.Histogram
	if l == nil {
		return nil, fmt.Errorf(`frame line has "hist" but the header declares no histogram bins (meta.Histogram)`)
	}
	var m map[string]streamHist
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf(`"hist" is not an object {layer: {"mean":…,"std":…,"under":…,"counts":[…],"over":…,"nan":…}} (%v)`, err)
	}
	names := make([]string, 0, len(m))
	for name := range m {
		if _, ok := s.layers[name]; ok {
			names = append(names, name)
		}
	}
	slices.Sort(names) // a line with several faults is always refused for the same one
	hs := make([]probes.Histogram, 0, len(names))
	for _, name := range names {
		h, err := parseStreamHist(m[name], *l)
		if err != nil {
			return nil, fmt.Errorf("hist of layer %q: %v", name, err)
		}
		h.Layer = s.layers[name]
		hs = append(hs, h)
	}
	slices.SortFunc(hs, func(a, b probes.Histogram) int { return a.Layer - b.Layer })
	if err := probes.CheckHists(hs, l, len(s.meta.Layers)); err != nil {
		return nil, err
	}
	if len(hs) == 0 {
		return nil, nil // only layers this run does not have
	}
	return hs, nil
}

// parseStreamHist decodes one layer's histogram in layout l.
func parseStreamHist(sh streamHist, l probes.HistLayout) (probes.Histogram, error) {
	var h probes.Histogram
	var err error
	if h.Mean, err = histMoment(sh.Mean); err != nil {
		return h, fmt.Errorf("mean %s: %v", sh.Mean, err)
	}
	if h.Std, err = histMoment(sh.Std); err != nil {
		return h, fmt.Errorf("std %s: %v", sh.Std, err)
	}
	if h.Std < 0 {
		return h, fmt.Errorf("std %s is negative", sh.Std)
	}
	for _, f := range []struct {
		key string
		raw json.RawMessage
		dst *int
	}{{"under", sh.Under, &h.Under}, {"over", sh.Over, &h.Over}, {"nan", sh.NaN, &h.NaN}} {
		if len(f.raw) == 0 { // absent: none
			continue
		}
		if *f.dst, err = histCount(f.raw); err != nil {
			return h, fmt.Errorf("%s %s: %v", f.key, f.raw, err)
		}
	}
	if h.Counts, err = histCounts(sh.Counts, l.Bins); err != nil {
		return h, err
	}
	return h, nil
}

// histMoment is a mean or σ: a JSON number that is finite, or null (or
// absent) for NaN, "no finite entry".
func histMoment(raw json.RawMessage) (float64, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return math.NaN(), nil
	}
	if raw[0] == '"' {
		return 0, fmt.Errorf("not a finite number (null where no entry was finite)")
	}
	x, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, fmt.Errorf("not a finite number (null where no entry was finite)")
	}
	return x, nil
}

// histCount is one count: digits only, at most probes.MaxHistCount.
func histCount(raw json.RawMessage) (int, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return 0, fmt.Errorf("not a count (a whole number ≥ 0)")
	}
	n, err := streamCount(raw)
	if err != nil {
		return 0, err
	}
	if n > probes.MaxHistCount {
		return 0, fmt.Errorf("over 2^53")
	}
	return n, nil
}

// histCounts decodes the "counts" array, which must hold exactly bins
// counts. It scans the array's bytes (json.Unmarshal has checked the
// line's syntax) rather than decoding it whole, so a forged array of
// millions of entries costs no more than bins of them.
func histCounts(raw json.RawMessage, bins int) ([]int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' || raw[len(raw)-1] != ']' {
		return nil, fmt.Errorf(`"counts" is not an array of %d counts`, bins)
	}
	body := bytes.TrimSpace(raw[1 : len(raw)-1])
	out := make([]int, 0, bins)
	for len(body) > 0 {
		tok := body
		if i := bytes.IndexByte(body, ','); i >= 0 {
			tok, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		if len(out) == bins {
			return nil, fmt.Errorf(`"counts" has more than %d counts; the header's histograms have %d bins`, bins, bins)
		}
		tok = bytes.TrimSpace(tok)
		n, err := histCount(tok)
		if err != nil {
			return nil, fmt.Errorf("bin %d count %s: %v", len(out), tok, err)
		}
		out = append(out, n)
	}
	if len(out) != bins {
		return nil, fmt.Errorf(`"counts" has %d counts; the header's histograms have %d bins`, len(out), bins)
	}
	return out, nil
}

// appendJSONHists appends a Frame's "hist" field, nothing when it has no
// histogram.
func appendJSONHists(b []byte, m probes.RunMeta, hs []probes.Histogram) []byte {
	if len(hs) == 0 {
		return b
	}
	b = append(b, `,"hist":{`...)
	for i := range hs {
		h := &hs[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonStr(b, m.LayerName(h.Layer))
		b = append(b, `:{"mean":`...)
		b = probes.AppendJSONFloat(b, h.Mean)
		b = append(b, `,"std":`...)
		b = probes.AppendJSONFloat(b, h.Std)
		b = append(b, `,"under":`...)
		b = strconv.AppendInt(b, int64(h.Under), 10)
		b = append(b, `,"counts":[`...)
		for k, c := range h.Counts {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(c), 10)
		}
		b = append(b, `],"over":`...)
		b = strconv.AppendInt(b, int64(h.Over), 10)
		b = append(b, `,"nan":`...)
		b = strconv.AppendInt(b, int64(h.NaN), 10)
		b = append(b, '}')
	}
	return append(b, '}')
}
