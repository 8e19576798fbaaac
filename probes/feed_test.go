package probes

import (
	"reflect"
	"sync"
	"testing"
)

func TestFeedKeepsImportantFrames(t *testing.T) {
	plain := func(v, step int) Frame { return Frame{Variant: v, Step: step} }
	withEval := func(v, step int) Frame { f := plain(v, step); f.Eval = []Eval{{Split: "val"}}; return f }
	withAlert := func(v, step int) Frame { f := plain(v, step); f.Alerts = []Alert{{}}; return f }
	withSpec := func(v, step int) Frame { f := plain(v, step); f.Spectrum = &Spectrum{}; return f }
	withStatus := func(v, step int, s Status) Frame { f := plain(v, step); f.Status = s; return f }
	type vs struct{ v, step int }
	cases := []struct {
		name     string
		capacity int
		push     []Frame
		want     []vs
		dropped  int
	}{
		{"under capacity nothing is dropped", 4,
			[]Frame{plain(0, 1), plain(0, 2), plain(0, 3), plain(0, 4)},
			[]vs{{0, 1}, {0, 2}, {0, 3}, {0, 4}}, 0},
		{"over capacity drops the oldest plain frames down to 3/4", 4,
			[]Frame{plain(0, 1), plain(0, 2), plain(0, 3), plain(0, 4), plain(0, 5)},
			[]vs{{0, 3}, {0, 4}, {0, 5}}, 2},
		{"eval, alert, spectrum and status changes survive", 4,
			[]Frame{withEval(0, 1), withAlert(0, 2), plain(0, 3), withSpec(0, 4), withStatus(0, 5, Diverged), withStatus(0, 6, Diverged), withStatus(0, 7, Diverged)},
			[]vs{{0, 1}, {0, 2}, {0, 4}, {0, 5}, {0, 7}}, 2},
		{"a repeated status is not a change", 2,
			[]Frame{withStatus(0, 1, Running), withStatus(0, 2, Running), withStatus(0, 3, Running)},
			[]vs{{0, 2}, {0, 3}}, 1},
		{"status change is per variant", 2,
			[]Frame{withStatus(1, 1, Done), withStatus(0, 2, Done), withStatus(1, 3, Done), plain(1, 4)},
			[]vs{{1, 1}, {0, 2}, {1, 4}}, 1},
		{"the newest frame is never dropped", 1,
			[]Frame{withEval(0, 1), plain(0, 2)},
			[]vs{{0, 1}, {0, 2}}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFeed(tc.capacity)
			for _, fr := range tc.push {
				f.Push(fr)
			}
			var got []vs
			for _, fr := range f.Drain(nil) {
				got = append(got, vs{fr.Variant, fr.Step})
			}
			if !reflect.DeepEqual(got, tc.want) || f.Dropped() != tc.dropped {
				t.Fatalf("got %v dropped %d, want %v dropped %d", got, f.Dropped(), tc.want, tc.dropped)
			}
			if rest := f.Drain(nil); len(rest) != 0 {
				t.Fatalf("second Drain returned %d frames", len(rest))
			}
		})
	}
}

func TestFeedReadyAndClose(t *testing.T) {
	f := NewFeed(8)
	select {
	case <-f.Ready():
		t.Fatal("Ready signalled on an empty feed")
	default:
	}
	f.Push(Frame{Step: 1})
	f.Push(Frame{Step: 2}) // signals coalesce; Push must not block on the full channel
	<-f.Ready()
	select {
	case <-f.Ready():
		t.Fatal("two signals queued")
	default:
	}
	if f.Closed() {
		t.Fatal("Closed before Close")
	}
	f.Close()
	<-f.Ready() // Close wakes the consumer
	f.Push(Frame{Step: 3})
	if got := f.Drain(nil); len(got) != 2 || got[1].Step != 2 || !f.Closed() {
		t.Fatalf("after Close: %v closed=%v", got, f.Closed())
	}
}

// TestFeedRace has several producers push while a consumer drains; run with
// -race. Per variant, frames arrive in step order, and every frame that must
// be kept arrives.
func TestFeedRace(t *testing.T) {
	const variants, steps = 4, 3000
	f := NewFeed(16)
	var wg sync.WaitGroup
	for v := 0; v < variants; v++ {
		wg.Add(1)
		go func(v int) {
			defer wg.Done()
			for s := 1; s <= steps; s++ {
				fr := Frame{Variant: v, Step: s, Layers: []LayerValues{EmptyLayerValues()}}
				if s%100 == 0 {
					fr.Eval = []Eval{{Split: "val", Loss: float64(s)}}
				}
				if s == steps {
					fr.Status = Done
				}
				f.Push(fr)
			}
		}(v)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); f.Close(); close(done) }()
	last := make([]int, variants)
	evals := make([]int, variants)
	finished := 0
	var buf []Frame
loop:
	for {
		select {
		case <-f.Ready():
		case <-done:
		}
		buf = f.Drain(buf[:0])
		for _, fr := range buf {
			if fr.Step <= last[fr.Variant] {
				t.Fatalf("variant %d: step %d after %d", fr.Variant, fr.Step, last[fr.Variant])
			}
			last[fr.Variant] = fr.Step
			evals[fr.Variant] += len(fr.Eval)
			if fr.Status == Done {
				finished++
			}
		}
		if f.Closed() && len(buf) == 0 {
			select {
			case <-done:
				if rest := f.Drain(nil); len(rest) == 0 {
					break loop
				}
			default:
			}
		}
	}
	for v := 0; v < variants; v++ {
		if evals[v] != steps/100 || last[v] != steps {
			t.Errorf("variant %d: %d evals (want %d), last step %d", v, evals[v], steps/100, last[v])
		}
	}
	if finished != variants {
		t.Errorf("%d Done frames, want %d", finished, variants)
	}
}

// TestFeedFolded: a producer's standings reach the consumer as of the
// newest drained Frame, counting the Frames the Feed dropped, and a plain
// Push leaves DrainFolded reporting none.
func TestFeedFolded(t *testing.T) {
	m := RunMeta{Layers: []string{"l"}, Variants: []VariantMeta{{Name: "layernorm"}}}
	plain := NewFeed(4)
	plain.Push(Frame{Step: 1})
	if _, ok := plain.DrainFolded(nil, NewStandings(m)); ok {
		t.Errorf("DrainFolded reports standings no producer folded")
	}
	feed, folded, got := NewFeed(4), NewStandings(m), NewStandings(m)
	for step := 1; step <= 40; step++ {
		f := Frame{Step: step, TrainLoss: float64(step)}
		if step == 7 {
			f.Alerts = []Alert{{Kind: AlertOutlier, Layer: 0, Step: 7}}
		}
		folded.Fold(&f)
		feed.PushFolded(f, folded)
	}
	frames, ok := feed.DrainFolded(nil, got)
	if !ok || len(frames) >= 40 {
		t.Fatalf("ok %v, %d frames drained of 40 (the feed should have dropped some)", ok, len(frames))
	}
	if v := got.Variants[0]; v.Step != 40 || v.TrainLoss != 40 || v.Outliers[0] != 1 || v.Alerts[AlertOutlier] != 1 {
		t.Errorf("standings drained: %+v; want step 40, loss 40, one outlier", v)
	}
	feed.PushFolded(Frame{Step: 41}, folded) // not folded: the copy is of folded as it stands
	folded.Variants[0].Step = 99             // a later change of the producer's standings
	if _, ok := feed.DrainFolded(nil, got); !ok || got.Variants[0].Step != 40 {
		t.Errorf("the feed's copy followed the producer's later change: step %d", got.Variants[0].Step)
	}
}
