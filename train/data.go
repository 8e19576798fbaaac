package train

import (
	"context"
	"errors"
	"fmt"

	"github.com/normtop/normtop/datasets"
	"github.com/normtop/normtop/nn"
	"github.com/normtop/normtop/probes"
)

// source is the loaded data of a run: train batches, and the fixed
// validation and test sets cut into eval batches.
type source struct {
	images   *datasets.Images
	text     *datasets.Text
	corpus   *datasets.Corpus   // word-level sentences (transformer on sotu, moby-dick)
	labelled *datasets.Labelled // classifier documents
	desc     string
	classes  int // classes or vocabulary size (the output layer's width)
	vocab    int // token models: input vocabulary
	pixels   int // H·W for images, 0 for text
	perEpoch int // training steps per epoch
	// maxRows is the most sentences (documents) a token-budget batch holds:
	// the classifier's logits rows; 0 with fixed batches.
	maxRows   int
	val, test []evalBatch
}

// evalBatch is one batch of an evaluation set; rows past real are padding
// (target −1), which the loss and the accuracy leave out.
type evalBatch struct {
	// images is an image batch's split and from its first row: the pixels
	// stay the split's bytes until the batch is evaluated (setImageRows),
	// so the validation and test images are not held a second time as
	// float32 (47 MB for MNIST's 15,000).
	images  *datasets.ImageSplit
	from    int
	tokens  []int32
	targets []int32
	mask    []bool // padding mask of the token rows; nil when there is no padding
	real    int    // real predictions (rows with a target ≥ 0)
	// layout is a token-budget batch's rows × width (the eval graph then
	// has the training graph's MaxTokens positions); zero for fixed batches.
	layout nn.Layout
}

// loadImages reads an image set (datasets.MNISTContext). A variable as a
// test seam: train's tests read the built-in MNIST once for all their runs
// (each read costs about 2 s of CPU under -race).
var loadImages = datasets.MNISTContext

// loadSource reads the data; cancelling ctx stops the reading with ctx's
// error.
func loadSource(ctx context.Context, c Config) (*source, error) {
	s := &source{}
	switch {
	case c.Model.OnImages():
		imgs, err := loadImages(ctx, c.DataPath)
		if err != nil {
			return nil, dataError{err}
		}
		s.images, s.classes, s.pixels = imgs, imgs.Classes, imgs.H*imgs.W
		s.desc = imgs.Name
		if c.Batch > imgs.Train.N {
			return nil, dataError{fmt.Errorf("%s: %d training images, too few for one batch of %d", imgs.Name, imgs.Train.N, c.Batch)}
		}
		s.perEpoch = (imgs.Train.N + c.Batch - 1) / c.Batch
		if imgs.Val.N == 0 {
			return nil, dataError{fmt.Errorf("%s: no validation images (the split takes the last 5,000 training images)", imgs.Name)}
		}
		nVal, n := min(c.EvalSize, imgs.Val.N), imgs.Test.N
		if c.TestSize > 0 {
			n = min(n, c.TestSize)
		}
		// An eval batch is never larger than the sets it holds: padding a
		// dozen 4096×4096 images to 512 rows would take 34 GB before the
		// memory check could refuse the model.
		eb := min(c.Batch*16, c.Model.maxEvalBatch(), max(nVal, n))
		s.val = imageBatches(&imgs.Val, nVal, eb)
		s.test = imageBatches(&imgs.Test, n, eb)
	case c.Model.OnTokens():
		if datasets.IsWordSet(c.Data) {
			return loadWords(ctx, s, c)
		}
		txt, err := datasets.LoadTextContext(ctx, c.DataPath)
		if err != nil {
			return nil, dataError{err}
		}
		s.text, s.classes, s.vocab = txt, len(txt.Vocab), len(txt.Vocab)
		s.desc = txt.Name
		if _, err := datasets.NewTextBatcher(txt.Train, c.Batch, c.SeqLen, 0, false); err != nil {
			return nil, dataError{fmt.Errorf("%s (train split): %w", txt.Name, err)}
		}
		windows := (len(txt.Train) - 1) / c.SeqLen
		s.perEpoch = (windows + c.Batch - 1) / c.Batch
		if s.val = textBatches(txt.Val, c.EvalSize, c.Batch, c.SeqLen); len(s.val) == 0 {
			return nil, dataError{fmt.Errorf("%s: validation split has %d characters, too short for one window of %d", txt.Name, len(txt.Val), c.SeqLen+1)}
		}
		n := len(txt.Test)
		if c.TestSize > 0 {
			n = c.TestSize
		}
		s.test = textBatches(txt.Test, n, c.Batch, c.SeqLen)
	}
	return s, nil
}

