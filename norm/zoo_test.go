package norm

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"gorgonia.org/tensor"
)

// Tests of the norm zoo (docs/math.md §8): groupnorm and instancenorm on token
// rows and on image sites laid out as [B·H·W, C] rows.

// zooCase is a variant on a site of n rows × d features.
type zooCase struct {
	name string
	spec string
	site Site
	n    int
}

const zooD = 6

func zooCases() []zooCase {
	tok := func(rows int) Site { return Site{Name: "tok", D: zooD, Dtype: f64, SampleRows: rows} }
	img := func(rows int) Site { return Site{Name: "img", D: zooD, Dtype: f64, SampleRows: rows, Spatial: true} }
	return []zooCase{
		{"groupnorm2/rows", "groupnorm:groups=2", tok(4), 8},
		{"groupnorm1/rows", "groupnorm:groups=1", tok(4), 8},
		{"groupnorm3/image", "groupnorm:groups=3", img(4), 8},
		{"groupnorm1/image", "groupnorm:groups=1", img(4), 8},
		{"groupnorm6/image", "groupnorm:groups=6", img(4), 8},
		{"instancenorm/seq", "instancenorm", tok(4), 8},
		{"instancenorm/image", "instancenorm", img(4), 8},
		{"instancenorm-running/image", "instancenorm:running=1", img(4), 8},
	}
}

// zooMasks: none; padding at the end of both samples (as sequences are
// padded); and a sample that is all padding.
var zooMasks = map[string][]bool{
	"nomask":     nil,
	"tailpad":    {true, true, true, false, true, true, false, false},
	"allpadding": {true, false, true, true, false, false, false, false},
}

// TestZooGradFD: dx, dγ, dβ through the gorgonia ops against central
// differences (float64, relative 1e-6), in training and inference mode,
// with and without padding.
func TestZooGradFD(t *testing.T) {
	for _, c := range zooCases() {
		for mname, mask := range zooMasks {
			for _, train := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/train=%v", c.name, mname, train), func(t *testing.T) {
					r := rand.New(rand.NewSource(11))
					l := mustLayer(t, c.spec, c.site)
					l.SetTraining(train)
					l.SetMask(mask)
					if st := l.State(); !train && st.Mean != nil { // inference on non-trivial running statistics
						for k := range st.Mean {
							st.Mean[k], st.Var[k] = r.NormFloat64(), 0.5+r.Float64()
						}
						if err := l.SetState(st); err != nil {
							t.Fatal(err)
						}
					}
					gam, bet := randomParams(r, l)
					h := newHarness(t, l, c.n, true)
					x := randSlice(r, c.n*zooD, 1.3, 0.4)
					w := lossWeights(r, c.n, zooD, mask)
					st := l.State()
					_, _, dx, dg, db := h.run(t, x, w)
					fdCompare(t, graphLoss(t, h, st, w), x, gam, bet, dx, dg, db)
				})
			}
		}
	}
}

// unitElems lists the (row, feature) indices of every unit with at least
// one real row, straight from §8's definition, independently of the
// kernels' row-by-row accumulation.
func unitElems(c zooCase, l *Layer, mask []bool) [][]int {
	R, groups := 1, 0
	if l.cfg.Name() == "instancenorm" {
		R, groups = c.site.SampleRows, zooD
	} else {
		groups = l.cfg.Groups
		if c.site.Spatial {
			R = c.site.SampleRows
		}
	}
	m := zooD / groups
	var units [][]int
	for s := 0; s < c.n/R; s++ {
		for gi := 0; gi < groups; gi++ {
			var u []int
			for i := s * R; i < (s+1)*R; i++ {
				if mask != nil && !mask[i] {
					continue
				}
				for k := gi * m; k < (gi+1)*m; k++ {
					u = append(u, i*zooD+k)
				}
			}
			if len(u) > 0 {
				units = append(units, u)
			}
		}
	}
	return units
}

