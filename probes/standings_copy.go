package probes

// CopyTo makes dst hold what t holds, reusing dst's slices, so that a
// consumer on another goroutine (the live dashboard) can draw on the one
// fold of the run (the writer's) without folding the Frames again: the
// producer copies under a lock (Feed.PushFolded), the consumer copies out
// under the same lock (Feed.DrainFolded). dst keeps its Variants slice and
// its elements' addresses (consumers may hold pointers to them); it must
// have t's variant count. Val and Test point to Evals a Fold never changes
// again (addEval stores a fresh copy), so they are shared, not copied.
func (t *Standings) CopyTo(dst *Standings) {
	if len(dst.Variants) != len(t.Variants) {
		panic("probes: Standings.CopyTo between runs of different variant counts")
	}
	for i := range t.Variants {
		src, d := &t.Variants[i], &dst.Variants[i]
		evals, outliers := d.Evals, d.Outliers
		*d = *src
		d.Evals = append(evals[:0], src.Evals...)
		d.Outliers = append(outliers[:0], src.Outliers...)
	}
}
