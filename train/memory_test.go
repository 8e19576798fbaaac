package train

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseMemAvailable(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   22000000 kB\n", 22000000 << 10, true},
		{"MemTotal: 1 kB\n", 0, false},
		{"MemAvailable: lots kB\n", 0, false},
	} {
		got, ok := parseMemAvailable([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("parseMemAvailable(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestEstimateMemoryMLP: the MNIST MLP by hand. Weights 784·256+256 +
// 256·256+256 + 256·10+10 = 269,322; per variant 269,322·(2·4+16) bytes of
// weights, gradients and Adam state; activations 784+6·256+2·10 = 2,340
// values per image, for the batch twice (value and gradient) and the eval
// batch once.
func TestEstimateMemoryMLP(t *testing.T) {
	c := MNISTConfig("mlp")
	c.Batch = 32
	src := &source{val: []evalBatch{{targets: make([]int32, 512)}}}
	e := estimateMemory(c, newMLP(784, 10), src)
	if e.params != 269322 {
		t.Errorf("params = %v, want 269322", e.params)
	}
	if e.paramBytes != 269322*24 || e.sharedBytes != 269322*8 {
		t.Errorf("paramBytes %v, sharedBytes %v", e.paramBytes, e.sharedBytes)
	}
	if want := 4.0 * 2340 * (2*32 + 512); e.actBytes != want {
		t.Errorf("actBytes = %v, want %v", e.actBytes, want)
	}
	if want := 5*(269322*24+4.0*2340*(2*32+512)) + 269322*8; e.total() != want {
		t.Errorf("total = %v, want %v", e.total(), want)
	}
}

// TestEstimateMemoryTransformer: the word LM by hand. V 50, d 8, one
// block, FFN 32, 2 heads, rows of 4 positions: per position 2·8 (input) +
// 10·8 + 2·32 + 2·2·4 (the block) + 8 (final norm) + 2·50 (logits) = 284
// values. A batch of 3 rows is 12 positions, and so is the eval batch (3
// rows of 4: the positions are counted once, not rows × SeqLen × SeqLen);
// a token budget of 20 sets the training positions only.
func TestEstimateMemoryTransformer(t *testing.T) {
	c := WordConfig("sotu")
	c.Variants = []string{"layernorm"}
	c.DModel, c.Layers, c.Heads, c.SeqLen, c.FFN, c.Batch, c.MaxTokens = 8, 1, 2, 4, 32, 3, 0
	m := c.languageModel(50)
	for _, tc := range []struct {
		maxTokens   int
		train, eval float64
	}{{0, 12, 12}, {20, 20, 20}} { // sentences in token budgets are evaluated in the same budgets
		c.MaxTokens = tc.maxTokens
		// the loaded data's eval batch: 3 rows of 4 positions, a target each
		src := &source{val: []evalBatch{{tokens: make([]int32, 12), targets: make([]int32, 12)}}}
		e := estimateMemory(c, m, src)
		if want := 4.0 * 284 * (2*tc.train + tc.eval); e.actBytes != want {
			t.Errorf("max-tokens %d: actBytes %v, want %v", tc.maxTokens, e.actBytes, want)
		}
		// tied: tok_emb 50·8; qkv 8·24+24, proj 8·8+8, fc 8·32+32, proj 32·8+8
		if want := 400.0 + 216 + 72 + 288 + 264; e.params != want {
			t.Errorf("params %v, want %v", e.params, want)
		}
	}
	// The authors' size (issue 32): d 512, 6 blocks, 4,096 tokens, the
	// preset's four variants; refused as 133 GiB when the eval batch was
	// multiplied by SeqLen twice. Its peak RSS is a few GB.
	p := PaperConfig("sotu")
	p.Steps = 1
	est, err := EstimateRun(p)
	if err != nil {
		t.Fatal(err)
	}
	if est.MemBytes > 16<<30 || est.MemBytes < 1<<30 {
		t.Errorf("paper size: estimate %s, want between 1 and 16 GiB", bytesString(est.MemBytes))
	}
}

// TestMemoryRefusals: models that cannot fit are refused with one line that
// says how much they would need, before any weight is allocated (were they
// not, this test would run out of memory); the defaults are accepted.
func TestMemoryRefusals(t *testing.T) {
	old := availableMemory
	defer func() { availableMemory = old }()
	availableMemory = func() (uint64, bool) { return 64 << 30, true } // a generous machine

	big := tinyTransformer()
	big.DModel, big.Heads = 20000, 4
	_, err := NewRunner(big)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "would need at least") ||
		!strings.Contains(err.Error(), "467 GiB") || !strings.Contains(err.Error(), "--d-model") {
		t.Errorf("d-model 20000: %v, want an ErrTooLarge naming 467 GiB and --d-model", err)
	}
	// 4096×4096 images: the MLP's first layer alone is 2³² weights.
	img := &source{pixels: 4096 * 4096, classes: 10, val: []evalBatch{{targets: make([]int32, 512)}}}
	c := MNISTConfig("mlp")
	err = checkMemory(c, newMLP(img.pixels, 10), img)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "mlp would need") {
		t.Errorf("mlp on 4096×4096 images: %v", err)
	}
	if err := checkMemory(MNISTConfig("cnn"), newCNN(4096, 4096, 10), img); !errors.Is(err, ErrTooLarge) {
		t.Errorf("cnn on 4096×4096 images: %v", err)
	}
	if _, err := NewRunner(DefaultConfig()); err != nil {
		t.Errorf("the default configuration: %v", err)
	}
	availableMemory = func() (uint64, bool) { return 1 << 20, true }
	if _, err := NewRunner(tinyTransformer()); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1 MiB of memory is available") {
		t.Errorf("1 MiB available: %v", err)
	}
	availableMemory = func() (uint64, bool) { return 0, false }
	if _, err := NewRunner(tinyTransformer()); err != nil {
		t.Errorf("no /proc/meminfo: %v, want no refusal", err)
	}
}

// TestStepBounds: --epochs beyond MaxSteps fails validation, and epochs ×
// steps per epoch is checked before it is multiplied.
func TestStepBounds(t *testing.T) {
	c := tinyTransformer()
	c.Steps, c.Epochs = 0, 5365545613
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "epochs 5365545613") {
		t.Errorf("epochs 5365545613: %v", err)
	}
	c.Epochs = MaxSteps
	if _, err := NewRunner(c); !errors.Is(err, ErrTooManySteps) {
		t.Errorf("epochs %d: %v, want ErrTooManySteps", c.Epochs, err)
	}
	c.Steps = MaxSteps + 1
	if err := c.Validate(); err == nil {
		t.Error("steps over MaxSteps accepted")
	}
	c = tinyTransformer()
	c.DModel = 100000
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "d-model 100000") {
		t.Errorf("d-model 100000: %v", err)
	}
}

