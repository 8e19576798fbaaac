package probes

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// BatchShape is what one training step's batch was: the fact that tells a
// spike of the statistics from a degenerate batch (a token-budget batch of
// 400 copies of "<s> ." is 400 rows 2 wide). The trainer computes it where
// it takes the batch; the run file, the stream, the exports, the dashboard
// and the report carry it unchanged. The zero value means "not recorded"
// (older run files, a stream line without "batch").
type BatchShape struct {
	// Rows: sentences, documents or images in the batch.
	Rows int
	// Width: the padded row width in positions (1 for image models).
	Width int
	// Tokens: the real (unmasked) positions of the batch, rows × width
	// without padding; for images the batch size.
	Tokens int
}

// Known reports whether the shape was recorded.
func (b BatchShape) Known() bool { return b != BatchShape{} }

// Valid reports whether every field is a count (≥ 0; 0 is "unknown") and
// the tokens fit the rows × width the batch has room for. Readers refuse
// other shapes.
func (b BatchShape) Valid() bool {
	if b.Rows < 0 || b.Width < 0 || b.Tokens < 0 {
		return false
	}
	// More real tokens than positions (when both are known; a product
	// too large for an int holds any count).
	if b.Rows > 0 && b.Width > 0 && b.Rows <= math.MaxInt/b.Width && b.Tokens > b.Rows*b.Width {
		return false
	}
	return true
}

// String is the dashboard's and the report's short form: "412×5 (1,802
// tok)", "" when not recorded.
func (b BatchShape) String() string {
	if !b.Known() {
		return ""
	}
	return fmt.Sprintf("%s×%s (%s tok)", GroupThousands(b.Rows), GroupThousands(b.Width), GroupThousands(b.Tokens))
}

// GroupThousands writes n with commas between groups of three digits:
// 1802 → "1,802".
func GroupThousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// NarrowShare is the share of a run's batches that the report calls the
// narrowest (docs/report.md, "Outliers and their batches").
const NarrowShare = 0.01

// NarrowCut is the width at or below which a batch counts as one of the
// narrowest NarrowShare of widths (the recorded widths of a run's steps, in
// any order; widths ≤ 0, unknown, are left out): the width of the
// ⌈NarrowShare·n⌉-th narrowest batch. Ties at the cut-off are included, so
// narrow, the batches at or below it, can exceed that share when many
// batches share the cut-off width; it is reported beside the cut. n is the
// number of known widths. ok is false when no width is known or every batch
// has one width (an image run's are all 1): there is then no narrowest
// share to speak of.
func NarrowCut(widths []int) (cut, narrow, n int, ok bool) {
	known := make([]int, 0, len(widths))
	for _, w := range widths {
		if w > 0 {
			known = append(known, w)
		}
	}
	n = len(known)
	if n == 0 {
		return 0, 0, 0, false
	}
	slices.Sort(known)
	if known[0] == known[n-1] {
		return 0, 0, n, false
	}
	k := int(math.Ceil(NarrowShare * float64(n)))
	cut = known[k-1]
	narrow = k
	for narrow < n && known[narrow] == cut {
		narrow++
	}
	return cut, narrow, n, true
}
