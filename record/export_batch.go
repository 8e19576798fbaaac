package record

import (
	"bufio"
	"fmt"
	"slices"
	"strings"

	"github.com/normtop/normtop/probes"
)

// batchSummary is what the Markdown export says of one variant's batches:
// the range of each field over the steps that recorded a shape, and the
// narrowest 1% by width (probes.NarrowCut, the rule the report uses).
type batchSummary struct {
	rows, width, tokens [2]int // min, max
	widths              []int
}

func (s *batchSummary) add(b probes.BatchShape) {
	if len(s.widths) == 0 {
		s.rows, s.width, s.tokens = [2]int{b.Rows, b.Rows}, [2]int{b.Width, b.Width}, [2]int{b.Tokens, b.Tokens}
	}
	s.rows = [2]int{min(s.rows[0], b.Rows), max(s.rows[1], b.Rows)}
	s.width = [2]int{min(s.width[0], b.Width), max(s.width[1], b.Width)}
	s.tokens = [2]int{min(s.tokens[0], b.Tokens), max(s.tokens[1], b.Tokens)}
	s.widths = append(s.widths, b.Width)
}

// text is the summary as one phrase: "2,000 steps, rows 2–512, width
// 2–32, tokens 1,204–4,096; the narrowest 1%: width ≤ 5 (22 batches)".
func (s *batchSummary) text() string {
	span := func(r [2]int) string {
		if r[0] == r[1] {
			return probes.GroupThousands(r[0])
		}
		return probes.GroupThousands(r[0]) + "–" + probes.GroupThousands(r[1])
	}
	t := fmt.Sprintf("%s steps, rows %s, width %s, tokens %s", probes.GroupThousands(len(s.widths)), span(s.rows), span(s.width), span(s.tokens))
	if cut, narrow, _, ok := probes.NarrowCut(s.widths); ok {
		t += fmt.Sprintf("; the narrowest 1%%: width ≤ %d (%s batches)", cut, probes.GroupThousands(narrow))
	}
	return t
}

// writeBatchLine writes the Markdown export's batch line, nothing when no
// variant recorded a batch shape.
func writeBatchLine(bw *bufio.Writer, m probes.RunMeta, sums []batchSummary) {
	texts := make([]string, len(sums))
	recorded := false
	for v := range sums {
		if len(sums[v].widths) > 0 {
			texts[v], recorded = sums[v].text(), true
		}
	}
	if !recorded {
		return
	}
	bw.WriteString("\nBatches (rows × width positions, real tokens), over the steps that recorded them: ")
	if slices.Equal(texts, slices.Repeat(texts[:1], len(texts))) {
		bw.WriteString("every variant alike: " + texts[0] + ".\n")
		return
	}
	parts := make([]string, 0, len(texts))
	for v, t := range texts {
		if t == "" {
			t = "not recorded"
		}
		parts = append(parts, mdEscape(m.VariantLabel(v))+": "+t)
	}
	bw.WriteString(strings.Join(parts, "; ") + ".\n")
}
