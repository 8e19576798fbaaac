package nn

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Mat is a strided row-major view into a float slice.
type Mat[T Float] struct {
	Data               []T
	Rows, Cols, Stride int
}

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// Mul is c = alpha·op(a)·op(b) + beta·c with gonum's blas32/blas64 entry
// points, which run the BLAS gemm.Install put behind them (blas.go), the
// same one gorgonia's own matrix products use.
func Mul[T Float](tA, tB bool, alpha float64, a, b Mat[T], beta float64, c Mat[T]) {
	switch ad := any(a.Data).(type) {
	case []float32:
		g := func(m Mat[T], d []float32) blas32.General {
			return blas32.General{Rows: m.Rows, Cols: m.Cols, Stride: m.Stride, Data: d}
		}
		blas32.Gemm(trans(tA), trans(tB), float32(alpha), g(a, ad), g(b, any(b.Data).([]float32)),
			float32(beta), g(c, any(c.Data).([]float32)))
	case []float64:
		g := func(m Mat[T], d []float64) blas64.General {
			return blas64.General{Rows: m.Rows, Cols: m.Cols, Stride: m.Stride, Data: d}
		}
		blas64.Gemm(trans(tA), trans(tB), alpha, g(a, ad), g(b, any(b.Data).([]float64)),
			beta, g(c, any(c.Data).([]float64)))
	}
}
