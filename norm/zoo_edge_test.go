package norm

import (
	"math"
	"strings"
	"testing"

	"github.com/normtop/normtop/normspec"
)

// TestZooEdgeConstantUnit: a constant unit (§4) gives x̂ = 0 exactly, so
// y = β, and the finite gradient dx = (ĝ - mean_U ĝ)/√ε; a unit of zeros
// likewise. Sample 0 of the image site has channel 1 constant over its
// positions (an instancenorm unit) and channels 2-3 equal to 0.25 (a
// groupnorm:groups=2 unit); the token site's row 0 is constant.
func TestZooEdgeConstantUnit(t *testing.T) {
	const R, d, n = 3, 4, 6
	x := []float64{
		1, 7, 0.25, 0.25,
		2, 7, 0.25, 0.25,
		-1, 7, 0.25, 0.25,
		0.5, 1, 2, -3,
		1, 1, 1, 1,
		4, -2, 0, 3,
	}
	g := []float64{
		0.3, -1, 2, 0.5,
		1, 0.25, -0.5, 1,
		-2, 0.75, 1, 3,
		1, 2, 3, 4,
		-1, 1, -1, 2,
		0.5, 0.5, 1, 1,
	}
	type unit struct{ rows, feats []int }
	for _, c := range []struct {
		spec  string
		site  Site
		units []unit // constant units
	}{
		{"instancenorm", Site{D: d, Dtype: f64, SampleRows: R, Spatial: true}, []unit{{[]int{0, 1, 2}, []int{1}}, {[]int{0, 1, 2}, []int{2}}}},
		{"groupnorm:groups=2", Site{D: d, Dtype: f64, SampleRows: R, Spatial: true}, []unit{{[]int{0, 1, 2}, []int{2, 3}}}},
		{"groupnorm:groups=1", Site{D: d, Dtype: f64, SampleRows: R}, []unit{{[]int{4}, []int{0, 1, 2, 3}}}},
		{"groupnorm:groups=2", Site{D: d, Dtype: f64, SampleRows: R}, []unit{{[]int{0}, []int{2, 3}}, {[]int{4}, []int{0, 1}}, {[]int{4}, []int{2, 3}}}},
	} {
		t.Run(c.spec, func(t *testing.T) {
			l := mustLayer(t, c.spec, c.site)
			bet := []float64{0.1, -0.2, 0.3, 0.4}
			gam := []float64{1.5, 0.5, 2, -1}
			setData(l.gamma, gam)
			setData(l.beta, bet)
			y, dx, _, _ := refStep(t, l, x, g, n)
			allFinite(t, "y", y)
			allFinite(t, "dx", dx)
			D := math.Sqrt(l.cfg.Eps)
			for _, u := range c.units {
				mean := 0.0
				for _, i := range u.rows {
					for _, k := range u.feats {
						mean += gam[k] * g[i*d+k]
					}
				}
				mean /= float64(len(u.rows) * len(u.feats))
				for _, i := range u.rows {
					for _, k := range u.feats {
						if y[i*d+k] != bet[k] {
							t.Errorf("y[%d][%d] = %v, want β = %v (x̂ = 0)", i, k, y[i*d+k], bet[k])
						}
						if want := (gam[k]*g[i*d+k] - mean) / D; relErr(dx[i*d+k], want) > 1e-12 {
							t.Errorf("dx[%d][%d] = %v, want %v", i, k, dx[i*d+k], want)
						}
					}
				}
			}
		})
	}
}

// TestZooEdgeAllPadding: a batch that is all padding gives finite outputs,
// dx = 0, dγ = dβ = 0, and no gradient tap (NaN: not computed).
func TestZooEdgeAllPadding(t *testing.T) {
	for _, c := range zooCases() {
		t.Run(c.name, func(t *testing.T) {
			l := mustLayer(t, c.spec, c.site)
			l.SetMask(make([]bool, c.n))
			x := make([]float64, c.n*zooD)
			for i := range x {
				x[i] = float64(i%5) - 2
			}
			g := make([]float64, len(x))
			for i := range g {
				g[i] = 1
			}
			y, dx, dg, db := refStep(t, l, x, g, c.n)
			allFinite(t, "y", y)
			for name, v := range map[string][]float64{"dx": dx, "dγ": dg, "dβ": db} {
				for _, f := range v {
					if f != 0 {
						t.Fatalf("%s holds %v, want 0", name, f)
					}
				}
			}
			if tp := l.Taps(); !math.IsNaN(tp.GMu) || !math.IsNaN(tp.DxVar) || tp.NonFinite {
				t.Errorf("taps of an all-padding batch: %+v", tp)
			}
		})
	}
}

// TestZooLayerErrors: the unit must fit the site (one clear error, at
// construction or at the forward that cannot be cut into samples).
func TestZooLayerErrors(t *testing.T) {
	for _, c := range []struct {
		spec   string
		site   Site
		wantIn string
	}{
		{"groupnorm:groups=5", Site{Name: "block0.ln1", D: 64, Dtype: f64, SampleRows: 8}, "block0.ln1: groupnorm: groups=5 does not divide d=64"},
		{"groupnorm:groups=3", Site{Name: "conv1", D: 16, Dtype: f64, SampleRows: 49, Spatial: true}, "groups=3 does not divide d=16"},
		{"groupnorm", Site{Name: "fc1", D: 500, Dtype: f64, SampleRows: 1}, "the default groups=32 does not divide d=500 channels; give groups=G"},
		{"instancenorm", Site{Name: "fc1", D: 500, Dtype: f64, SampleRows: 1}, "fc1: instancenorm normalises each feature over a sample's positions, and this site has one position per sample"},
		{"instancenorm", Site{Name: "fc2", D: 8, Dtype: f64}, "one position per sample"},
	} {
		cfg, err := normspec.Parse(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewLayer(cfg, c.site); err == nil || !strings.Contains(err.Error(), c.wantIn) {
			t.Errorf("NewLayer(%s, %+v) = %v, want an error containing %q", c.spec, c.site, err, c.wantIn)
		}
	}
	// defaults: 32 clamped to d, and 32 itself where it divides d
	for d, want := range map[int]int{8: 8, 64: 32, 96: 32} {
		l := mustLayer(t, "groupnorm", Site{D: d, Dtype: f64})
		if l.UnitGroups() != want || l.UnitRows() != 1 {
			t.Errorf("groupnorm on d=%d: %d groups over %d rows, want %d over 1", d, l.UnitGroups(), l.UnitRows(), want)
		}
	}
	l := mustLayer(t, "instancenorm", Site{D: 4, Dtype: f64, SampleRows: 3})
	y := make([]float64, 4*4)
	if err := l.Forward64(make([]float64, 4*4), 4, y); err == nil || !strings.Contains(err.Error(), "4 rows are not whole samples of 3 rows") {
		t.Errorf("4 rows on a site of 3-row samples: %v", err)
	}
}
