package simd

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// Every fact needs AVX and FMA, and each names exactly the features its
// kernels use: a kernel package reading one of them can rely on that.
func TestFactsFollowTheFeatures(t *testing.T) {
	x := cpu.X86
	for _, c := range []struct {
		name      string
		got, want bool
	}{
		{"AVXFMA", AVXFMA, x.HasAVX && x.HasFMA},
		{"AVX2FMA", AVX2FMA, x.HasAVX && x.HasFMA && x.HasAVX2},
		{"AVX512F", AVX512F, x.HasAVX && x.HasFMA && x.HasAVX512F},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v (AVX %v, FMA %v, AVX2 %v, AVX-512F %v)",
				c.name, c.got, c.want, x.HasAVX, x.HasFMA, x.HasAVX2, x.HasAVX512F)
		}
	}
}
