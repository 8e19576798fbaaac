package tui

import (
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// batchModel is a live dashboard of the fixture's header whose frames carry
// the batch shape shape(step) (none where it is zero).
func batchModel(steps int, shape func(step int) probes.BatchShape) *Model {
	meta := fixtureMeta(2, 1, steps)
	m := newLive(meta, newFakeFeed(), Options{NoColor: true})
	for _, f := range fixtureFrames(meta, steps) {
		f.Batch = shape(f.Step)
		m.data.add(&f)
	}
	return m
}

// wordBatch is a token-budget run's batch: every 50th step 300 rows of
// "<s> ." (2 wide), the others wider.
func wordBatch(s int) probes.BatchShape {
	if s%50 == 0 {
		return probes.BatchShape{Rows: 300, Width: 2, Tokens: 600}
	}
	w := 3 + s%29
	return probes.BatchShape{Rows: 1800 / w, Width: w, Tokens: 1800/w*w - s%7}
}

// TestBatchNote: the note beside the charts names the selected variant's
// batch at the cursor; exact while the history holds every step, and with
// the step it read and the widths its bucket spans once steps share a
// bucket; nothing without the cursor or without recorded shapes.
func TestBatchNote(t *testing.T) {
	for _, tc := range []struct {
		name          string
		steps, cursor int
		shape         func(int) probes.BatchShape
		want          string
	}{
		{"exact", 200, 100, wordBatch, "cursor 100 · batch 300×2 (600 tok)"},
		{"exact, wide", 200, 101, wordBatch, "cursor 101 · batch 105×17 (1,782 tok)"},
		// 3,000 steps in 256 buckets: 16 steps a bucket; step 1,000 is in
		// the bucket of steps 993–1,008 and reads its last.
		{"bucketed", 3000, 1000, wordBatch, "cursor 1000 · batch 72×25 (1,800 tok) @1008 · widths 2–25"},
		{"no cursor", 200, -1, wordBatch, ""},
		{"not recorded", 200, 100, func(int) probes.BatchShape { return probes.BatchShape{} }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := batchModel(tc.steps, tc.shape)
			m.w, m.h = 120, 40
			m.st.Cursor = tc.cursor
			got := m.windowNote()
			if tc.want == "" {
				if strings.Contains(got, "batch") {
					t.Errorf("note %q names a batch", got)
				}
				return
			}
			if got != tc.want {
				t.Errorf("note %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBatchOnScreen: with the cursor on (c), the overview's note shows the
// batch of the cursor's step.
func TestBatchOnScreen(t *testing.T) {
	m := batchModel(200, wordBatch)
	screen := runScreen(t, m, 140, 40, "c")
	if want := "cursor 200 · batch 300×2 (600 tok)"; !strings.Contains(screen, want) {
		t.Errorf("screen lacks %q:\n%s", want, screen)
	}
}
