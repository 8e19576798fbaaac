package report

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// withBatches is fx whose frames carry the batch shape shape(step).
func withBatches(fx fixture, shape func(step int) probes.BatchShape) fixture {
	fill := fx.fill
	fx.fill = func(f *probes.Frame, rng *rand.Rand) {
		fill(f, rng)
		f.Batch = shape(f.Step)
	}
	return fx
}

// TestOutlierBatches: (ii) lists each outlier of the judged layers with its
// step and batch, and counts those on the narrowest 1% of batches and on
// the 1% with the fewest tokens. The Transformer's g_mu and g_var spike at
// every 20th step, which is also where its batches are 2 wide (300 rows of
// "<s> ."); its rdist_var spikes every 10th step: half of them on those
// batches, the other half on one-sentence batches (1 row, 31 tokens: the
// fewest, but the widest). The CNN's batches are images, all alike: there
// is no smallest 1% to speak of. A run without batch shapes says so.
func TestOutlierBatches(t *testing.T) {
	dir := t.TempDir()
	seeds := []int64{1, 2, 3}
	narrow := func(s int) bool { return s%20 == 0 }
	single := func(s int) bool { return s%20 == 10 }
	words := func(s int) probes.BatchShape {
		if narrow(s) {
			return probes.BatchShape{Rows: 300, Width: 2, Tokens: 600}
		}
		if single(s) {
			return probes.BatchShape{Rows: 1, Width: 31, Tokens: 31}
		}
		w := 3 + s%29
		return probes.BatchShape{Rows: 1800 / w, Width: w, Tokens: 1800/w*w - s%7}
	}
	images := func(int) probes.BatchShape { return probes.BatchShape{Rows: 32, Width: 1, Tokens: 32} }
	tf := withBatches(tailRun("transformer", []string{"block0.ln1", "block0.ln2"}, seeds, "batchnorm:groups=1", 0.1, 0), words).write(t, dir, "t.ntr")
	cnn := withBatches(tailRun("resnet", []string{"stem.bn"}, seeds, "batchnorm", 0.01, -1), images).write(t, dir, "r.ntr")
	r, err := Build([]string{tf, cnn})
	if err != nil {
		t.Fatal(err)
	}
	f := findingByID(t, r, "ii")
	text := strings.Join(f.Numbers, "\n")
	head := "outliers and their batches, transformer batchnorm:groups=1 block0.ln1: outliers (all seeds) on the narrowest 1% of batches: "
	// 200 steps: the 1% cut is the 2nd smallest value: width 2, 31
	// tokens; the ten batches at each are all in by the tie rule.
	for _, want := range []string{
		head,
		"  seed 2, 200 batches: the narrowest 1%: width ≤ 2 (10 batches, 5%; ties at the cut-off included); the fewest-token 1%: ≤ 31 tokens (10 batches, 5%; ties at the cut-off included)",
		"  seed 1 g_mu: 10 outliers (10 of 10 on the narrowest 1%, 0 of 10 on the fewest-token 1%): step 20 300×2 (600 tok), step 40 300×2 (600 tok),",
		"outliers and their batches, resnet batchnorm stem.bn: no smallest 1% of batches (every batch has one width and one token count)",
		"  seed 3: every one of the 200 recorded batches is 1 wide with 32 tokens: no smallest 1%",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("(ii) lacks %q:\n%s", want, text)
		}
	}
	// The headline's counts agree with the steps listed: every g outlier is
	// on a 2-wide batch, and rdist_var's are there exactly when the step is
	// a multiple of 20.
	var rdist, rdistNarrow, rdistSingle int
	for _, rep := range r.Groups[0].Reps {
		for _, s := range rep.Layers[0].Probes[probes.RdistVar].OutlierSteps {
			rdist++
			if narrow(s) {
				rdistNarrow++
			}
			if single(s) {
				rdistSingle++
			}
		}
	}
	if rdist == 0 || rdistNarrow == rdist || rdistSingle == 0 {
		t.Fatalf("the fixture's rdist_var outliers (%d, %d narrow, %d single) do not test the count", rdist, rdistNarrow, rdistSingle)
	}
	wantHead := head + "rdist_var " + itoa(rdistNarrow) + "/" + itoa(rdist) + ", g_mu 30/30, g_var 30/30; on the fewest-token 1% of batches: rdist_var " +
		itoa(rdistSingle) + "/" + itoa(rdist) + ", g_mu 0/30, g_var 0/30"
	if !strings.Contains(text, wantHead) {
		t.Errorf("(ii) lacks %q:\n%s", wantHead, text)
	}

	// Text, Markdown and HTML carry the listing, the seeds' lines nested
	// under the headline.
	var txt, md, html bytes.Buffer
	if err := r.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ format, out, want string }{
		{"text", txt.String(), "\n    " + wantHead + "\n      seed 1, 200 batches: the narrowest 1%"},
		{"md", md.String(), "\n- " + strings.ReplaceAll(wantHead, "_", `\_`) + "\n  - seed 1, 200 batches: the narrowest 1%"},
		{"html", html.String(), "<li>" + wantHead + "\n<ul>\n<li>seed 1, 200 batches: the narrowest 1%"},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("%s output lacks %q", c.format, c.want)
		}
	}

	// The same runs without batch shapes.
	tf0 := tailRun("transformer", []string{"block0.ln1"}, seeds, "batchnorm:groups=1", 0.1, 0).write(t, dir, "t0.ntr")
	r0, err := Build([]string{tf0, cnn})
	if err != nil {
		t.Fatal(err)
	}
	text0 := strings.Join(findingByID(t, r0, "ii").Numbers, "\n")
	if want := "outliers and their batches, transformer batchnorm:groups=1 block0.ln1: batch shapes not recorded"; !strings.Contains(text0, want) {
		t.Errorf("(ii) without batch shapes lacks %q:\n%s", want, text0)
	}
}
