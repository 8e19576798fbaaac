package report

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
)

// Collected is findings gathered from several reports (one per claim, each
// over the runs that claim reads: `normtop findings`), written on their own
// in the three formats. Sources names, per finding, the report it came
// from.
type Collected struct {
	Findings []Finding `json:"findings"`
	Sources  []string  `json:"sources"`
}

// Add appends the finding id of r (or its parts, id-a, id-b, ...), naming
// its source; false when r has none.
func (c *Collected) Add(r *Report, id, source string) bool {
	found := false
	for _, f := range r.Findings {
		// a claim judged in parts ("vi" as "vi-a" and "vi-b") adds each part
		if f.ID == id || strings.HasPrefix(f.ID, id+"-") {
			c.Findings = append(c.Findings, f)
			c.Sources = append(c.Sources, source)
			found = true
		}
	}
	return found
}

// WriteText writes the findings as the text report's Findings section.
func (c *Collected) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("normtop findings\n")
	for i, f := range c.Findings {
		writeFindingsText(bw, []Finding{f})
		bw.WriteString("    full report: " + c.Sources[i] + "\n")
	}
	return bw.Flush()
}

// WriteMarkdown writes the findings as the Markdown report's Findings section.
func (c *Collected) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("# normtop findings\n")
	for i, f := range c.Findings {
		writeFindingsMD(bw, []Finding{f})
		bw.WriteString("- full report: " + mdEscape(c.Sources[i]) + "\n")
	}
	return bw.Flush()
}

// WriteJSON writes the findings as one indented JSON document.
func (c *Collected) WriteJSON(w io.Writer) error {
	out := Collected{Findings: append([]Finding(nil), c.Findings...), Sources: c.Sources}
	for i := range out.Findings {
		if out.Findings[i].Numbers == nil {
			out.Findings[i].Numbers = []string{}
		}
	}
	if out.Findings == nil {
		out.Findings, out.Sources = []Finding{}, []string{}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
