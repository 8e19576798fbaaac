package norm

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/normtop/normtop/normspec"
	"gorgonia.org/tensor"
)

// TestSeqMatchesOneStep: a Seq run range by range (3 rows at a time, as an
// LSTM's time steps) and finished gives the same y, dx, dγ, dβ and taps as
// one Forward64/Backward64 over all the rows, padding included.
func TestSeqMatchesOneStep(t *testing.T) {
	const n, d, chunk = 9, 5, 3
	mask := []bool{true, true, false, true, true, true, true, false, true}
	for _, spec := range []string{"none", "layernorm", "layernorm:conv=c", "rmsnorm", "adanorm", "detach-mean"} {
		t.Run(spec, func(t *testing.T) {
			cfg, err := normspec.Parse(spec)
			if err != nil {
				t.Fatal(err)
			}
			mk := func() *Layer {
				l, err := NewLayer(cfg, Site{Name: "s", D: d, Heads: 1, Dtype: tensor.Float64})
				if err != nil {
					t.Fatal(err)
				}
				return l
			}
			r := rand.New(rand.NewSource(2))
			x, g := make([]float64, n*d), make([]float64, n*d)
			for i := range x {
				x[i], g[i] = r.NormFloat64(), r.NormFloat64()
			}
			ref := mk()
			ref.SetMask(mask)
			y0, dx0, dg0, db0 := make([]float64, n*d), make([]float64, n*d), make([]float64, d), make([]float64, d)
			if err := ref.Forward64(x, n, y0); err != nil {
				t.Fatal(err)
			}
			if err := ref.Backward64(x, g, n, dx0, dg0, db0); err != nil {
				t.Fatal(err)
			}

			l := mk()
			s, err := l.NewSeq()
			if err != nil {
				t.Fatal(err)
			}
			gam, bet := l.params64()
			y, dx := make([]float64, n*d), make([]float64, n*d)
			if err := s.Begin(n, mask); err != nil {
				t.Fatal(err)
			}
			for lo := 0; lo < n; lo += chunk {
				if err := ForwardRows(s, x, gam, bet, y, lo, lo+chunk); err != nil {
					t.Fatal(err)
				}
			}
			yRows := append([]float64(nil), y...)
			if err := FinishForward(s, x, gam, bet, y); err != nil {
				t.Fatal(err)
			}
			for lo := n - chunk; lo >= 0; lo -= chunk {
				if err := BackwardRows(s, x, gam, g, dx, lo, lo+chunk); err != nil {
					t.Fatal(err)
				}
			}
			dxRows := append([]float64(nil), dx...)
			dg, db, err := FinishBackward(s, x, gam, g, dx)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(yRows, y0) || !reflect.DeepEqual(y, y0) {
				t.Fatalf("y by rows %v, finished %v, one step %v", yRows[:d], y[:d], y0[:d])
			}
			if !reflect.DeepEqual(dxRows, dx0) || !reflect.DeepEqual(dx, dx0) {
				t.Fatalf("dx by rows %v, finished %v, one step %v", dxRows[:d], dx[:d], dx0[:d])
			}
			if cfg.Kind.HasAffine() && (!reflect.DeepEqual(dg, dg0) || !reflect.DeepEqual(db, db0)) {
				t.Fatalf("dγ %v dβ %v, one step %v %v", dg, db, dg0, db0)
			}
			if got, want := *l.Taps(), *ref.Taps(); !sameTaps(got, want) {
				t.Fatalf("taps\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// sameTaps compares taps as printed, so that NaN equals NaN.
func sameTaps(a, b normspec.Taps) bool { return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b) }
