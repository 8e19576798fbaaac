package headless

import "fmt"

// Format selects how lines are written.
type Format int

const (
	Text Format = iota // human-readable lines; header and summary lines start with '#'
	JSON               // JSON Lines: one object per line, with a "type" field
)

func (f Format) String() string {
	if f == JSON {
		return "json"
	}
	return "text"
}

// ParseFormat maps a --log-format value ("text" or "json") to a Format.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "text":
		return Text, nil
	case "json":
		return JSON, nil
	}
	return Text, fmt.Errorf("unknown log format %q (valid: text, json)", s)
}
