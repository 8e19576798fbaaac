package nn

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// The kernels of the cross-entropy, bias, Adam, gradient-norm, softmax
// backward and ReLU loops against their Go loops (vec_test.go holds the
// helpers and the softmax forward's kernels).

// TestVecXentBwdRows: the gradient rows against (softmax − onehot)·g/n in
// float64, padded rows untouched.
func TestVecXentBwdRows(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	bothPaths(t, func(t *testing.T) {
		for _, c := range []int{1, 7, 9, 17, 2000} {
			const rows = 3
			x := make([]float32, rows*c)
			for i := range x {
				x[i] = float32(r.NormFloat64() * 4)
			}
			tg := []int32{int32(c - 1), -1, 0}
			dx := make([]float32, len(x))
			for i := range dx {
				dx[i] = 7 // a padded row keeps what was there
			}
			xentBwd(x, dx, tg, c, 1.5/2, 0, nil) // the mean over the 2 real rows
			for i, tc := range tg {
				if tc < 0 {
					for k := 0; k < c; k++ {
						if dx[i*c+k] != 7 {
							t.Fatalf("c=%d: padded row written", c)
						}
					}
					continue
				}
				p := softmaxRef(x[i*c : (i+1)*c])
				for k := range p {
					want := p[k]
					if k == int(tc) {
						want--
					}
					want *= 1.5 / 2
					if d := math.Abs(float64(dx[i*c+k]) - want); d > softmaxTol(x[i*c:(i+1)*c], k, want) {
						t.Fatalf("c=%d row %d: dx[%d] = %v, want %v", c, i, k, dx[i*c+k], want)
					}
				}
			}
		}
	})
}

// TestVecBiasKernels: addRow and colAdd bit-identical to the float64 sums of
// float32 inputs on every length, and nothing written past the end.
func TestVecBiasKernels(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	bothPaths(t, func(t *testing.T) {
		for _, n := range vecLengths {
			x, b := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			}
			out := make([]float32, n+1)
			addRow(x, b, out)
			acc := make([]float64, n+1)
			for i := range acc {
				acc[i] = r.NormFloat64()
			}
			acc0 := append([]float64(nil), acc...)
			colAdd(x, acc)
			for i := range x {
				if out[i] != x[i]+b[i] {
					t.Fatalf("n=%d: addRow[%d] = %v, want %v", n, i, out[i], x[i]+b[i])
				}
				if acc[i] != acc0[i]+float64(x[i]) {
					t.Fatalf("n=%d: colAdd[%d] = %v, want %v", n, i, acc[i], acc0[i]+float64(x[i]))
				}
			}
			if out[n] != 0 || acc[n] != acc0[n] {
				t.Fatalf("n=%d: written past the end", n)
			}
			y := append([]float32(nil), x...)
			scale(y, 0.37)
			for i := range y {
				if y[i] != x[i]*0.37 {
					t.Fatalf("n=%d: scale[%d] = %v, want %v", n, i, y[i], x[i]*0.37)
				}
			}
		}
	})
}

// adamPaths are the Adam loop's implementations on this machine: the Go
// loop, the AVX2 kernel and, with AVX-512F, its kernel; each runs f with
// its switches set and restores them.
func adamPaths() map[string]func(f func()) {
	paths := map[string]func(f func()){"go": func(f func()) { withAVX(false, f) }}
	if !useAVX {
		return paths
	}
	with512 := func(on bool, f func()) {
		old := useAVX512
		useAVX512 = on
		defer func() { useAVX512 = old }()
		withAVX(true, f)
	}
	paths["avx2"] = func(f func()) { with512(false, f) }
	if useAVX512 {
		paths["avx512"] = func(f func()) { with512(true, f) }
	}
	return paths
}

