package record

import (
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
)

// realisticRun simulates the probe stream of a side-by-side run: 4
// variants × 12 norm sites, every probe that applies to the variant measured
// every step (docs/math.md §5 with the default intervals Stats=Grad=
// Params=1; the spectrum every 100 steps). Each series is a slow trend times
// lognormal noise at full float64 precision (the probes are float64
// reductions, so their low mantissa bits are noise); in_maxabs is a float32
// value widened to float64 (a max over float32 activations). The values are
// synthetic: no trainer output was available when this was measured.
type realisticRun struct {
	meta  probes.RunMeta
	rng   *rand.Rand
	base  []float64 // per series
	drift []float64
	step  int
	v     int
	masks []probes.LayerValues // per variant: NaN where the probe does not apply
}

func newRealisticRun(seed uint64) *realisticRun {
	meta := testMeta(4, 12)
	names := []string{"layernorm", "powernorm", "batchnorm", "adanorm"}
	for v, n := range names {
		meta.Variants[v] = probes.VariantMeta{Name: n, Spec: n}
	}
	g := &realisticRun{meta: meta, rng: rand.New(rand.NewPCG(seed, 1)), step: 1}
	n := 4 * 12 * int(probes.NumProbes)
	for i := 0; i < n; i++ {
		g.base = append(g.base, math.Exp(g.rng.NormFloat64()*3))
		g.drift = append(g.drift, g.rng.NormFloat64()*1e-4)
	}
	for _, name := range names {
		m := probes.EmptyLayerValues()
		for p := range m {
			m[p] = 1
		}
		if name != "powernorm" {
			m[probes.GPsi2], m[probes.PNGamma], m[probes.PNNu] = math.NaN(), math.NaN(), math.NaN()
		}
		if name != "adanorm" {
			m[probes.AdaFrac] = math.NaN()
		}
		if name == "adanorm" {
			m[probes.GammaDrift], m[probes.BetaNorm] = math.NaN(), math.NaN()
		}
		g.masks = append(g.masks, m)
	}
	return g
}

func (g *realisticRun) next() probes.Frame {
	f := probes.Frame{
		Variant: g.v, Step: g.step, Epoch: float64(g.step) / 430, TrainLoss: 3 * math.Exp(-float64(g.step)/5000) * (1 + 0.05*g.rng.NormFloat64()),
		Elapsed: time.Duration(g.step) * 31 * time.Millisecond, StepsPerSec: 32 + g.rng.NormFloat64(),
		Layers: make([]probes.LayerValues, 12),
	}
	for l := range f.Layers {
		for p := range f.Layers[l] {
			if math.IsNaN(g.masks[g.v][p]) {
				f.Layers[l][p] = math.NaN()
				continue
			}
			id := (g.v*12+l)*int(probes.NumProbes) + p
			x := g.base[id] * math.Exp(g.drift[id]*float64(g.step)+0.05*g.rng.NormFloat64())
			if probes.Probe(p) == probes.InMaxAbs {
				x = float64(float32(x))
			}
			f.Layers[l][p] = x
		}
	}
	if g.step%100 == 0 {
		f.Eval = []probes.Eval{{Split: "val", Loss: f.TrainLoss * 1.1, Metric: f.TrainLoss * 1.4}}
		s := &probes.Spectrum{Step: g.step, EffRank: 40}
		for i := 0; i < 64; i++ {
			s.Sigma = append(s.Sigma, math.Exp(-float64(i)/20))
		}
		f.Spectrum = s
	}
	g.v++
	if g.v == 4 {
		g.v = 0
		g.step++
	}
	return f
}

func countValues(f *probes.Frame) int {
	n := 0
	for l := range f.Layers {
		for p := range f.Layers[l] {
			if f.Layers[l].Has(probes.Probe(p)) {
				n++
			}
		}
	}
	return n
}

// BenchmarkWrite: probe values written per second and the average size of
// a probe value in the file (frame records, framing included, divided by
// the probe values they hold).
func BenchmarkWrite(b *testing.B) {
	g := newRealisticRun(1)
	frames := make([]probes.Frame, 4096)
	for i := range frames {
		frames[i] = g.next()
	}
	w, err := Create(filepath.Join(b.TempDir(), "w.ntr"), g.meta)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		f := frames[i%len(frames)]
		f.Step = i/4 + 1
		if err := w.Write(f); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	el := time.Since(start)
	b.StopTimer()
	values, bytes := w.Stats()
	b.ReportMetric(float64(values)/el.Seconds(), "values/s")
	b.ReportMetric(float64(bytes)/float64(values), "B/value")
	w.Close(End{})
}

// BenchmarkBytesPerValue writes 40,000 realistic frames (10,000 steps × 4
// variants) with fresh values every frame and reports bytes per probe value
// over the whole file, headers and index records included.
func BenchmarkBytesPerValue(b *testing.B) {
	for i := 0; i < b.N; i++ {
		g := newRealisticRun(uint64(i + 2))
		path := filepath.Join(b.TempDir(), "s.ntr")
		w, err := Create(path, g.meta)
		if err != nil {
			b.Fatal(err)
		}
		for k := 0; k < 40000; k++ {
			if err := w.Write(g.next()); err != nil {
				b.Fatal(err)
			}
		}
		values, frameBytes := w.Stats()
		w.Close(End{})
		st, _ := os.Stat(path)
		b.ReportMetric(float64(frameBytes)/float64(values), "B/value")
		b.ReportMetric(float64(st.Size())/float64(values), "file-B/value")
	}
}

var readFile struct {
	once   sync.Once
	path   string
	values int
}

