package datasets

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMNISTDefault reads the real MNIST set through the default path,
// MNIST(""): the GoMNIST module, verified, decoded and written to a user
// cache directory redirected (XDG_CACHE_HOME) into a temporary one.
func TestMNISTDefault(t *testing.T) {
	cache := realDataCache(t, "reads 11 MB of MNIST")
	imgs, err := MNIST("")
	if err != nil {
		if strings.Contains(err.Error(), "not in the module cache") {
			t.Skipf("GoMNIST module neither in the module cache nor downloadable: %v", err)
		}
		t.Fatal(err)
	}
	checkRealMNIST(t, imgs)
	written := filepath.Join(cache, "normtop", "gomnist-"+gomnistVersion)
	if _, err := loadCachedMNIST(written); err != nil {
		t.Errorf("MNIST(\"\") left no usable cache: %v", err)
	}
}

func checkRealMNIST(t *testing.T, imgs *Images) {
	t.Helper()
	if imgs.H != 28 || imgs.W != 28 || imgs.Classes != 10 {
		t.Fatalf("shape %d×%d, %d classes; want 28×28, 10", imgs.H, imgs.W, imgs.Classes)
	}
	for _, c := range []struct {
		name string
		s    ImageSplit
		n    int
	}{{"train", imgs.Train, 55000}, {"val", imgs.Val, 5000}, {"test", imgs.Test, 10000}} {
		if c.s.N != c.n || len(c.s.Y) != c.n || len(c.s.Pix) != c.n*784 {
			t.Errorf("%s: N=%d, %d labels, %d pixels; want %d rows", c.name, c.s.N, len(c.s.Y), len(c.s.Pix), c.n)
		}
		var counts [10]int
		for _, y := range c.s.Y {
			counts[y]++
		}
		for d, k := range counts {
			// Every digit is between 8% and 12% of every MNIST split.
			if f := float64(k) / float64(c.n); f < 0.08 || f > 0.125 {
				t.Errorf("%s: digit %d is %.3f of the split", c.name, d, f)
			}
		}
	}
	// Known facts of the canonical files: the first training label is 5,
	// the first test label 7, the last training label (in val) is 8.
	if imgs.Train.Y[0] != 5 || imgs.Test.Y[0] != 7 || imgs.Val.Y[4999] != 8 {
		t.Errorf("labels train[0]=%d test[0]=%d val[4999]=%d; want 5, 7, 8", imgs.Train.Y[0], imgs.Test.Y[0], imgs.Val.Y[4999])
	}
	var sum float64
	first := make([]float32, 784)
	imgs.Train.Scale(first, 0, 1)
	for _, p := range first {
		if p < 0 || p > 1 {
			t.Fatalf("pixel %v outside [0,1]", p)
		}
		sum += float64(p)
	}
	if sum < 50 || sum > 200 {
		t.Errorf("first image's ink %.1f, implausible for a digit", sum)
	}
}