// TestVecAdamKernelMatchesGo: every kernel's parameters and moments are
// bit-identical to the Go loop's over several steps, with and without the
// fused weight decay (a zero shrink included: 0·Inf is NaN there too), on
// every length, with NaN, ±Inf, ±0, huge and subnormal parameters and
// gradients among the entries (a NaN only against a NaN: its payload is
// the hardware's choice).
func TestVecAdamKernelMatchesGo(t *testing.T) {
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0,
		float32(math.Copysign(0, -1)), math.MaxFloat32, -math.MaxFloat32, 1e-45, -1e-40, 3e38}
	paths := adamPaths()
	if len(paths) == 1 {
		t.Log("no kernels on this machine or build: the Go loop alone")
	}
	r := rand.New(rand.NewSource(6))
	for _, wd := range []struct {
		name    string
		lr, dec float64
	}{{"no decay", 1e-3, 0}, {"decay", 1e-3, 1e-4}, {"decay, lr 0", 0, 1e-4}} {
		for _, n := range append(vecLengths, 4, 5, 12, 23) {
			t.Run(fmt.Sprint(wd.name, "/", n), func(t *testing.T) {
				p0, g := make([]float32, n), make([]float32, n)
				for i := range p0 {
					p0[i], g[i] = float32(r.NormFloat64()), float32(r.NormFloat64()*1e-3)
					if i%5 == 1 {
						p0[i] = specials[i/5%len(specials)]
					}
					if i%7 == 3 {
						g[i] = specials[i/7%len(specials)]
					}
				}
				run := func(with func(func())) ([]float32, []float64, []float64) {
					p := append([]float32(nil), p0...)
					m, v := make([]float64, n), make([]float64, n)
					with(func() {
						for step := 1; step <= 3; step++ {
							c1, c2 := 1-math.Pow(AdamBeta1, float64(step)), 1-math.Pow(AdamBeta2, float64(step))
							k := newAdamConsts(wd.lr, 0.8, c1, c2, wd.dec)
							adamUpdate(p, g, m, v, &k)
						}
					})
					return p, m, v
				}
				pg, mg, vg := run(paths["go"])
				same32 := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b }
				same64 := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b }
				for name, with := range paths {
					pa, ma, va := run(with)
					for i := range pg {
						if !same32(pa[i], pg[i]) || !same64(ma[i], mg[i]) || !same64(va[i], vg[i]) {
							t.Fatalf("%s [%d]: kernel p %v m %v v %v, Go p %v m %v v %v", name, i, pa[i], ma[i], va[i], pg[i], mg[i], vg[i])
						}
					}
				}
			})
		}
	}
}

// TestVecSumSq: Σx² against the float64 sum on every length; the kernel's
// sum differs from the Go loop's in order only.
func TestVecSumSq(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	bothPaths(t, func(t *testing.T) {
		for _, n := range append(vecLengths, 33, 4099) {
			x := make([]float32, n)
			var want float64
			for i := range x {
				x[i] = float32(r.NormFloat64())
				want += float64(x[i]) * float64(x[i])
			}
			if got := SumSq(x); math.Abs(got-want) > 1e-13*want {
				t.Fatalf("n=%d: Σx² = %v, want %v", n, got, want)
			}
		}
		inf := float32(math.Inf(-1))
		if s := SumSq([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, inf, 1}); !math.IsInf(s, 1) {
			t.Fatalf("Σx² with −Inf = %v, want +Inf", s)
		}
		if s := SumSq([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, float32(math.NaN()), 1}); !math.IsNaN(s) {
			t.Fatalf("Σx² with NaN = %v, want NaN", s)
		}
	})
}

// BenchmarkVecKernels times the kernels on the default models' shapes: a
// causal attention row, a vocabulary row, the mlp's parameter count.
func BenchmarkVecKernels(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	row := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		return x
	}
	for _, n := range []int{64, 2000} {
		x, y := row(n), make([]float32, n)
		b.Run(fmt.Sprintf("softmax/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				copy(y, x)
				softmaxRow(y)
			}
		})
	}
	const n = 270000
	p, g := row(n), row(n)
	m, v := make([]float64, n), make([]float64, n)
	for name, with := range adamPaths() {
		k := newAdamConsts(1e-3, 1, 0.1, 0.02, 1e-4)
		b.Run("adam/270k/"+name, func(b *testing.B) {
			with(func() {
				for i := 0; i < b.N; i++ {
					adamUpdate(p, g, m, v, &k)
				}
			})
		})
	}
	b.Run("SumSq/270k", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			SumSq(g)
		}
	})
}

