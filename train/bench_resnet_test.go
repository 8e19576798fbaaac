package train

import (
	"testing"

	"github.com/normtop/normtop/probes"
)

// BenchmarkResNetSteps reports training steps per second of the resnet
// preset (one variant, default probes), and a step's allocations: the
// per-row variants are not defined on its image sites, so it has its own
// list beside BenchmarkSteps'.
func BenchmarkResNetSteps(b *testing.B) {
	for _, variant := range []string{"none", "batchnorm", "pn-v", "powernorm"} {
		b.Run("resnet/"+variant, func(b *testing.B) {
			r := benchRunner(b, ResNetConfig(), variant, probes.DefaultIntervals())
			benchSteps(b, r)
		})
	}
	// ResNet-20's own size (widths 16/32/64, three blocks per stage) on the
	// same data: the ratio to resnet/batchnorm is what the narrowing buys.
	b.Run("resnet20-size/batchnorm", func(b *testing.B) {
		defer func(w [3]int, n int) { resnetWidths, resnetBlocks = w, n }(resnetWidths, resnetBlocks)
		resnetWidths, resnetBlocks = [3]int{16, 32, 64}, 3
		r := benchRunner(b, ResNetConfig(), "batchnorm", probes.DefaultIntervals())
		benchSteps(b, r)
	})
}
