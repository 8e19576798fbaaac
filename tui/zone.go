package tui

// zoneKind is what a clickable region of the screen selects.
type zoneKind uint8

const (
	zoneTab     zoneKind = iota // val: a Screen
	zoneChart                   // the plot area: x maps to steps lo..hi
	zoneVariant                 // val: a variant index
	zoneLayer                   // val: a layer index
	zoneSort                    // val: a summary column
	zoneProbe                   // val: a probes.Probe
)

// zone is a clickable rectangle of the last drawn screen, cells [x0, x1) ×
// [y0, y1). Screens record their zones while they draw, so the mouse hits
// what is shown.
type zone struct {
	kind           zoneKind
	x0, x1, y0, y1 int
	val            int
	lo, hi         int // zoneChart: the steps of columns x0 and x1-1
}

func (z *zone) has(x, y int) bool { return x >= z.x0 && x < z.x1 && y >= z.y0 && y < z.y1 }

// stepAt is the step under column x of a chart zone.
func (z *zone) stepAt(x int) int {
	w := max(z.x1-z.x0, 1)
	return z.lo + int(int64(x-z.x0)*int64(z.hi-z.lo+1)/int64(w))
}

// hit is the zone under (x, y), the last recorded first (one drawn over
// another wins), or nil.
func hit(zs []zone, x, y int) *zone {
	for i := len(zs) - 1; i >= 0; i-- {
		if zs[i].has(x, y) {
			return &zs[i]
		}
	}
	return nil
}