// TestVecSoftmaxGrad against the float64 formula p⊙(d − p·d)·sc on every
// length; only the dot product's summation order may differ.
func TestVecSoftmaxGrad(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	bothPaths(t, func(t *testing.T) {
		for _, n := range vecLengths {
			s, d := make([]float32, n), make([]float32, n+1)
			for i := range s {
				s[i], d[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			}
			d[n] = 42
			p := append([]float32(nil), s...)
			softmaxRow(p)
			var dot float64
			for i := range p {
				dot += float64(p[i]) * float64(d[i])
			}
			want := make([]float64, n)
			for i := range p {
				want[i] = float64(p[i]) * (float64(d[i]) - dot) * 0.7
			}
			softmaxGrad(p, d[:n], 0.7)
			for i := range want {
				if diff := math.Abs(float64(d[i]) - want[i]); diff > 0x1p-24*math.Abs(want[i])+1e-15 {
					t.Fatalf("n=%d: [%d] = %v, want %v", n, i, d[i], want[i])
				}
			}
			if d[n] != 42 {
				t.Fatalf("n=%d: written past the end", n)
			}
		}
	})
}

// TestVecReLUMask: v·[x ≥ 0] bit for bit as the product Rectify computes,
// on both paths and every length, with NaN, ±Inf and signed zeros in x and
// in v, and nothing written past the end.
func TestVecReLUMask(t *testing.T) {
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0,
		float32(math.Copysign(0, -1)), 1e-40, -1e-40, 3, -3}
	r := rand.New(rand.NewSource(5))
	bothPaths(t, func(t *testing.T) {
		for _, n := range vecLengths {
			x, v := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], v[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
				if r.Intn(3) == 0 {
					x[i] = special[r.Intn(len(special))]
				}
				if r.Intn(3) == 0 {
					v[i] = special[r.Intn(len(special))]
				}
			}
			out := make([]float32, n+1)
			out[n] = 42
			reluMask(x, v, out)
			for i := range x {
				var m float32
				if x[i] >= 0 {
					m = 1
				}
				if want := v[i] * m; math.Float32bits(out[i]) != math.Float32bits(want) {
					t.Fatalf("n=%d: x=%v v=%v: %v, want %v", n, x[i], v[i], out[i], want)
				}
			}
			if out[n] != 42 {
				t.Fatalf("n=%d: written past the end", n)
			}
		}
	})
}

// TestVecScaleSub: x·a − b with the product rounded first, bit for bit as
// a pass of ·a and then a pass of −b, on every length, specials included.
func TestVecScaleSub(t *testing.T) {
	r := rand.New(rand.NewSource(14))
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0,
		float32(math.Copysign(0, -1)), math.MaxFloat32, 1e-45, -3}
	bothPaths(t, func(t *testing.T) {
		for _, n := range vecLengths {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.NormFloat64())
				if i%4 == 2 {
					x[i] = specials[i/4%len(specials)]
				}
			}
			for _, ab := range [][2]float32{{0.37, 4.9e-5}, {2, 0}, {1e-30, -1e30}, {3, float32(math.Inf(1))}} {
				want := append([]float32(nil), x...)
				for i := range want {
					want[i] *= ab[0]
				}
				for i := range want {
					want[i] -= ab[1]
				}
				got := append([]float32(nil), x...)
				scaleSub(got, ab[0], ab[1])
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("n=%d a=%v b=%v [%d]: %v·a−b = %v, want %v", n, ab[0], ab[1], i, x[i], got[i], want[i])
					}
				}
			}
		}
	})
}

// TestVecXentBwdSmoothing: the gradient rows are the bits of the passes
// the one-pass kernel replaced (max, exp and sum, scaling, the target's
// entry, then −ε/C·sc with label smoothing), with the max and sum taken
// in the backward or kept by the forward, NaN and ±Inf logits included.
func TestVecXentBwdSmoothing(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	bothPaths(t, func(t *testing.T) {
		for _, c := range []int{1, 7, 9, 17, 2000, 2003} {
			for _, eps := range []float64{0, 0.1} {
				for _, keep := range []bool{false, true} {
					const rows, sc = 4, 1.0 / 700
					x := make([]float32, rows*c)
					for i := range x {
						x[i] = float32(r.NormFloat64() * 4)
					}
					if c > 9 { // row 3: a NaN, ±Inf elsewhere
						x[3*c+5], x[2*c+3], x[2*c+7] = float32(math.NaN()), float32(math.Inf(-1)), float32(math.Inf(-1))
						x[3*c+1] = float32(math.Inf(1))
					}
					tg := []int32{int32(c - 1), -1, 0, int32(c / 2)}
					var kept *rowShifts
					if keep {
						kept = &rowShifts{}
						kept.keep(nil, rows)
						xentFwd(x, tg, c, eps, kept)
					}
					got := make([]float32, len(x))
					xentBwd(x, got, tg, c, sc, eps, kept)
					want := make([]float32, len(x))
					off := eps / float64(c) * sc
					for i, tc := range tg {
						if tc < 0 {
							continue
						}
						row, drow := x[i*c:(i+1)*c], want[i*c:(i+1)*c]
						m := maxOf(row)
						s := ExpShiftSum(row, drow, m)
						scale(drow, float32(sc/s))
						lse := float64(m) + math.Log(s)
						drow[tc] = float32((math.Exp(float64(row[tc])-lse) - (1 - eps)) * sc)
						if eps > 0 {
							for j := range drow {
								drow[j] -= float32(off)
							}
						}
					}
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
							t.Fatalf("c=%d ε=%v kept %v [%d]: %v, want %v", c, eps, keep, i, got[i], want[i])
						}
					}
				}
			}
		}
	})
}