// TestZooForwardAndTapsReference: y on real rows, and the gradient taps
// averaged over units (§8), against a direct computation over each unit's
// element list, to 1e-12.
func TestZooForwardAndTapsReference(t *testing.T) {
	for _, c := range zooCases() {
		for mname, mask := range zooMasks {
			t.Run(c.name+"/"+mname, func(t *testing.T) {
				r := rand.New(rand.NewSource(3))
				l := mustLayer(t, c.spec, c.site)
				l.SetMask(mask)
				gam, bet := randomParams(r, l)
				x := randSlice(r, c.n*zooD, 2, -0.7)
				g := lossWeights(r, c.n, zooD, mask)
				y, dx, _, _ := refStep(t, l, x, g, c.n)
				var gmu, gvar, dxm, dxv float64
				units := unitElems(c, l, mask)
				for _, u := range units {
					nu := float64(len(u))
					mu := 0.0
					for _, e := range u {
						mu += x[e]
					}
					mu /= nu
					v := 0.0
					for _, e := range u {
						v += (x[e] - mu) * (x[e] - mu)
					}
					D := math.Sqrt(v/nu + l.cfg.Eps)
					var s1, s2, xx, dsum float64
					for _, e := range u {
						k := e % zooD
						xh := (x[e] - mu) / D
						if want := gam[k]*xh + bet[k]; relErr(y[e], want) > 1e-12 {
							t.Fatalf("y[%d] = %.17g, want %.17g", e, y[e], want)
						}
						s1 += gam[k] * g[e]
						s2 += gam[k] * g[e] * xh
						xx += xh * xh
						dsum += dx[e]
					}
					gmu += math.Abs(s1) * math.Sqrt(nu) / (nu * D)
					gvar += math.Sqrt(xx) * math.Abs(s2) / (nu * D)
					dm := dsum / nu
					dv := 0.0
					for _, e := range u {
						dv += (dx[e] - dm) * (dx[e] - dm)
					}
					dxm += dm
					dxv += dv / nu
				}
				nu := float64(len(units))
				tp := l.Taps()
				checkScalar(t, "GMu", tp.GMu, gmu/nu)
				checkScalar(t, "GVar", tp.GVar, gvar/nu)
				checkScalar(t, "DxVar", tp.DxVar, dxv/nu)
				if math.Abs(tp.DxMean-dxm/nu) > 1e-13 { // ≈ 0: compare absolutely
					t.Errorf("DxMean = %g, want %g", tp.DxMean, dxm/nu)
				}
			})
		}
	}
}

// TestZooPaddingIgnored: what padded rows hold changes nothing on the real
// rows (y, dx), nor dγ, dβ or a tap; padded rows get dx = 0.
func TestZooPaddingIgnored(t *testing.T) {
	for _, c := range zooCases() {
		mask := zooMasks["tailpad"]
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(4))
			x := randSlice(r, c.n*zooD, 1, 0.3)
			g := lossWeights(r, c.n, zooD, nil) // padded rows get a gradient too
			x2 := append([]float64(nil), x...)
			for i, real := range mask {
				for k := 0; k < zooD && !real; k++ {
					x2[i*zooD+k] = 100 * r.NormFloat64()
				}
			}
			var ys, dxs, dgs [2][]float64
			var taps [2][4]float64
			for j, in := range [][]float64{x, x2} {
				l := mustLayer(t, c.spec, c.site)
				l.SetMask(mask)
				y, dx, dg, db := refStep(t, l, in, g, c.n)
				ys[j], dxs[j], dgs[j] = y, dx, append(dg, db...)
				tp := l.Taps()
				taps[j] = [4]float64{tp.GMu, tp.GVar, tp.DxVar, tp.InStd}
			}
			for i, real := range mask {
				for k := 0; k < zooD; k++ {
					e := i*zooD + k
					if !real {
						if dxs[0][e] != 0 || dxs[1][e] != 0 {
							t.Fatalf("padded row %d: dx = %v, %v, want 0", i, dxs[0][e], dxs[1][e])
						}
						continue
					}
					if relErr(ys[0][e], ys[1][e]) > 1e-12 || relErr(dxs[0][e], dxs[1][e]) > 1e-12 {
						t.Fatalf("real row %d changes with the padding: y %v/%v dx %v/%v", i, ys[0][e], ys[1][e], dxs[0][e], dxs[1][e])
					}
				}
			}
			assertClose(t, "dγ‖dβ", dgs[1], dgs[0], 1e-12)
			assertClose(t, "taps", taps[1][:], taps[0][:], 1e-12)
		})
	}
}

