package datasets

import "testing"

// Batch assembly must cost next to nothing beside a training step.
//
//	go test -run '^$' -bench 'Batcher|LoadText' -benchtime 1s ./datasets/
func BenchmarkImageBatcherNext(b *testing.B) {
	const n, batch, rowLen = 55000, 64, 784
	s := &ImageSplit{Pix: make([]uint8, n*rowLen), Y: make([]uint8, n), N: n}
	ib, err := NewImageBatcher(s, batch, 1, true)
	if err != nil {
		b.Fatal(err)
	}
	x, y := make([]float32, batch*rowLen), make([]uint8, batch)
	b.SetBytes(batch * rowLen * 4)
	for b.Loop() {
		ib.Next(x, y)
	}
}

func BenchmarkTextBatcherNext(b *testing.B) {
	const batch, seqLen = 16, 64
	tb, err := NewTextBatcher(make([]int32, 500000), batch, seqLen, 1, true)
	if err != nil {
		b.Fatal(err)
	}
	in, tg := make([]int32, batch*seqLen), make([]int32, batch*seqLen)
	for b.Loop() {
		tb.Next(in, tg)
	}
}

func BenchmarkLoadText(b *testing.B) {
	for b.Loop() {
		if _, err := LoadText(""); err != nil {
			b.Fatal(err)
		}
	}
}
