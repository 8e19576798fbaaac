package nntest

// Conv3x3 is the reference a convolution op is held to: a direct 3×3
// convolution with a one-pixel zero border of images x [b, c, h, w] by
// filters w [o, c, 3, 3] at stride s.
func Conv3x3(x []float64, b, c, h, wd int, w []float64, o, s int) (out []float64, oh, ow int) {
	oh, ow = (h-1)/s+1, (wd-1)/s+1
	out = make([]float64, b*o*oh*ow)
	for n := 0; n < b; n++ {
		for f := 0; f < o; f++ {
			for y := 0; y < oh; y++ {
				for xx := 0; xx < ow; xx++ {
					var sum float64
					for ch := 0; ch < c; ch++ {
						for i := 0; i < 3; i++ {
							for j := 0; j < 3; j++ {
								iy, ix := y*s-1+i, xx*s-1+j
								if iy >= 0 && iy < h && ix >= 0 && ix < wd {
									sum += x[((n*c+ch)*h+iy)*wd+ix] * w[((f*c+ch)*3+i)*3+j]
								}
							}
						}
					}
					out[((n*o+f)*oh+y)*ow+xx] = sum
				}
			}
		}
	}
	return out, oh, ow
}