// wordOptions are the tokenizer's bounds for c: the vocabulary cap, and
// the longest sentence one row holds (<s> and SeqLen−1 tokens; a longer
// one is left out whole, as fairseq's filter leaves it out).
func wordOptions(c Config) datasets.CorpusOptions {
	return datasets.CorpusOptions{VocabSize: c.Vocab, MinCount: 2, MaxLen: c.SeqLen - 1}
}

// lengthLimitError names the flag behind a refused length limit.
func lengthLimitError(err error, c Config) error {
	var le *datasets.LengthLimitError
	if errors.As(err, &le) {
		return fmt.Errorf("%w; --seq-len %d holds sentences of up to %d tokens (the word presets' %d hold nearly every sentence)", err, c.SeqLen, c.SeqLen-1, WordSeqLen)
	}
	return err
}

// loadWords loads a word-level set: c.Data names a built-in package, or
// "words"/"docs" with c.DataPath a file or directory of the user's.
func loadWords(ctx context.Context, s *source, c Config) (*source, error) {
	name := c.Data
	if c.DataPath != "" {
		name = c.DataPath
	}
	if c.Model == ModelClassifier {
		opt := wordOptions(c)
		opt.MaxLen = c.SeqLen
		l, err := datasets.LoadLabelled(ctx, name, opt)
		if err != nil {
			return nil, dataError{err}
		}
		s.labelled, s.classes, s.vocab = l, len(l.Classes), len(l.Vocab)
		s.desc = fmt.Sprintf("%s (%d documents, %s; vocabulary %d)", l.Name, len(l.Train)+len(l.Val)+len(l.Test), l.Balance(), len(l.Vocab))
		if c.MaxTokens > 0 {
			tb, err := datasets.NewDocTokenBatcher(l.Train, c.tokenBudget(c.Seed))
			if err != nil {
				return nil, dataError{fmt.Errorf("%s (train split): %w", l.Name, err)}
			}
			s.perEpoch, s.maxRows = tb.StepsPerEpoch(), tb.MaxRows()
		} else if len(l.Train) < c.Batch {
			return nil, dataError{fmt.Errorf("%s: %d training documents, too few for one batch of %d", l.Name, len(l.Train), c.Batch)}
		} else {
			s.perEpoch = (len(l.Train) + c.Batch - 1) / c.Batch
		}
		val := l.Val
		if c.EvalSize > 0 && c.EvalSize < len(val) {
			val = val[:c.EvalSize]
		}
		var err2 error
		if s.val, err2 = docBatches(val, c.Batch, c.SeqLen); err2 != nil {
			return nil, dataError{fmt.Errorf("%s (validation): %w", l.Name, err2)}
		}
		if s.test, err2 = docBatches(l.Test, c.Batch, c.SeqLen); err2 != nil {
			return nil, dataError{fmt.Errorf("%s (test): %w", l.Name, err2)}
		}
		return s, nil
	}
	corp, err := datasets.LoadCorpus(ctx, name, wordOptions(c))
	if err != nil {
		return nil, dataError{lengthLimitError(err, c)}
	}
	s.corpus, s.classes, s.vocab = corp, len(corp.Vocab), len(corp.Vocab)
	filtered := ""
	if f := corp.Filtered.Summary(); f != "" {
		filtered = ", " + f
	}
	s.desc = fmt.Sprintf("%s (%d sentences in %d documents%s; vocabulary %d words)", corp.Name,
		len(corp.Train)+len(corp.Val)+len(corp.Test), corp.Docs.Train+corp.Docs.Val+corp.Docs.Test, filtered, len(corp.Vocab))
	if c.MaxTokens > 0 {
		// With ties broken by the seed each seed cuts its own batches: the
		// graph holds the most rows of any, an epoch is the first seed's.
		for i, seed := range c.RunSeeds() {
			tb, err := datasets.NewSentenceTokenBatcher(corp.Train, c.tokenBudget(seed))
			if err != nil {
				return nil, dataError{fmt.Errorf("%s (train split): %w", corp.Name, err)}
			}
			if i == 0 {
				s.perEpoch = tb.StepsPerEpoch()
			}
			s.maxRows = max(s.maxRows, tb.MaxRows())
		}
		// Evaluation sets in token budgets too, grouped by length: fixed
		// rows of SeqLen positions would be mostly padding at seq-len 176.
		if s.val, err = budgetBatches(corp.Val, c.EvalSize, c); err != nil {
			return nil, dataError{fmt.Errorf("%s (validation split): %w", corp.Name, err)}
		}
		if s.test, err = budgetBatches(corp.Test, c.TestSize, c); err != nil {
			return nil, dataError{fmt.Errorf("%s (test split): %w", corp.Name, err)}
		}
		return s, nil
	}
	sb, err := datasets.NewSentenceBatcher(corp.Train, c.Batch, c.SeqLen, 0, false)
	if err != nil {
		return nil, dataError{fmt.Errorf("%s (train split): %w", corp.Name, err)}
	}
	s.perEpoch = sb.StepsPerEpoch()
	if s.val, err = sentenceBatches(corp.Val, c.EvalSize, c.Batch, c.SeqLen); err != nil {
		return nil, dataError{fmt.Errorf("%s (validation split): %w", corp.Name, err)}
	}
	n := 0
	if c.TestSize > 0 {
		n = c.TestSize
	}
	if s.test, err = sentenceBatches(corp.Test, n, c.Batch, c.SeqLen); err != nil {
		return nil, dataError{fmt.Errorf("%s (test split): %w", corp.Name, err)}
	}
	return s, nil
}