// BenchmarkRead: probe values decoded per second by Next.
func BenchmarkRead(b *testing.B) {
	readFile.once.Do(func() {
		g := newRealisticRun(3)
		dir, _ := os.MkdirTemp("", "normtop-bench")
		readFile.path = filepath.Join(dir, "r.ntr")
		w, err := Create(readFile.path, g.meta)
		if err != nil {
			b.Fatal(err)
		}
		for k := 0; k < 20000; k++ {
			f := g.next()
			readFile.values += countValues(&f)
			w.Write(f)
		}
		w.Close(End{})
	})
	r, err := Open(readFile.path)
	if err != nil {
		b.Fatal(err)
	}
	values := 0
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			r.Close()
			if r, err = Open(readFile.path); err != nil {
				b.Fatal(err)
			}
			f, err = r.Next()
		}
		if err != nil {
			b.Fatal(err)
		}
		values += countValues(&f)
	}
	el := time.Since(start)
	b.StopTimer()
	r.Close()
	b.ReportMetric(float64(values)/el.Seconds(), "values/s")
}

var seekFile struct {
	once    sync.Once
	path    string
	maxStep int
	size    int64
}

// seekFileSize is 1 GB with NORMTOP_BENCH_SEEK_GB=1, else 64 MiB (so that
// `go test -bench .` stays quick).
func seekFileSize() int64 {
	if os.Getenv("NORMTOP_BENCH_SEEK_GB") == "1" {
		return 1 << 30
	}
	return 64 << 20
}

func makeSeekFile(b *testing.B) {
	seekFile.once.Do(func() {
		dir := os.Getenv("NORMTOP_BENCH_DIR")
		if dir == "" {
			dir = os.TempDir()
		}
		seekFile.path = filepath.Join(dir, "normtop-seek-bench.ntr")
		want := seekFileSize()
		if st, err := os.Stat(seekFile.path); err == nil && st.Size() >= want && st.Size() < want+want/8 {
			if r, err := Open(seekFile.path); err == nil {
				if end, ok := r.End(); ok && end.Status == StatusCompleted {
					runFileOf(r).refreshIndex()
					seekFile.maxStep, seekFile.size = int(runFileOf(r).idx.maxStep), st.Size()
					r.Close()
					return
				}
				r.Close()
			}
		}
		os.Remove(seekFile.path)
		g := newRealisticRun(4)
		w, err := Create(seekFile.path, g.meta)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, n := w.Stats(); n >= want {
				break
			}
			for k := 0; k < 1000; k++ {
				f := g.next()
				seekFile.maxStep = f.Step
				if err := w.Write(f); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := w.Close(End{}); err != nil {
			b.Fatal(err)
		}
		st, _ := os.Stat(seekFile.path)
		seekFile.size = st.Size()
	})
}

// BenchmarkSeekWarm: Seek to a random step and read the frame there, on a
// Reader that has already loaded the index chain.
func BenchmarkSeekWarm(b *testing.B) {
	makeSeekFile(b)
	r, err := Open(seekFile.path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	r.Seek(1)
	rng := rand.New(rand.NewPCG(5, 5))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := 1 + rng.IntN(seekFile.maxStep)
		if err := r.Seek(s); err != nil {
			b.Fatal(err)
		}
		f, err := r.Next()
		if err != nil || f.Step != s {
			b.Fatalf("seek %d: got step %d, %v", s, f.Step, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(seekFile.size)/1e6, "file-MB")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/seek")
}

// BenchmarkSeekCold: Open, Seek to a random step, read the frame there,
// Close: the index chain is loaded from the file on every operation.
func BenchmarkSeekCold(b *testing.B) {
	makeSeekFile(b)
	rng := rand.New(rand.NewPCG(6, 6))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Open(seekFile.path)
		if err != nil {
			b.Fatal(err)
		}
		s := 1 + rng.IntN(seekFile.maxStep)
		if err := r.Seek(s); err != nil {
			b.Fatal(err)
		}
		f, err := r.Next()
		if err != nil || f.Step != s {
			b.Fatalf("seek %d: got step %d, %v", s, f.Step, err)
		}
		r.Close()
	}
	b.StopTimer()
	b.ReportMetric(float64(seekFile.size)/1e6, "file-MB")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/seek")
}

// BenchmarkSeekColdNoTrailer: as BenchmarkSeekCold, but the newest index
// record is found by the backward scan used for files still being written
// or killed (no trailer).
func BenchmarkSeekColdNoTrailer(b *testing.B) {
	makeSeekFile(b)
	rng := rand.New(rand.NewPCG(7, 7))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Open(seekFile.path)
		if err != nil {
			b.Fatal(err)
		}
		runFileOf(r).ignoreTrailer = true
		s := 1 + rng.IntN(seekFile.maxStep)
		if err := r.Seek(s); err != nil {
			b.Fatal(err)
		}
		f, err := r.Next()
		if err != nil || f.Step != s {
			b.Fatalf("seek %d: got step %d, %v", s, f.Step, err)
		}
		r.Close()
	}
	b.StopTimer()
	b.ReportMetric(float64(seekFile.size)/1e6, "file-MB")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/seek")
}

// BenchmarkLastStepCold: Open and LastStep (index chain plus the tail after
// the newest index record), as a follower starting at the live edge does.
func BenchmarkLastStepCold(b *testing.B) {
	makeSeekFile(b)
	for i := 0; i < b.N; i++ {
		r, err := Open(seekFile.path)
		if err != nil {
			b.Fatal(err)
		}
		if s, ok := r.LastStep(); !ok || s != seekFile.maxStep {
			b.Fatalf("LastStep = %d, %v; want %d", s, ok, seekFile.maxStep)
		}
		r.Close()
	}
	b.ReportMetric(float64(seekFile.size)/1e6, "file-MB")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
}
