package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/normtop/normtop/probes"
)

// A stream frame line's "batch" key (docs/formats.md): the step's batch
// shape, {"rows": R, "width": W, "tokens": T}, each a whole number ≥ 0 or
// null (0 and null: unknown). `normtop export --format jsonl` writes the
// same key, so an export stays a stream.

// streamBatch holds the three values undecoded: json.Unmarshal into an int
// would accept neither null nor say which key was wrong, and would turn
// 2.5 into a message about Go types.
type streamBatch struct {
	Rows   json.RawMessage `json:"rows"`
	Width  json.RawMessage `json:"width"`
	Tokens json.RawMessage `json:"tokens"`
}

// parseStreamBatch decodes a line's "batch" value; an error is the reason
// the line is refused.
func parseStreamBatch(raw json.RawMessage) (probes.BatchShape, error) {
	var s probes.BatchShape
	var b streamBatch
	if err := json.Unmarshal(raw, &b); err != nil {
		return s, fmt.Errorf(`"batch" is not an object {"rows":R,"width":W,"tokens":T} (%v)`, err)
	}
	for _, f := range []struct {
		key string
		raw json.RawMessage
		dst *int
	}{{"rows", b.Rows, &s.Rows}, {"width", b.Width, &s.Width}, {"tokens", b.Tokens, &s.Tokens}} {
		n, err := streamCount(f.raw)
		if err != nil {
			return probes.BatchShape{}, fmt.Errorf("batch %s %s: %v", f.key, f.raw, err)
		}
		*f.dst = n
	}
	if !s.Valid() {
		return probes.BatchShape{}, fmt.Errorf("batch has %d tokens, more than its %d rows × %d width hold", s.Tokens, s.Rows, s.Width)
	}
	return s, nil
}

// streamCount is a JSON value that must be a count: digits only (no sign,
// fraction or exponent), or null / absent for 0.
func streamCount(raw json.RawMessage) (int, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return 0, nil
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("not a count (a whole number ≥ 0)")
		}
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil {
		return 0, fmt.Errorf("too large")
	}
	return n, nil
}

// appendJSONBatch appends a Frame's "batch" field, nothing when the shape
// is not recorded.
func appendJSONBatch(b []byte, s probes.BatchShape) []byte {
	if !s.Known() {
		return b
	}
	b = append(b, `,"batch":{"rows":`...)
	b = strconv.AppendInt(b, int64(s.Rows), 10)
	b = append(b, `,"width":`...)
	b = strconv.AppendInt(b, int64(s.Width), 10)
	b = append(b, `,"tokens":`...)
	b = strconv.AppendInt(b, int64(s.Tokens), 10)
	return append(b, '}')
}