func sentenceBatches(sents [][]int32, n, b, seq int) ([]evalBatch, error) {
	sb, err := datasets.SentenceEvalBatches(sents, n, b, seq)
	if err != nil {
		return nil, err
	}
	out := make([]evalBatch, len(sb))
	for i, x := range sb {
		out[i] = evalBatch{tokens: x.In, targets: x.Tgt, mask: x.Real, real: x.Tokens}
	}
	return out, nil
}

// budgetBatches cuts n sentences of sents, spread evenly over it
// (datasets.SpreadSentences; all when n ≤ 0), into token-budget batches
// of c.MaxTokens positions grouped by length, as the training batches are.
// Each sentence counts once; the order of the batches does not matter to
// an evaluation.
func budgetBatches(sents [][]int32, n int, c Config) ([]evalBatch, error) {
	sel := datasets.SpreadSentences(sents, n)
	tb, err := datasets.NewSentenceTokenBatcher(sel, datasets.TokenBudget{MaxTokens: c.MaxTokens, SeqLen: c.SeqLen})
	if err != nil {
		return nil, err
	}
	out := make([]evalBatch, tb.StepsPerEpoch())
	for i := range out {
		e := evalBatch{tokens: make([]int32, c.MaxTokens), targets: make([]int32, c.MaxTokens), mask: make([]bool, c.MaxTokens)}
		rows, width := tb.NextSentences(e.tokens, e.targets, e.mask)
		e.layout = nn.Layout{Rows: rows, T: width}
		for _, t := range e.targets {
			if t >= 0 {
				e.real++
			}
		}
		out[i] = e
	}
	return out, nil
}

func docBatches(docs []datasets.Doc, b, seq int) ([]evalBatch, error) {
	db, err := datasets.DocEvalBatches(docs, b, seq)
	if err != nil {
		return nil, err
	}
	out := make([]evalBatch, len(db))
	for i, x := range db {
		out[i] = evalBatch{tokens: x.In, targets: x.Labels, mask: x.Real, real: x.Rows}
	}
	return out, nil
}

// imageBatches cuts the first n images of split into batches of size b,
// padding the last one (its missing rows are zero images with target −1).
func imageBatches(split *datasets.ImageSplit, n, b int) []evalBatch {
	var out []evalBatch
	for start := 0; start < n; start += b {
		e := evalBatch{images: split, from: start, targets: make([]int32, b), real: min(b, n-start)}
		for i := range e.targets {
			e.targets[i] = -1
			if i < e.real {
				e.targets[i] = int32(split.Y[start+i])
			}
		}
		out = append(out, e)
	}
	return out
}

// textBatches cuts tokens into at most n non-overlapping windows of seq
// inputs (targets shifted by one), b windows per batch, padding the last.
func textBatches(tokens []int32, n, b, seq int) []evalBatch {
	windows := min(n, (len(tokens)-1)/seq)
	var out []evalBatch
	for w := 0; w < windows; w += b {
		e := evalBatch{tokens: make([]int32, b*seq), targets: make([]int32, b*seq)}
		for k := range e.targets {
			e.targets[k] = -1
		}
		for i := 0; i < b && w+i < windows; i++ {
			start := (w + i) * seq
			copy(e.tokens[i*seq:(i+1)*seq], tokens[start:start+seq])
			copy(e.targets[i*seq:(i+1)*seq], tokens[start+1:start+1+seq])
			e.real += seq
		}
		out = append(out, e)
	}
	return out
}