// TestZooLayerNormOracle: groupnorm with one group on token rows is
// layernorm (y, dx, dγ, dβ and every gradient tap, with padding).
func TestZooLayerNormOracle(t *testing.T) {
	const n = 8
	mask := zooMasks["tailpad"]
	r := rand.New(rand.NewSource(5))
	gn := mustLayer(t, "groupnorm:groups=1", Site{D: zooD, Dtype: f64, SampleRows: 4})
	ln := mustLayer(t, "layernorm", Site{D: zooD, Dtype: f64})
	gam, bet := randomParams(r, gn)
	setData(ln.gamma, gam)
	setData(ln.beta, bet)
	x := randSlice(r, n*zooD, 1.5, 0.2)
	g := lossWeights(r, n, zooD, mask)
	for _, l := range []*Layer{gn, ln} {
		l.SetMask(mask)
	}
	y1, dx1, dg1, db1 := refStep(t, gn, x, g, n)
	y2, dx2, dg2, db2 := refStep(t, ln, x, g, n)
	assertClose(t, "y", y1, y2, 1e-12)
	assertClose(t, "dx", dx1, dx2, 1e-12)
	assertClose(t, "dγ", dg1, dg2, 1e-12)
	assertClose(t, "dβ", db1, db2, 1e-12)
	a, b := gn.Taps(), ln.Taps()
	assertClose(t, "taps", []float64{a.GMu, a.GVar, a.DxVar, a.DyMean, a.DyVar, a.InMean, a.InStd},
		[]float64{b.GMu, b.GVar, b.DxVar, b.DyMean, b.DyVar, b.InMean, b.InStd}, 1e-12)
	assertClose(t, "batch stats", append(append(a.BatchMean, a.BatchVar...), a.BatchPsi2...),
		append(append(b.BatchMean, b.BatchVar...), b.BatchPsi2...), 1e-12)
}

// TestZooImageLayerNormOracle: on an image site, groupnorm with one group
// is layernorm over the whole sample: a layernorm of width H·W·C fed one
// sample per row, its γ tiled from the per-channel γ (so its dγ summed over
// positions is groupnorm's).
func TestZooImageLayerNormOracle(t *testing.T) {
	const R, B = 4, 3
	r := rand.New(rand.NewSource(6))
	gn := mustLayer(t, "groupnorm:groups=1", Site{D: zooD, Dtype: f64, SampleRows: R, Spatial: true})
	ln := mustLayer(t, "layernorm", Site{D: R * zooD, Dtype: f64})
	gam, bet := randomParams(r, gn)
	var gt, bt []float64
	for p := 0; p < R; p++ {
		gt, bt = append(gt, gam...), append(bt, bet...)
	}
	setData(ln.gamma, gt)
	setData(ln.beta, bt)
	x := randSlice(r, B*R*zooD, 1.5, 0.2)
	g := randSlice(r, B*R*zooD, 1, 0)
	y1, dx1, dg1, db1 := refStep(t, gn, x, g, B*R)
	y2, dx2, dg2, db2 := refStep(t, ln, x, g, B)
	assertClose(t, "y", y1, y2, 1e-12)
	assertClose(t, "dx", dx1, dx2, 1e-12)
	fold := func(v []float64) []float64 {
		out := make([]float64, zooD)
		for e, f := range v {
			out[e%zooD] += f
		}
		return out
	}
	assertClose(t, "dγ", dg1, fold(dg2), 1e-12)
	assertClose(t, "dβ", db1, fold(db2), 1e-12)
	a, b := gn.Taps(), ln.Taps()
	assertClose(t, "taps", []float64{a.GMu, a.GVar, a.DxVar, a.DyMean, a.DyVar},
		[]float64{b.GMu, b.GVar, b.DxVar, b.DyMean, b.DyVar}, 1e-12)
}

