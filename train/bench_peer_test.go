//go:build unix

package train

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
)

// peerConfigs are the models bench/peer.sh times against PyTorch
// (bench/torch_models.py), by the name both sides use: the character
// transformer, the mlp, the word LM at its preset width (64) and at the
// widths of the sweep, the classifier, the resnet and the LSTM.
func peerConfigs() map[string]Config {
	cs := benchConfigs()
	cs["resnet"] = ResNetConfig()
	cs["lstm"] = LSTMConfig("text")
	for _, d := range []int{128, 256, 512} {
		c := WordConfig("sotu")
		c.DModel = d // heads stay 4, as in the preset
		cs[fmt.Sprintf("words-d%d", d)] = c
	}
	return cs
}

// BenchmarkPeer is normtop's side of bench/peer.sh: one variant of one
// model, default probes on (every probe off for a model named NAME-bare), each step timed whole as the Runner's loop
// runs it (the batch's creation included; the peer times its batch's
// creation too). It reports the median step's wall time, the process's
// CPU time per step (user + system over the timed steps, garbage
// collection included, divided by the steps), and what the peer needs to
// build the same model: the parameter count, the vocabulary and the
// classes (output width) of the data.
func BenchmarkPeer(b *testing.B) {
	models := []string{"transformer", "mlp", "words", "words-d128", "words-d256", "words-d512",
		"words-batch32", "classifier", "resnet", "lstm", "transformer-bare", "resnet-bare"}
	for _, name := range models {
		// "-bare": the model with every probe off, its own cost without
		// normtop's measurements (PyTorch has none)
		base, bare := strings.CutSuffix(name, "-bare")
		iv := probes.DefaultIntervals()
		if bare {
			iv = probes.Intervals{}
		}
		variants := []string{"layernorm", "batchnorm"}
		switch base {
		case "resnet": // image sites: per-channel variants only
			variants = []string{"batchnorm", "none"}
		case "lstm": // per-row variants only
			variants = []string{"none", "layernorm"}
		}
		for _, variant := range variants {
			b.Run(name+"/"+variant, func(b *testing.B) {
				r := benchRunner(b, peerConfigs()[base], variant, iv)
				peerSteps(b, r)
			})
		}
	}
}

// peerSteps times b.N steps of r after one untimed step.
func peerSteps(b *testing.B, r *Runner) {
	b.Helper()
	trainStep(b, r, 1)
	b.ReportAllocs()
	ts := make([]time.Duration, 0, b.N)
	cpu0 := processCPU(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		trainStep(b, r, i+2)
		ts = append(ts, time.Since(t0))
	}
	b.StopTimer()
	cpu := processCPU(b) - cpu0
	params := 0
	for _, p := range r.variants[0].train.params {
		params += p.Shape().TotalSize()
	}
	b.ReportMetric(median(ts)/1e6, "median-ms/step")
	b.ReportMetric(float64(cpu.Nanoseconds())/1e6/float64(b.N), "cpu-ms/step")
	b.ReportMetric(float64(params), "params")
	b.ReportMetric(float64(r.src.vocab), "vocab")
	b.ReportMetric(float64(r.src.classes), "classes")
}

// processCPU is the user plus system CPU time this process has used.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
