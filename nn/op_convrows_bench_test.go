package nn

import (
	"fmt"
	"testing"
)

// BenchmarkConvRows times ConvRows' forward, filter gradient and input
// gradient (float32) apart, at each of the resnet preset's convolution
// shapes (batch 32 of MNIST's 28×28; widths 8/16/32), by blocks of patch
// rows (im2col) and read in place from a padded copy: at stride 1
// (implicit), strided where gemm.Windows runs (windows).
func BenchmarkConvRows(b *testing.B) {
	for _, c := range []struct{ h, c, o, s int }{
		{28, 1, 8, 1}, {28, 8, 8, 1}, {28, 8, 16, 2}, {14, 16, 16, 1}, {14, 16, 32, 2}, {7, 32, 32, 1},
	} {
		g := convGeom{b: 32, c: c.c, h: c.h, w: c.h, o: c.o, kh: 3, kw: 3, s: c.s, pad: 1}
		g.oh, g.ow = (g.h-1)/c.s+1, (g.w-1)/c.s+1
		x := make([]float32, g.b*g.h*g.w*g.c)
		for i := range x {
			x[i] = float32(i%7) - 3
		}
		w := make([]float32, g.o*g.k())
		for i := range w {
			w[i] = float32(i%5) - 2
		}
		y, dx, dw := make([]float32, g.outRows()*g.o), make([]float32, len(x)), make([]float32, len(w))
		wp, cols := make([]float32, g.k()*g.o), make([]float32, g.blockRows()*g.k())
		name := fmt.Sprintf("%dx%d/%d-%d/s%d", c.h, c.h, c.c, c.o, c.s)
		b.Run(name+"/im2col/fwd", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				convRowsFwd(g, x, w, y, wp, cols)
			}
		})
		b.Run(name+"/im2col/gradW", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				convRowsGradW(g, x, y, dw, wp, cols)
			}
		})
		b.Run(name+"/im2col/gradX", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				clear(dx)
				convRowsGradX(g, w, y, dx, wp, cols)
			}
		})
		if stridedWindows[float32](g) {
			xp := make([]float32, g.fwdPad().bufLen())
			b.Run(name+"/windows/fwd", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					convImplicitFwd(g, x, w, y, wp, xp, new(any))
				}
			})
		}
		if !g.implicitConv() {
			continue
		}
		fp, bp := g.fwdPad(), g.bwdPad()
		xp := make([]float32, fp.bufLen())
		dyv := make([]float32, padded{b: g.b, hp: fp.hp, wp: fp.wp, c: g.o}.len())
		dyp := make([]float32, bp.bufLen())
		b.Run(name+"/implicit/fwd", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				convImplicitFwd(g, x, w, y, wp, xp, new(any))
			}
		})
		b.Run(name+"/implicit/gradW", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				convImplicitGradW(g, x, y, dw, wp, xp, dyv)
			}
		})
		b.Run(name+"/implicit/gradX", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				convImplicitGradX(g, w, y, dx, wp, dyp, new(any))
			}
		})
	}
}
