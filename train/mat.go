package train

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// mat is a strided row-major view into a float slice.
type mat[T float] struct {
	data               []T
	rows, cols, stride int
}

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// mul is c = alpha·op(a)·op(b) + beta·c with gonum's blas32/blas64 entry
// points, which run the BLAS gemm.Install put behind them (blas.go), the
// same one gorgonia's own matrix products use.
func mul[T float](tA, tB bool, alpha float64, a, b mat[T], beta float64, c mat[T]) {
	switch ad := any(a.data).(type) {
	case []float32:
		g := func(m mat[T], d []float32) blas32.General {
			return blas32.General{Rows: m.rows, Cols: m.cols, Stride: m.stride, Data: d}
		}
		blas32.Gemm(trans(tA), trans(tB), float32(alpha), g(a, ad), g(b, any(b.data).([]float32)),
			float32(beta), g(c, any(c.data).([]float32)))
	case []float64:
		g := func(m mat[T], d []float64) blas64.General {
			return blas64.General{Rows: m.rows, Cols: m.cols, Stride: m.stride, Data: d}
		}
		blas64.Gemm(trans(tA), trans(tB), alpha, g(a, ad), g(b, any(b.data).([]float64)),
			beta, g(c, any(c.data).([]float64)))
	}
}
