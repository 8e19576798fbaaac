package nn

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzExpShiftSum feeds arbitrary float32 bit patterns (NaN payloads,
// subnormals, infinities) and shifts to exp's kernel, which must stay
// within 2 ulps of math.Exp, never write past y, give the same sum with and
// without y, and agree with maxOf's Go loop on NaN-free input.
func FuzzExpShiftSum(f *testing.F) {
	f.Add([]byte{}, float32(0))
	f.Add(bits32(1, -1, 0.5, 88.7, -103.9, 0, 3, 2, 1), float32(0.25))
	f.Add(bits32(float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-45, -1e-45), float32(-2))
	f.Fuzz(func(t *testing.T, raw []byte, s float32) {
		x := make([]float32, len(raw)/4)
		for i := range x {
			x[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		checkExpShiftSum(t, x, s)
		nan := false
		for _, v := range x {
			nan = nan || v != v
		}
		if !nan {
			var goMax float32
			withAVX(false, func() { goMax = maxOf(x) })
			if m := maxOf(x); m != goMax {
				t.Fatalf("max %v, Go loop %v", m, goMax)
			}
		}
	})
}

func bits32(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}