// TestZooInstanceNormOracle: on an image site, groupnorm with C groups is
// instancenorm, bit for bit, padding included.
func TestZooInstanceNormOracle(t *testing.T) {
	const n = 8
	for mname, mask := range zooMasks {
		t.Run(mname, func(t *testing.T) {
			r := rand.New(rand.NewSource(7))
			site := Site{D: zooD, Dtype: f64, SampleRows: 4, Spatial: true}
			gn := mustLayer(t, fmt.Sprintf("groupnorm:groups=%d", zooD), site)
			in := mustLayer(t, "instancenorm", site)
			gam, bet := randomParams(r, gn)
			setData(in.gamma, gam)
			setData(in.beta, bet)
			gn.SetMask(mask)
			in.SetMask(mask)
			x := randSlice(r, n*zooD, 1.5, 0.2)
			g := lossWeights(r, n, zooD, mask)
			y1, dx1, dg1, db1 := refStep(t, gn, x, g, n)
			y2, dx2, dg2, db2 := refStep(t, in, x, g, n)
			for name, p := range map[string][2][]float64{"y": {y1, y2}, "dx": {dx1, dx2}, "dγ": {dg1, dg2}, "dβ": {db1, db2}} {
				for k := range p[0] {
					if p[0][k] != p[1][k] {
						t.Fatalf("%s[%d]: groupnorm %v, instancenorm %v", name, k, p[0][k], p[1][k])
					}
				}
			}
			a, b := gn.Taps(), in.Taps()
			if [5]float64{a.GMu, a.GVar, a.DxMean, a.DxVar, a.DyVar} != [5]float64{b.GMu, b.GVar, b.DxMean, b.DxVar, b.DyVar} {
				t.Errorf("taps differ: %+v vs %+v", a, b)
			}
		})
	}
}

// TestZooFloat32ImageSite: the float32 op on an image site agrees with the
// float64 reference to 1e-5 (§7).
func TestZooFloat32ImageSite(t *testing.T) {
	const n = 8
	mask := zooMasks["tailpad"]
	for _, spec := range []string{"groupnorm:groups=3", "instancenorm"} {
		t.Run(spec, func(t *testing.T) {
			r := rand.New(rand.NewSource(9))
			l32 := mustLayer(t, spec, Site{D: zooD, Dtype: tensor.Float32, SampleRows: 4, Spatial: true})
			l64 := mustLayer(t, spec, Site{D: zooD, Dtype: f64, SampleRows: 4, Spatial: true})
			gam, bet := roundF32(randSlice(r, zooD, 0.3, 1)), roundF32(randSlice(r, zooD, 0.3, 0))
			for _, l := range []*Layer{l32, l64} {
				setData(l.gamma, gam)
				setData(l.beta, bet)
				l.SetMask(mask)
			}
			h := newHarness(t, l32, n, true)
			x := roundF32(randSlice(r, n*zooD, 1.5, 0.5))
			w := roundF32(lossWeights(r, n, zooD, mask))
			y, _, dx, dg, db := h.run(t, x, w)
			y64, dx64, dg64, db64 := refStep(t, l64, x, w, n)
			assertClose(t, "y", y, y64, 1e-5)
			assertClose(t, "dx", dx, dx64, 1e-5)
			assertClose(t, "dγ", dg, dg64, 1e-5)
			assertClose(t, "dβ", db, db64, 1e-5)
		})
	}
}
