package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMNISTDirSplits(t *testing.T) {
	for _, c := range []struct {
		name         string
		set          tinySet
		gz           []string
		nTrain, nVal int
	}{
		{"plain 24", tinySet{24, 5, 3, 4}, nil, 22, 2},
		{"gzip 24", tinySet{24, 5, 3, 4}, []string{trainImagesFile, trainLabelsFile, testImagesFile, testLabelsFile}, 22, 2},
		{"mixed 12", tinySet{12, 1, 2, 2}, []string{trainLabelsFile, testImagesFile}, 11, 1},
		{"60 rows", tinySet{60, 7, 1, 1}, []string{trainImagesFile}, 55, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeSet(t, c.set.files(), c.gz...)
			imgs, err := MNIST(dir)
			if err != nil {
				t.Fatal(err)
			}
			if imgs.H != c.set.h || imgs.W != c.set.w || imgs.Classes != 10 || imgs.Name != filepath.Base(dir) {
				t.Fatalf("got %q %d×%d %d classes", imgs.Name, imgs.H, imgs.W, imgs.Classes)
			}
			row := c.set.h * c.set.w
			check := func(split string, s ImageSplit, n, first int) {
				if s.N != n || len(s.Y) != n || len(s.Pix) != n*row {
					t.Fatalf("%s: N=%d labels=%d pixels=%d, want %d rows of %d", split, s.N, len(s.Y), len(s.Pix), n, row)
				}
				for i := range n {
					id := first + i
					if s.Y[i] != uint8(id%10) {
						t.Fatalf("%s row %d: label %d, want %d", split, i, s.Y[i], id%10)
					}
					x := make([]float32, row)
					s.Scale(x, i, i+1)
					for _, p := range x {
						if p != float32(id)/255 {
							t.Fatalf("%s row %d: pixel %v, want %v", split, i, p, float32(id)/255)
						}
					}
				}
			}
			check("train", imgs.Train, c.nTrain, 0)
			check("val", imgs.Val, c.nVal, c.nTrain)
			check("test", imgs.Test, c.set.nTest, 0)
			if cap(imgs.Train.Pix) != len(imgs.Train.Pix) || cap(imgs.Train.Y) != len(imgs.Train.Y) {
				t.Error("train split's capacity reaches into val: an append would overwrite it")
			}
		})
	}
}

func TestMNISTPixelScale(t *testing.T) {
	set := tinySet{12, 1, 1, 256}
	files := set.files()
	pix := make([]byte, 256)
	for i := range pix {
		pix[i] = byte(i)
	}
	files[testImagesFile] = idxBytes(magicImages, []int{1, 1, 256}, pix)
	imgs, err := MNIST(writeSet(t, files))
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 256)
	imgs.Test.Scale(x, 0, 1)
	if x[0] != 0 || x[255] != 1 || x[51] != 0.2 {
		t.Errorf("pixels 0, 51, 255 → %v %v %v; want 0, 0.2, 1", x[0], x[51], x[255])
	}
}

func TestMNISTBadInput(t *testing.T) {
	good := tinySet{24, 5, 3, 4}
	for _, c := range badIDXCases(t, good) {
		t.Run(c.name, func(t *testing.T) {
			dir := writeSet(t, good.files())
			c.edit(t, dir)
			_, err := MNIST(dir)
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err) // the messages users see, for review with -v
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), dir) {
				t.Errorf("error %q does not name the directory's file", err)
			}
		})
	}
}

// idxEdit damages the good set written to dir.
type idxEdit func(t *testing.T, dir string)

// badIDXCase is one damaged IDX directory and the substrings its error
// must hold.
type badIDXCase struct {
	name string
	edit idxEdit
	want []string
}

