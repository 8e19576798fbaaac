package train

import (
	"context"
	"fmt"

	"github.com/normtop/normtop/datasets"
)

// source is the loaded data of a run: train batches, and the fixed
// validation and test sets cut into eval batches.
type source struct {
	images    *datasets.Images
	text      *datasets.Text
	desc      string
	classes   int // classes or vocabulary size
	pixels    int // H·W for images, 0 for text
	perEpoch  int // training steps per epoch
	val, test []evalBatch
}

// evalBatch is one batch of an evaluation set; rows past real are padding
// (target −1), which the loss and the accuracy leave out.
type evalBatch struct {
	images  []float32
	tokens  []int32
	targets []int32
	real    int // real predictions (rows with a target ≥ 0)
}

// loadSource reads the data; cancelling ctx stops the reading with ctx's
// error.
func loadSource(ctx context.Context, c Config) (*source, error) {
	s := &source{}
	switch c.Model {
	case "mlp", "cnn":
		imgs, err := datasets.MNISTContext(ctx, c.DataPath)
		if err != nil {
			return nil, dataError{err}
		}
		s.images, s.classes, s.pixels = imgs, imgs.Classes, imgs.H*imgs.W
		s.desc = imgs.Name
		if c.Batch > imgs.Train.N {
			return nil, dataError{fmt.Errorf("%s: %d training images, too few for one batch of %d", imgs.Name, imgs.Train.N, c.Batch)}
		}
		s.perEpoch = (imgs.Train.N + c.Batch - 1) / c.Batch
		eb := min(c.Batch*16, 512)
		if imgs.Val.N == 0 {
			return nil, dataError{fmt.Errorf("%s: no validation images (the split takes the last 5,000 training images)", imgs.Name)}
		}
		s.val = imageBatches(&imgs.Val, min(c.EvalSize, imgs.Val.N), eb, s.pixels)
		n := imgs.Test.N
		if c.TestSize > 0 {
			n = min(n, c.TestSize)
		}
		s.test = imageBatches(&imgs.Test, n, eb, s.pixels)
	case "transformer":
		txt, err := datasets.LoadTextContext(ctx, c.DataPath)
		if err != nil {
			return nil, dataError{err}
		}
		s.text, s.classes = txt, len(txt.Vocab)
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

// imageBatches cuts the first n images of split into batches of size b,
// padding the last one.
func imageBatches(split *datasets.ImageSplit, n, b, pixels int) []evalBatch {
	var out []evalBatch
	for start := 0; start < n; start += b {
		e := evalBatch{images: make([]float32, b*pixels), targets: make([]int32, b), real: min(b, n-start)}
		copy(e.images, split.X[start*pixels:(start+e.real)*pixels])
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
	img *datasets.ImageBatcher
	txt *datasets.TextBatcher
	x   []float32
	y   []uint8
	in  []int32
	tgt []int32
}

func (s *source) newBatcher(c Config) (*batcher, error) {
	b := &batcher{}
	var err error
	if s.images != nil {
		b.img, err = datasets.NewImageBatcher(&s.images.Train, c.Batch, c.Seed, true)
		b.x, b.y = make([]float32, c.Batch*s.pixels), make([]uint8, c.Batch)
	} else {
		b.txt, err = datasets.NewTextBatcher(s.text.Train, c.Batch, c.SeqLen, c.Seed, true)
		b.in, b.tgt = make([]int32, c.Batch*c.SeqLen), make([]int32, c.Batch*c.SeqLen)
	}
	if err != nil {
		return nil, dataError{err}
	}
	return b, nil
}

// next loads the next training batch into n.
func (b *batcher) next(n *net) {
	if b.img != nil {
		b.img.Next(b.x, b.y)
		n.setImages(b.x)
		n.setLabels(b.y)
		return
	}
	b.txt.Next(b.in, b.tgt)
	n.setTokens(b.in, b.tgt)
}

func (b *batcher) epoch() float64 {
	if b.img != nil {
		return b.img.Epoch()
	}
	return b.txt.Epoch()
}
