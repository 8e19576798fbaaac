package record

import (
	"fmt"

	"github.com/normtop/normtop/probes"
)

// registry maps compact series ids to (variant, layer, probe). The writer
// numbers series densely, id = (variant·L + layer)·P + probe, but writes
// the table out explicitly and stores probe names, not numbers, so a reader
// built with a different probe list still maps every value to the right
// probe (or drops probes it does not know).
type registry struct {
	variants, layers int
	names            []string       // probe names in file order (P = len)
	toProbe          []probes.Probe // file probe index → this build's probe; NumProbes = unknown
	series           []seriesKey    // id → key
}

// seriesKey names one series: a probe of one layer of one variant.
type seriesKey struct {
	Variant, Layer int
	Probe          probes.Probe
	Name           string // probe name as stored in the file
}

// maxRegistryProbes bounds P: a layer's presence bitmap is one uint64.
const maxRegistryProbes = 64

// MaxSeries bounds variants × layers × probes, so that a forged header
// cannot make a reader, or what consumes its frames (a report keeps a
// summary per series), allocate without limit: predictor state is 24 bytes
// a series, 6 MiB at the bound. A real run is far below it: 11 variants ×
// 100 layers × 24 probes is 26,400. The writer refuses a larger run, and
// the reader refuses a header over it before building anything per series
// (run files and streams alike; docs/formats.md "Limits").
const MaxSeries = 1 << 16

// seriesOver reports whether variants × layers × probes is over MaxSeries,
// without overflowing on forged counts.
func seriesOver(variants, layers, probes int) bool {
	if variants < 0 || layers < 0 || probes < 1 {
		return true
	}
	if variants == 0 || layers == 0 {
		return false
	}
	return variants > MaxSeries || layers > MaxSeries/variants || variants*layers > MaxSeries/probes
}

// seriesError is the one message for a run over MaxSeries.
func seriesError(variants, layers, probes int) error {
	return fmt.Errorf("%d variants × %d layers × %d probes is over the %d-series limit (docs/formats.md)", variants, layers, probes, MaxSeries)
}

func newRegistry(meta probes.RunMeta) *registry {
	r := &registry{variants: len(meta.Variants), layers: len(meta.Layers)}
	for p := probes.Probe(0); p < probes.NumProbes; p++ {
		r.names = append(r.names, p.String())
		r.toProbe = append(r.toProbe, p)
	}
	for v := 0; v < r.variants; v++ {
		for l := 0; l < r.layers; l++ {
			for p := range r.names {
				r.series = append(r.series, seriesKey{v, l, probes.Probe(p), r.names[p]})
			}
		}
	}
	return r
}

func (r *registry) id(v, l, p int) int { return (v*r.layers+l)*len(r.names) + p }

func (r *registry) encode() []byte {
	var e enc
	e.uvarint(uint64(r.variants))
	e.uvarint(uint64(r.layers))
	e.uvarint(uint64(len(r.names)))
	for _, n := range r.names {
		e.str(n)
	}
	e.uvarint(uint64(len(r.series)))
	for _, k := range r.series {
		e.uvarint(uint64(k.Variant))
		e.uvarint(uint64(k.Layer))
		e.uvarint(uint64(k.Probe))
	}
	return e.b
}

// decodeRegistry checks the table against the header's variant and layer
// counts and the dense numbering this version's decoder relies on.
func decodeRegistry(b []byte, meta probes.RunMeta) (*registry, error) {
	d := dec{b: b}
	r := &registry{variants: int(d.uvarint()), layers: int(d.uvarint())}
	np := d.count(1)
	if d.bad || np == 0 || np > maxRegistryProbes {
		return nil, fmt.Errorf("registry: bad probe count")
	}
	for i := 0; i < np; i++ {
		n := d.str()
		r.names = append(r.names, n)
		p, ok := probes.ProbeByName(n)
		if !ok {
			p = probes.NumProbes
		}
		r.toProbe = append(r.toProbe, p)
	}
	if !d.bad && seriesOver(r.variants, r.layers, np) {
		return nil, seriesError(r.variants, r.layers, np)
	}
	if d.bad || r.variants != len(meta.Variants) || r.layers != len(meta.Layers) {
		return nil, fmt.Errorf("registry: %d variants × %d layers does not match the header's %d × %d",
			r.variants, r.layers, len(meta.Variants), len(meta.Layers))
	}
	ns := d.count(3)
	if d.bad || ns != r.variants*r.layers*np {
		return nil, fmt.Errorf("registry: %d series, want %d", ns, r.variants*r.layers*np)
	}
	r.series = make([]seriesKey, 0, ns)
	for i := 0; i < ns; i++ {
		uv, ul, up := d.uvarint(), d.uvarint(), d.uvarint()
		if d.bad || uv >= uint64(r.variants) || ul >= uint64(r.layers) || up >= uint64(np) {
			return nil, fmt.Errorf("registry: series %d is out of range", i)
		}
		v, l, p := int(uv), int(ul), int(up)
		if r.id(v, l, p) != i {
			return nil, fmt.Errorf("registry: series %d is not in dense order", i)
		}
		r.series = append(r.series, seriesKey{v, l, r.toProbe[p], r.names[p]})
	}
	return r, nil
}
