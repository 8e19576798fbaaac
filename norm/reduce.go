package norm

// Row reductions with four independent accumulators: a single float64
// accumulator serialises on the add latency (about four cycles per
// element), which dominated the LayerNorm kernels. The summation order is
// fixed, so results stay deterministic.

func sumOf[T float](v []T) float64 {
	k, s0 := sumOfFast(v)
	var s1, s2, s3 float64
	for ; k+4 <= len(v); k += 4 {
		w := v[k : k+4 : k+4]
		s0 += float64(w[0])
		s1 += float64(w[1])
		s2 += float64(w[2])
		s3 += float64(w[3])
	}
	for ; k < len(v); k++ {
		s0 += float64(v[k])
	}
	return (s0 + s1) + (s2 + s3)
}

func sumSqDev[T float](v []T, mu float64) float64 {
	k, s0 := sumSqDevFast(v, mu)
	var s1, s2, s3 float64
	for ; k+4 <= len(v); k += 4 {
		w := v[k : k+4 : k+4]
		d0 := float64(w[0]) - mu
		d1 := float64(w[1]) - mu
		d2 := float64(w[2]) - mu
		d3 := float64(w[3]) - mu
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; k < len(v); k++ {
		d0 := float64(v[k]) - mu
		s0 += d0 * d0
	}
	return (s0 + s1) + (s2 + s3)
}

// gradSums returns Σg and Σg⊙x̂ over one row with x̂ = (x-μ)·a.
func gradSums[T float](xr, gr []T, mu, a float64) (sg, sgx float64) {
	n := len(xr)
	gr = gr[:n]
	var g0, g1, h0, h1 float64
	k := 0
	for ; k+2 <= n; k += 2 {
		x0 := (float64(xr[k]) - mu) * a
		x1 := (float64(xr[k+1]) - mu) * a
		q0, q1 := float64(gr[k]), float64(gr[k+1])
		g0 += q0
		g1 += q1
		h0 += q0 * x0
		h1 += q1 * x1
	}
	for ; k < n; k++ {
		x0 := (float64(xr[k]) - mu) * a
		q0 := float64(gr[k])
		g0 += q0
		h0 += q0 * x0
	}
	return g0 + g1, h0 + h1
}

// gradSumsAffine returns Σĝ and Σĝ⊙x̂ with ĝ = γ⊙g, and adds g⊙x̂ and g to
// dgam and dbet.
func gradSumsAffine[T float](xr, gr []T, gam []float64, mu, a float64, dgam, dbet []float64) (sg, sgx float64) {
	n := len(xr)
	gr, gam, dgam, dbet = gr[:n], gam[:n], dgam[:n], dbet[:n]
	k, g0, h0 := gradSumsAffineFast(xr, gr, gam, mu, a, dgam, dbet)
	var g1, h1 float64
	for ; k+2 <= n; k += 2 {
		x0 := (float64(xr[k]) - mu) * a
		x1 := (float64(xr[k+1]) - mu) * a
		q0, q1 := float64(gr[k]), float64(gr[k+1])
		dgam[k] += q0 * x0
		dgam[k+1] += q1 * x1
		dbet[k] += q0
		dbet[k+1] += q1
		q0 *= gam[k]
		q1 *= gam[k+1]
		g0 += q0
		g1 += q1
		h0 += q0 * x0
		h1 += q1 * x1
	}
	for ; k < n; k++ {
		x0 := (float64(xr[k]) - mu) * a
		q0 := float64(gr[k])
		dgam[k] += q0 * x0
		dbet[k] += q0
		q0 *= gam[k]
		g0 += q0
		h0 += q0 * x0
	}
	return g0 + g1, h0 + h1
}
