package datasets

import (
	"os"
	"testing"
)

// debianFashionMNIST is where Debian's dataset-fashion-mnist package installs
// its IDX files.
const debianFashionMNIST = "/usr/share/datasets/fashion-mnist"

// TestFashionMNIST reads Fashion-MNIST through MNIST(dir) when it is present:
// $NORMTOP_FASHION_MNIST, else the Debian package's directory.
func TestFashionMNIST(t *testing.T) {
	dir := os.Getenv("NORMTOP_FASHION_MNIST")
	if dir == "" {
		dir = debianFashionMNIST
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no Fashion-MNIST at %s (apt install dataset-fashion-mnist, or set NORMTOP_FASHION_MNIST)", dir)
	}
	imgs, err := MNIST(dir)
	if err != nil {
		t.Fatal(err)
	}
	if imgs.H != 28 || imgs.W != 28 || imgs.Train.N != 55000 || imgs.Val.N != 5000 || imgs.Test.N != 10000 {
		t.Fatalf("%d×%d, splits %d/%d/%d", imgs.H, imgs.W, imgs.Train.N, imgs.Val.N, imgs.Test.N)
	}
	// Fashion-MNIST's classes are exactly balanced: 6,000 per class in the
	// train file and 1,000 in the test file.
	var train, test [10]int
	for _, y := range imgs.Train.Y {
		train[y]++
	}
	for _, y := range imgs.Val.Y {
		train[y]++
	}
	for _, y := range imgs.Test.Y {
		test[y]++
	}
	for c := range 10 {
		if train[c] != 6000 || test[c] != 1000 {
			t.Errorf("class %d: %d train, %d test; want 6000, 1000", c, train[c], test[c])
		}
	}
}
