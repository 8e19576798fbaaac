package report

import (
	"bufio"
	"io"
	"strings"
)

// WriteMarkdown writes the report as Markdown (GitHub tables), for a README
// or an issue.
func (r *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("# normtop report\n")
	for _, s := range r.sections() {
		bw.WriteString("\n## " + mdEscape(s.title) + "\n\n")
		for _, l := range s.lines {
			bw.WriteString(mdEscape(l) + "\n\n")
		}
		for _, t := range s.tables {
			writeMDTable(bw, t)
			bw.WriteString("\n")
		}
	}
	bw.WriteString("\n## Findings\n")
	writeFindingsMD(bw, r.Findings)
	return bw.Flush()
}

// writeFindingsMD writes findings as the Markdown report's Findings section.
func writeFindingsMD(bw *bufio.Writer, fs []Finding) {
	for _, f := range fs {
		bw.WriteString("\n**(" + f.ID + ")** " + mdEscape(f.Claim) + "\n\n")
		if f.Model != "" {
			bw.WriteString("- judged on: " + mdEscape(f.Model) + "\n")
		}
		for _, n := range f.Numbers {
			if rest, ok := strings.CutPrefix(n, "  "); ok { // a sub-claim's number: a nested item
				bw.WriteString("  - " + mdEscape(rest) + "\n")
				continue
			}
			bw.WriteString("- " + mdEscape(n) + "\n")
		}
		bw.WriteString("- **verdict: " + f.Verdict + ".** " + mdEscape(f.Reason) + "\n")
	}
}

func writeMDTable(bw *bufio.Writer, t table) {
	row := func(cells []string) {
		bw.WriteString("|")
		for _, c := range cells {
			bw.WriteString(" " + mdEscape(c) + " |")
		}
		bw.WriteString("\n")
	}
	row(t.head)
	bw.WriteString("|")
	for i := range t.head {
		if i < len(t.right) && t.right[i] {
			bw.WriteString("---:|")
		} else {
			bw.WriteString("---|")
		}
	}
	bw.WriteString("\n")
	for _, r := range t.rows {
		row(r)
	}
}

// mdEscape keeps table cells whole and stops "*" and "_" from starting emphasis.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`).Replace(s)
}