// TestVecExpScaleSub: the one pass gives the bits of ExpShiftSum's stored
// exps followed by scaleSub (scale when b = 0), on every length around the
// kernel's blocks and tails, with NaN, ±Inf, overflowing and underflowing
// arguments, y apart from x and y = x.
func TestVecExpScaleSub(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	bothPaths(t, func(t *testing.T) {
		for _, n := range append(vecLengths, 2000, 2003) {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.NormFloat64() * 6)
				if i%5 == 3 {
					x[i] = expCases[i/5%len(expCases)]
				}
			}
			for _, sab := range [][3]float32{{0, 1, 0}, {2.5, 0.37, 4.9e-5}, {-3, -2, 0}, {88, 1e-30, -1e30}, {float32(math.Inf(1)), 1, 0}, {0.5, float32(math.NaN()), 1}} {
				want := make([]float32, n)
				ExpShiftSum(x, want, sab[0])
				if sab[2] == 0 {
					scale(want, sab[1])
				} else {
					scaleSub(want, sab[1], sab[2])
				}
				got := make([]float32, n)
				expScaleSub(x, got, sab[0], sab[1], sab[2])
				inPlace := append([]float32(nil), x...)
				expScaleSub(inPlace, inPlace, sab[0], sab[1], sab[2])
				for i := range got {
					for _, g := range []float32{got[i], inPlace[i]} {
						if math.Float32bits(g) != math.Float32bits(want[i]) && !(g != g && want[i] != want[i]) {
							t.Fatalf("n=%d s,a,b=%v [%d]: exp(%v−s)·a−b = %v, want %v", n, sab, i, x[i], g, want[i])
						}
					}
				}
			}
		}
	})
}

// TestVecRowSum: maxSum's Σx against the sequential float64 sum on every length
// (the kernel's lanes change the order only), NaN and ±Inf propagating.
func TestVecRowSum(t *testing.T) {
	r := rand.New(rand.NewSource(16))
	bothPaths(t, func(t *testing.T) {
		for _, n := range append(vecLengths, 33, 2000) {
			x := make([]float32, n)
			var want, abs float64
			for i := range x {
				x[i] = float32(r.NormFloat64() * 8)
				want += float64(x[i])
				abs += math.Abs(float64(x[i]))
			}
			m, got := maxSum(x)
			if math.Abs(got-want) > 1e-13*abs {
				t.Fatalf("n=%d: Σx = %v, want %v", n, got, want)
			}
			// the bits of internal/simd's lane sum and a Go tail, the
			// smoothing's sum before max and sum were one pass
			k, lanes := sumFast(x)
			for _, v := range x[k:] {
				lanes += float64(v)
			}
			if math.Float64bits(got) != math.Float64bits(lanes) {
				t.Fatalf("n=%d: Σx = %v, the lane sum %v", n, got, lanes)
			}
			if wm := maxOf(x); m != wm {
				t.Fatalf("n=%d: max %v, want %v", n, m, wm)
			}
		}
		for _, c := range []struct {
			v    float32
			want float64
		}{{float32(math.Inf(1)), math.Inf(1)}, {float32(math.Inf(-1)), math.Inf(-1)}, {float32(math.NaN()), math.NaN()}} {
			x := make([]float32, 37)
			x[20] = c.v
			if _, got := maxSum(x); !(got == c.want || got != got && c.want != c.want) {
				t.Fatalf("Σx with %v = %v, want %v", c.v, got, c.want)
			}
		}
	})
}