// writeIDXSet writes a tiny IDX directory: nTrain and nTest h×w images.
func writeIDXSet(t *testing.T, nTrain, nTest, h, w int) string {
	t.Helper()
	dir := t.TempDir()
	put := func(name string, head []uint32, n int) {
		var b []byte
		for _, v := range head {
			b = binary.BigEndian.AppendUint32(b, v)
		}
		b = append(b, make([]byte, n)...)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("train-images-idx3-ubyte", []uint32{0x803, uint32(nTrain), uint32(h), uint32(w)}, nTrain*h*w)
	put("train-labels-idx1-ubyte", []uint32{0x801, uint32(nTrain)}, nTrain)
	put("t10k-images-idx3-ubyte", []uint32{0x803, uint32(nTest), uint32(h), uint32(w)}, nTest*h*w)
	put("t10k-labels-idx1-ubyte", []uint32{0x801, uint32(nTest)}, nTest)
	return dir
}

// TestEvalBatchNoLargerThanItsSets: with few images an eval batch is not
// padded to 512 rows (for 4096×4096 images that padding alone was 34 GB,
// allocated before the memory check).
func TestEvalBatchNoLargerThanItsSets(t *testing.T) {
	c := MNISTConfig("mlp")
	c.DataPath = writeIDXSet(t, 36, 2, 8, 8) // 33 train, 3 val, 2 test
	c.Batch = 4
	src, err := loadSource(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(src.val[0].targets); got != 3 {
		t.Errorf("eval batch of %d rows for 3 validation and 2 test images, want 3", got)
	}
	if len(src.val) != 1 || len(src.test) != 1 || src.test[0].real != 2 {
		t.Errorf("val %d batches, test %d batches", len(src.val), len(src.test))
	}
}
