package datasets

import "math/rand/v2"

// pcgStream is the fixed PCG stream (increment) paired with the user's seed:
// the seed alone decides the sequence.
const pcgStream = 0x6e6f726d746f70 // "normtop"

func newRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), pcgStream))
}

// fillOrder writes 0..len(order)-1 into order, shuffled when rng is non-nil.
func fillOrder(order []int32, rng *rand.Rand) {
	for i := range order {
		order[i] = int32(i)
	}
	if rng != nil {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
}
