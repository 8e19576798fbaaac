package report

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteText writes the report as plain text for a terminal or a log: the
// sections with aligned columns, then the findings.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("normtop report\n")
	for _, s := range r.sections() {
		bw.WriteString("\n== " + s.title + " ==\n")
		for _, l := range s.lines {
			bw.WriteString(l + "\n")
		}
		for _, t := range s.tables {
			bw.WriteString("\n")
			writeTextTable(bw, t)
		}
	}
	bw.WriteString("\n== Findings ==\n")
	writeFindingsText(bw, r.Findings)
	return bw.Flush()
}

// writeFindingsText writes findings as the text report's Findings section.
func writeFindingsText(bw *bufio.Writer, fs []Finding) {
	for _, f := range fs {
		bw.WriteString("\n(" + f.ID + ") " + f.Claim + "\n")
		if f.Model != "" {
			bw.WriteString("    judged on: " + f.Model + "\n")
		}
		for _, n := range f.Numbers {
			bw.WriteString("    " + n + "\n")
		}
		bw.WriteString("    verdict: " + f.Verdict + ". " + f.Reason + "\n")
	}
}

func writeTextTable(bw *bufio.Writer, t table) {
	width := make([]int, len(t.head))
	for i, h := range t.head {
		width[i] = utf8.RuneCountInString(h)
	}
	for _, row := range t.rows {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if i < len(t.right) && t.right[i] {
				b.WriteString(pad + c)
			} else if i < len(cells)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		bw.WriteString(b.String() + "\n")
	}
	line(t.head)
	for _, row := range t.rows {
		line(row)
	}
}