// badIDXCases are TestMNISTBadInput's damages to good: bad headers, sizes,
// gzip streams, counts, labels and files.
func badIDXCases(t *testing.T, good tinySet) []badIDXCase {
	replace := func(name string, b []byte) idxEdit {
		return func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, name), b) }
	}
	labels := func(n int, bad byte) []byte {
		l := make([]byte, n)
		l[n-1] = bad
		return idxBytes(magicLabels, []int{n}, l)
	}
	trainImgs := good.images(24)
	gzTrainImgs := gzipBytes(t, trainImgs)
	badCRC := append([]byte(nil), gzTrainImgs...)
	badCRC[len(badCRC)-6] ^= 0xff // inside the CRC-32 trailer
	return []badIDXCase{
		{"wrong magic images", replace(trainImagesFile, idxBytes(0x1234, []int{24, 3, 4}, make([]byte, 288))),
			[]string{trainImagesFile + ": wrong magic 0x1234, want 0x803"}},
		{"labels given as images", replace(testLabelsFile, good.images(5)),
			[]string{testLabelsFile + ": wrong magic 0x803, want 0x801"}},
		{"empty file", replace(trainLabelsFile, nil), []string{trainLabelsFile + ": empty file"}},
		{"truncated magic", replace(trainLabelsFile, []byte{0, 0}), []string{trainLabelsFile + ": truncated header"}},
		{"truncated dims", replace(trainImagesFile, trainImgs[:10]), []string{trainImagesFile + ": truncated header: 6 dimension bytes, want 12"}},
		{"truncated pixels", replace(trainImagesFile, trainImgs[:len(trainImgs)-1]),
			[]string{trainImagesFile + ": truncated: header announces 24×3×4 = 288 data bytes, found 287"}},
		{"trailing bytes", replace(trainImagesFile, append(append([]byte(nil), trainImgs...), 1, 2)),
			[]string{trainImagesFile + ": trailing data: header announces 24×3×4 = 288 data bytes, found 290"}},
		{"zero dimension", replace(trainImagesFile, idxBytes(magicImages, []int{24, 0, 4}, nil)),
			[]string{trainImagesFile + ": dimension 1 is 0"}},
		{"huge dimensions", replace(trainImagesFile, idxBytes(magicImages, []int{1 << 20, 1 << 20, 4}, nil)),
			[]string{trainImagesFile + ": dimensions 1048576×1048576×4 announce more than"}},
		{"gzip truncated", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, trainImagesFile))
			writeFile(t, filepath.Join(dir, trainImagesFile+".gz"), gzTrainImgs[:len(gzTrainImgs)/2])
		}, []string{trainImagesFile + ".gz: truncated"}},
		{"gzip bad checksum", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, trainImagesFile))
			writeFile(t, filepath.Join(dir, trainImagesFile+".gz"), badCRC)
		}, []string{trainImagesFile + ".gz: gzip: invalid checksum"}},
		{"train count mismatch", replace(trainLabelsFile, good.labels(23)),
			[]string{trainImagesFile + ": 24 images but " + trainLabelsFile + " has 23 labels"}},
		{"test count mismatch", replace(testImagesFile, good.images(6)),
			[]string{testImagesFile + ": 6 images but " + testLabelsFile + " has 5 labels"}},
		{"image size mismatch", replace(testImagesFile, tinySet{24, 5, 4, 3}.images(5)),
			[]string{testImagesFile + ": images are 4×3 but " + trainImagesFile + " has 3×4"}},
		{"label out of range", replace(trainLabelsFile, labels(24, 10)),
			[]string{trainLabelsFile + ": label 10 at index 23, want 0..9"}},
		{"test label out of range", replace(testLabelsFile, labels(5, 255)),
			[]string{testLabelsFile + ": label 255 at index 4, want 0..9"}},
		{"too few for validation", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, trainImagesFile), good.images(11))
			writeFile(t, filepath.Join(dir, trainLabelsFile), good.labels(11))
		}, []string{trainImagesFile + ": 11 images, need at least 12"}},
		{"missing file", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, testLabelsFile)) },
			[]string{"no " + testLabelsFile + " or " + testLabelsFile + ".gz"}},
		{"file is a directory", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, testLabelsFile))
			os.Mkdir(filepath.Join(dir, testLabelsFile), 0o755)
		}, []string{testLabelsFile + ": is a directory"}},
	}
}

func TestMNISTBadDir(t *testing.T) {
	empty := t.TempDir()
	file := filepath.Join(t.TempDir(), "x")
	writeFile(t, file, []byte("hi"))
	missing := filepath.Join(t.TempDir(), "nope")
	for _, c := range []struct{ dir, want string }{
		{empty, empty + ": no " + trainImagesFile + " or " + trainImagesFile + ".gz (an IDX directory needs"},
		{file, file + ": not a directory"},
		{missing, missing + ": no such directory"},
	} {
		_, err := MNIST(c.dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("MNIST(%q) = %v, want %q", c.dir, err, c.want)
		}
	}
}
