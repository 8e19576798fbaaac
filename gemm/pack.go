package gemm

import "unsafe"

// Packing: the copies of A and B into the panel layouts the micro-kernels
// read (driver.go decides when to pack).

// packB copies op(B)[pc:pc+kc, jc:jc+nc] into panels of nr columns, each
// kc rows of nr contiguous elements, the last one zero padded.
func packB[T float](tB bool, b []T, ldb, pc, kc, jc, nc, nr int, dst []T) {
	for jr := 0; jr < nc; jr += nr {
		nw := min(nr, nc-jr)
		pan := dst[jr*kc : jr*kc+kc*nr]
		if !tB && nw == nr && copyRows(pan, b[pc*ldb+jc+jr:], ldb, kc, nr) {
			continue
		}
		if !tB {
			for p := 0; p < kc; p++ {
				src := b[(pc+p)*ldb+jc+jr:]
				row := pan[p*nr : p*nr+nr]
				copy(row, src[:nw])
				clear(row[nw:])
			}
			continue
		}
		// B is stored n×k: column j of op(B) is row j of B.
		if packTransposed(b, ldb, pc, kc, jc+jr, nw, nr, pan) {
			continue
		}
		// Four rows at a time, so each p writes four neighbours of one
		// cache line.
		j := 0
		for ; j+4 <= nw; j += 4 {
			r0 := b[(jc+jr+j)*ldb+pc:][:kc]
			r1 := b[(jc+jr+j+1)*ldb+pc:][:kc]
			r2 := b[(jc+jr+j+2)*ldb+pc:][:kc]
			r3 := b[(jc+jr+j+3)*ldb+pc:][:kc]
			for p := range r0 {
				d := (*[4]T)(pan[p*nr+j:])
				d[0], d[1], d[2], d[3] = r0[p], r1[p], r2[p], r3[p]
			}
		}
		for ; j < nw; j++ {
			for p, v := range b[(jc+jr+j)*ldb+pc:][:kc] {
				pan[p*nr+j] = v
			}
		}
		if nw < nr {
			for p := 0; p < kc; p++ {
				clear(pan[p*nr+nw : p*nr+nr])
			}
		}
	}
}

// packTransposed is packB's panel of a transposed B (nw of its rows,
// from row j0, columns pc to pc+kc, into a panel nr wide) by transpose16,
// 16 rows by 16 columns at a time, the columns past the last whole 16 by
// a Go loop. It reports false where it did nothing: float64, no AVX-512,
// a panel width that is not a multiple of 16, or kc under 16. In the word
// LM at d 512 the Go loop packed at 3.5-4 GB/s, 1-1.2 ms for each input
// gradient's 1-million-element weight, and the attention products' scores
// (QKᵀ of 14-176 rows by 128) spent more time packing K than multiplying.
func packTransposed[T float](b []T, ldb, pc, kc, j0, nw, nr int, pan []T) bool {
	var z T
	if !useTranspose16 || unsafe.Sizeof(z) != 4 || kc < 16 || nr%16 != 0 || len(pan) < kc*nr {
		return false
	}
	kb := kc / 16
	if len(b) < (j0+nw-1)*ldb+pc+kb*16 {
		return false
	}
	f32 := func(x *T) *float32 { return (*float32)(unsafe.Pointer(x)) }
	for g := 0; g < nr; g += 16 {
		if g >= nw { // zero padding: a group with no rows of B
			for p := 0; p < kb*16; p++ {
				clear(pan[p*nr+g : p*nr+g+16])
			}
			continue
		}
		transpose16(f32(&pan[g]), nr, f32(&b[(j0+g)*ldb+pc]), ldb, min(16, nw-g), kb)
	}
	for p := kb * 16; p < kc; p++ {
		row := pan[p*nr : p*nr+nr]
		for j := range nw {
			row[j] = b[(j0+j)*ldb+pc+p]
		}
		clear(row[nw:])
	}
	return true
}

// packA copies rows (any number) of an A block into panels of mr rows,
// element (i, p) of a panel at dst[p·mr + i], a last partial panel zero
// padded.
func packA[T float](mr int, a []T, rsa, csa, rows, kc int, dst []T) {
	for i0 := 0; i0 < rows; i0 += mr {
		pan := dst[i0*kc : i0*kc+mr*kc]
		n := min(mr, rows-i0)
		if n == mr && rsa == 1 && packContiguous(mr, a[i0:], csa, kc, pan) {
			continue
		}
		if n < mr {
			clear(pan) // the padding rows, in one call rather than one a p
		}
		if csa == 1 {
			// an untransposed A's partial panel (a last register block of
			// fewer rows, as attention's per-head products of 14-176 rows
			// have): each row is contiguous, so walk it once and write
			// every mr-th element, where a p at a time read n rows a
			// line apart and cleared the padding with a call each p
			for i := 0; i < n; i++ {
				row := a[(i0+i)*rsa:][:kc]
				for p, v := range row {
					pan[p*mr+i] = v
				}
			}
			continue
		}
		for p := 0; p < kc; p++ {
			d := pan[p*mr : p*mr+mr]
			for i := 0; i < n; i++ {
				d[i] = a[(i0+i)*rsa+p*csa]
			}
		}
	}
}

// packContiguous is packA's panel when op(A)'s mr rows are contiguous for
// each p: fixed-size copies, where a copy() per p would call memmove. It
// reports false for an mr it has no case for.
func packContiguous[T float](mr int, a []T, csa, kc int, pan []T) bool {
	if copyRows(pan, a, csa, kc, mr) {
		return true
	}
	switch mr {
	case 6:
		for p := 0; p < kc; p++ {
			*(*[6]T)(pan[p*6:]) = *(*[6]T)(a[p*csa:])
		}
	case 8:
		for p := 0; p < kc; p++ {
			*(*[8]T)(pan[p*8:]) = *(*[8]T)(a[p*csa:])
		}
	default:
		return false
	}
	return true
}

// copyRows copies rows rows of w elements, row p from src[p·ld:] to
// dst[p·w:], with the assembly copy where there is one and a row is a
// whole number of 32-byte moves; it reports false where it did nothing.
// Every source row must be in src, the last one too.
func copyRows[T float](dst, src []T, ld, rows, w int) bool {
	var z T
	f := int(unsafe.Sizeof(z)) / 4 // float32s per element
	if !haveKernels || rows == 0 || w*f%8 != 0 || len(dst) < rows*w || len(src) < (rows-1)*ld+w {
		return false
	}
	copyRows32((*float32)(unsafe.Pointer(&dst[0])), (*float32)(unsafe.Pointer(&src[0])), ld*f, rows, w*f)
	return true
}
