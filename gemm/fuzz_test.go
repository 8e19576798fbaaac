package gemm

import "testing"

// FuzzSgemm checks Sgemm against the float64 reference on fuzzed shapes,
// transposes, paddings and scalars (sizes up to 63×300×63, enough to
// cross the register blocks in m and n and the cache block in k), through
// each float32 kernel the CPU has.
func FuzzSgemm(f *testing.F) {
	f.Add(uint8(1), uint16(1), uint8(1), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint64(1))
	f.Add(uint8(7), uint16(13), uint8(5), uint8(3), uint8(1), uint8(2), uint8(3), uint8(1), uint64(2))
	f.Add(uint8(6), uint16(257), uint8(16), uint8(1), uint8(0), uint8(0), uint8(0), uint8(2), uint64(3))
	f.Add(uint8(13), uint16(0), uint8(17), uint8(2), uint8(4), uint8(4), uint8(4), uint8(5), uint64(4))
	f.Fuzz(func(t *testing.T, m uint8, k uint16, n uint8, trans, padA, padB, padC, scalars uint8, seed uint64) {
		ab := [][2]float64{{1, 0}, {1, 1}, {-0.5, 0.25}, {0, 0.5}, {2, 0}, {1, 0}}[scalars%6]
		p := problem{
			m: int(m % 64), k: int(k % 301), n: int(n % 64),
			tA: trans&1 != 0, tB: trans&2 != 0,
			alpha: ab[0], beta: ab[1],
			padA: int(padA % 8), padB: int(padB % 8), padC: int(padC % 8),
			nanC: scalars%6 == 5,
		}
		for _, k := range float32Kernels {
			if k.wide && !haveAVX512 {
				continue
			}
			restore := useKernel(t, k)
			check(t, p, seed, u32, Implementation{}.Sgemm)
			restore()
		}
	})
}