// batcher is one variant's training batch stream (every variant has its
// own, seeded alike, so all see the same batches in the same order).
type batcher struct {
	img  *datasets.ImageBatcher
	txt  *datasets.TextBatcher
	sent *datasets.SentenceBatcher
	doc  *datasets.DocBatcher
	tok  *datasets.TokenBatcher // token-budget batches (Config.MaxTokens)
	// tokDocs: tok batches documents (the classifier), not sentences
	tokDocs bool
	x       []float32
	y       []uint8
	in      []int32
	tgt     []int32
	mask    []bool // padding mask of the current batch (sentence and document batches)
	// rows × width is a fixed-size batch's shape (Config.Batch, SeqLen; 1
	// wide for images); shape is the current batch's, set by next.
	rows, width int
	shape       probes.BatchShape
}

func (s *source) newBatcher(c Config) (*batcher, error) {
	b := &batcher{}
	var err error
	switch {
	case c.MaxTokens > 0:
		return s.newTokenBatcher(c)
	case s.images != nil:
		b.img, err = datasets.NewImageBatcher(&s.images.Train, c.Batch, c.Seed, true)
		b.x, b.y = make([]float32, c.Batch*s.pixels), make([]uint8, c.Batch)
	case s.corpus != nil:
		b.sent, err = datasets.NewSentenceBatcher(s.corpus.Train, c.Batch, c.SeqLen, c.Seed, true)
		b.in, b.tgt, b.mask = make([]int32, c.Batch*c.SeqLen), make([]int32, c.Batch*c.SeqLen), make([]bool, c.Batch*c.SeqLen)
	case s.labelled != nil:
		b.doc, err = datasets.NewDocBatcher(s.labelled.Train, c.Batch, c.SeqLen, c.Seed, true)
		b.in, b.tgt, b.mask = make([]int32, c.Batch*c.SeqLen), make([]int32, c.Batch), make([]bool, c.Batch*c.SeqLen)
	default:
		b.txt, err = datasets.NewTextBatcher(s.text.Train, c.Batch, c.SeqLen, c.Seed, true)
		b.in, b.tgt = make([]int32, c.Batch*c.SeqLen), make([]int32, c.Batch*c.SeqLen)
	}
	if err != nil {
		return nil, dataError{err}
	}
	b.rows, b.width = c.Batch, c.SeqLen
	if b.img != nil {
		b.width = 1
	}
	return b, nil
}

// next loads the next training batch into n, records its shape in
// b.shape and returns its padding mask (nil: no padding).
func (b *batcher) next(n *net) []bool {
	switch {
	case b.tok != nil:
		return b.nextTokens(n)
	case b.img != nil:
		b.img.Next(b.x, b.y)
		n.setImages(b.x)
		n.setLabels(b.y)
		b.shape = probes.BatchShape{Rows: b.rows, Width: 1, Tokens: b.rows}
		return nil
	case b.sent != nil:
		b.sent.Next(b.in, b.tgt, b.mask)
	case b.doc != nil:
		b.doc.Next(b.in, b.mask, b.tgt)
	default:
		b.txt.Next(b.in, b.tgt)
		n.setTokens(b.in, b.tgt, nil)
		b.shape = probes.BatchShape{Rows: b.rows, Width: b.width, Tokens: b.rows * b.width}
		return nil
	}
	n.setTokens(b.in, b.tgt, b.mask)
	b.shape = probes.BatchShape{Rows: b.rows, Width: b.width, Tokens: realCount(b.mask)}
	return b.mask
}

// realCount is the number of real (unmasked) positions of a batch's mask.
func realCount(mask []bool) int {
	n := 0
	for _, r := range mask {
		if r {
			n++
		}
	}
	return n
}

func (b *batcher) epoch() float64 {
	switch {
	case b.img != nil:
		return b.img.Epoch()
	case b.sent != nil:
		return b.sent.Epoch()
	case b.doc != nil:
		return b.doc.Epoch()
	case b.tok != nil:
		return b.tok.Epoch()
	}
	return b.txt.Epoch()
}
