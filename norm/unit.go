package norm

import (
	"fmt"

	"github.com/normtop/normtop/normspec"
)

// The normalization unit of the norm zoo (docs/math.md §8). A unit is a block
// of m = d/G consecutive features of one sample, over the sample's R
// consecutive rows (its real rows, when a mask marks padding):
//
//	groupnorm, image site (Spatial):  R = H·W rows, G groups of C/G channels
//	groupnorm, token or fc rows:      R = 1 (each row),  G groups of d/G features
//	instancenorm:                     R = the sample's rows, G = d (one feature)
//
// so groupnorm with G = 1 on one row is layernorm, and groupnorm with G = C
// on an image site is instancenorm.

// defaultGroupNormGroups is PyTorch's and Wu & He's default G, clamped to d.
const defaultGroupNormGroups = 32

// setUnit fixes the unit of a groupnorm or instancenorm layer from its
// config and site, or says why the site cannot have it.
func (l *Layer) setUnit(name string) error {
	d, rows := l.site.D, max(l.site.SampleRows, 1)
	switch l.cfg.Kind {
	case normspec.GroupNorm:
		g := l.cfg.Groups
		if g == 0 {
			g = min(defaultGroupNormGroups, d)
			if d%g != 0 {
				return fmt.Errorf("norm: %s: groupnorm: the default groups=%d does not divide d=%d channels; give groups=G with G dividing %d", name, g, d, d)
			}
		}
		if d%g != 0 {
			return fmt.Errorf("norm: %s: groupnorm: groups=%d does not divide d=%d channels", name, g, d)
		}
		l.unitGroups, l.unitRows = g, 1
		if l.site.Spatial {
			l.unitRows = rows
		}
	default: // instancenorm
		if rows < 2 {
			return fmt.Errorf("norm: %s: instancenorm normalises each feature over a sample's positions, and this site has one position per sample; use it on a sequence or image site", name)
		}
		l.unitGroups, l.unitRows = d, rows
	}
	return nil
}

// UnitRows and UnitGroups describe the normalization unit of a groupnorm
// or instancenorm layer: rows per sample it spans, and feature groups (0, 0
// for the other variants).
func (l *Layer) UnitRows() int { return l.unitRows }

// UnitGroups: see UnitRows.
func (l *Layer) UnitGroups() int { return l.unitGroups }
