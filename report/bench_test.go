package report

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// benchFileSize is NORMTOP_BENCH_MB MiB when set, 1 GiB with NORMTOP_BIG=1, else 64 MiB, so that
// `go test -bench .` stays quick. NORMTOP_BENCH_DIR picks where the file is
// written (default: the temporary directory); a file of the right size
// left there by an earlier run is reused.
func benchFileSize() int64 {
	if mb, err := strconv.Atoi(os.Getenv("NORMTOP_BENCH_MB")); err == nil && mb > 0 {
		return int64(mb) << 20
	}
	if os.Getenv("NORMTOP_BIG") == "1" {
		return 1 << 30
	}
	return 64 << 20
}

// benchRun writes a run file shaped like a real side-by-side transformer
// run: 4 variants × 12 norm sites, every probe that applies to the variant
// measured every step, a validation every 100 steps and a spectrum every
// 100. Each series is a slow trend times lognormal noise at full float64
// precision (the probes are float64 reductions, their low bits noise), so
// the file is as large per value as a real one.
func benchRun(b *testing.B, path string, size int64) (values int) {
	m := meta("transformer", "bpc", nil, []int64{0}, "layernorm", "batchnorm", "pn-v", "adanorm")
	for l := 0; l < 12; l++ {
		m.Layers = append(m.Layers, "block"+string(rune('a'+l))+".ln")
	}
	m.Config["d_model"] = "64"
	w, err := record.Create(path, m)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	nv, nl := len(m.Variants), len(m.Layers)
	base := make([]float64, nv*nl*int(probes.NumProbes))
	for i := range base {
		base[i] = math.Exp(rng.NormFloat64() * 3)
	}
	applies := func(name string, p probes.Probe) bool {
		switch p {
		case probes.GPsi2, probes.PNGamma, probes.PNNu:
			return name == "pn-v"
		case probes.AdaFrac:
			return name == "adanorm"
		case probes.GammaDrift, probes.BetaNorm:
			return name != "adanorm"
		}
		return true
	}
	for step := 1; ; step++ {
		if _, n := w.Stats(); n >= size {
			break
		}
		for v := 0; v < nv; v++ {
			f := probes.Frame{Variant: v, Step: step, TrainLoss: 3 * math.Exp(-float64(step)/5e4) * (1 + 0.05*rng.NormFloat64()),
				StepsPerSec: 30, Layers: make([]probes.LayerValues, nl)}
			for l := range f.Layers {
				for p := range f.Layers[l] {
					if !applies(m.Variants[v].Name, probes.Probe(p)) {
						f.Layers[l][p] = math.NaN()
						continue
					}
					f.Layers[l][p] = base[(v*nl+l)*int(probes.NumProbes)+p] * math.Exp(0.3*rng.NormFloat64())
					values++
				}
			}
			if step%100 == 0 {
				f.Eval = []probes.Eval{{Split: "val", Loss: f.TrainLoss * 1.1, Metric: f.TrainLoss * 1.6, TrainLoss: f.TrainLoss}}
				s := &probes.Spectrum{Step: step, EffRank: 40}
				for i := 0; i < 64; i++ {
					s.Sigma = append(s.Sigma, math.Exp(-float64(i)/20))
				}
				f.Spectrum = s
			}
			if err := w.Write(f); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.Close(record.End{}); err != nil {
		b.Fatal(err)
	}
	return values
}

var benchFile struct {
	once sync.Once
	path string
	size int64
}

func makeBenchFile(b *testing.B) {
	benchFile.once.Do(func() {
		dir := os.Getenv("NORMTOP_BENCH_DIR")
		if dir == "" {
			dir = os.TempDir()
		}
		want := benchFileSize()
		benchFile.path = filepath.Join(dir, "normtop-report-bench-"+itoa64(want>>20)+"MiB.ntr")
		if st, err := os.Stat(benchFile.path); err == nil && st.Size() >= want && st.Size() < want+want/8 {
			if r, err := record.Open(benchFile.path); err == nil {
				_, ended := r.End()
				r.Close()
				if ended {
					benchFile.size = st.Size()
					return
				}
			}
		}
		os.Remove(benchFile.path)
		start := time.Now()
		benchRun(b, benchFile.path, want)
		st, _ := os.Stat(benchFile.path)
		benchFile.size = st.Size()
		b.Logf("wrote %s (%d MB) in %v", benchFile.path, benchFile.size/1e6, time.Since(start).Round(time.Millisecond))
	})
}

func itoa64(n int64) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// BenchmarkReport: Build on one run file of 64 MiB (1 GiB with
// NORMTOP_BIG=1), the text report included, with the command's GC setting.
// Reports the file's MB/s, the seconds per report and the peak Go heap
// (live and garbage, sampled every 5 ms) over the report.
//
//	NORMTOP_BIG=1 go test ./report -run '^$' -bench Report -benchtime 1x
func BenchmarkReport(b *testing.B) {
	makeBenchFile(b)
	defer debug.SetGCPercent(debug.SetGCPercent(25)) // as `normtop report` runs
	runtime.GC()
	base := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		// runtime/metrics, not ReadMemStats: it does not stop the world.
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				metrics.Read(sample)
				if v := sample[0].Value.Uint64(); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Build([]string{benchFile.path})
		if err != nil {
			b.Fatal(err)
		}
		if err := r.WriteText(discard{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	close(stop)
	<-done
	b.SetBytes(benchFile.size)
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/report")
	b.ReportMetric(float64(peak.Load()-min(peak.Load(), base[0].Value.Uint64()))/1e6, "peak-heap-MB")
	b.ReportMetric(float64(benchFile.size)/1e6, "file-MB")
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
