package record

import (
	"errors"
	"math"
	"time"

	"github.com/normtop/normtop/probes"
)

// Frame payload flags (first byte).
const (
	flagKeyframe = 1 << iota // every predictor is reset before this record
	flagLayers               // Frame.Layers != nil
	flagEval                 // Frame.Eval != nil
	flagSpectrum             // Frame.Spectrum != nil
	flagAlerts               // Frame.Alerts != nil
	flagBatch                // Frame.Batch is known: it follows the bit part (codec_batch.go)
	flagHist                 // Frame.Hists != nil: they follow the batch shape (codec_hist.go)
)

// Per-variant scalar series coded with the XOR predictor.
const (
	scalarTrainLoss = iota
	scalarStepsPerSec
	numScalars
)

// canonicalNaN is math.NaN()'s bit pattern: the "unmeasured" marker that
// costs one bitmap bit. Any other bit pattern, other NaNs included, is
// stored as a value, so every float round-trips bit-exactly.
var canonicalNaN = math.Float64bits(math.NaN())

// codec holds the predictor state shared by the frame encoder and decoder.
// Both sides reset it at every keyframe and update it identically.
type codec struct {
	reg     *registry
	np      int
	values  []xorState // per series id
	scalars []xorState // per variant × numScalars
	masks   []uint64   // previous presence bitmap per variant × layer
	hasMask []bool
	elapsed []int64      // previous Elapsed per variant
	epochs  [][2]float64 // previous two Epochs per variant, newest first
}

// predictEpoch extrapolates the epoch linearly from the previous two: the
// epoch grows by a constant fraction per step, so the prediction is within
// a few ulps and the stored difference of bit patterns is a byte or two.
// The float64 conversion forbids a fused multiply-add, so every platform
// computes the same prediction; a non-finite prediction (whose NaN bits
// differ between CPUs) is replaced by 0.
func (c *codec) predictEpoch(v int) float64 {
	e := c.epochs[v]
	p := float64(2*e[0]) - e[1]
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return 0
	}
	return p
}

func (c *codec) pushEpoch(v int, x float64) { c.epochs[v] = [2]float64{x, c.epochs[v][0]} }

func newCodec(reg *registry) *codec {
	c := &codec{reg: reg, np: len(reg.names)}
	c.values = make([]xorState, len(reg.series))
	c.scalars = make([]xorState, reg.variants*numScalars)
	c.masks = make([]uint64, reg.variants*reg.layers)
	c.hasMask = make([]bool, reg.variants*reg.layers)
	c.elapsed = make([]int64, reg.variants)
	c.epochs = make([][2]float64, reg.variants)
	return c
}

func (c *codec) reset() {
	clear(c.values)
	clear(c.scalars)
	clear(c.masks)
	clear(c.hasMask)
	clear(c.elapsed)
	clear(c.epochs)
}

// errFrameInvalid wraps Write's refusals (user errors, not I/O).
var errFrameInvalid = errors.New("invalid frame")

// encode appends f's payload to dst. keyframe resets the predictors first.
// It returns the number of probe values stored (present in the bitmaps).
func (c *codec) encode(dst []byte, f *probes.Frame, keyframe bool) ([]byte, int) {
	if keyframe {
		c.reset()
	}
	v := f.Variant
	e := enc{b: dst}
	e.u8(frameFlags(f, keyframe))
	e.uvarint(uint64(v))
	e.varint(int64(f.Step))
	e.u8(byte(f.Status))
	e.varint(int64(f.Elapsed) - c.elapsed[v])
	c.elapsed[v] = int64(f.Elapsed)
	// Bit patterns subtract with wrap-around, so any float (NaN, sign
	// change) round-trips; only the size depends on the prediction.
	e.varint(int64(math.Float64bits(f.Epoch) - math.Float64bits(c.predictEpoch(v))))
	c.pushEpoch(v, f.Epoch)
	if f.Layers != nil {
		e.uvarint(uint64(len(f.Layers)))
	}
	if f.Eval != nil {
		e.uvarint(uint64(len(f.Eval)))
		for _, ev := range f.Eval {
			e.eval(ev)
		}
	}
	if s := f.Spectrum; s != nil {
		e.spectrum(s)
	}
	if f.Alerts != nil {
		e.uvarint(uint64(len(f.Alerts)))
		for _, a := range f.Alerts {
			e.alert(a)
		}
	}
	w := bitWriter{buf: e.b}
	sc := c.scalars[v*numScalars:]
	putXOR(&w, &sc[scalarTrainLoss], math.Float64bits(f.TrainLoss))
	putXOR(&w, &sc[scalarStepsPerSec], math.Float64bits(f.StepsPerSec))
	n := 0
	for l := range f.Layers {
		n += c.encodeLayer(&w, v, l, &f.Layers[l])
	}
	e.b = w.finish()
	if f.Batch.Known() {
		e.batch(f.Batch)
	}
	if f.Hists != nil {
		e.hists(f.Hists)
	}
	return e.b, n
}

// frameFlags is the first byte of f's payload: which optional parts follow.
func frameFlags(f *probes.Frame, keyframe bool) byte {
	var flags byte
	if keyframe {
		flags |= flagKeyframe
	}
	if f.Layers != nil {
		flags |= flagLayers
	}
	if f.Eval != nil {
		flags |= flagEval
	}
	if f.Spectrum != nil {
		flags |= flagSpectrum
	}
	if f.Alerts != nil {
		flags |= flagAlerts
	}
	if f.Batch.Known() {
		flags |= flagBatch
	}
	if f.Hists != nil {
		flags |= flagHist
	}
	return flags
}

// encodeLayer writes layer l of variant v: its presence bitmap (one bit
// when it is the layer's previous one), then each present value through its
// predictor. It returns the number of values written.
func (c *codec) encodeLayer(w *bitWriter, v, l int, lv *probes.LayerValues) int {
	var mask uint64
	for p := 0; p < c.np; p++ {
		if math.Float64bits(lv[p]) != canonicalNaN {
			mask |= 1 << p
		}
	}
	mi := v*c.reg.layers + l
	if c.hasMask[mi] && c.masks[mi] == mask {
		w.writeBits(1, 1)
	} else {
		w.writeBits(0, 1)
		w.writeBits(mask, uint(c.np))
		c.masks[mi], c.hasMask[mi] = mask, true
	}
	n := 0
	base := c.reg.id(v, l, 0)
	for p := 0; p < c.np; p++ {
		if mask&(1<<p) != 0 {
			putXOR(w, &c.values[base+p], math.Float64bits(lv[p]))
			n++
		}
	}
	return n
}

// peekFrame reads the flags, variant and step at the start of a frame
// payload without touching predictor state (for seek scans).
func peekFrame(b []byte) (keyframe bool, variant, step int, ok bool) {
	d := dec{b: b}
	flags := d.u8()
	variant = int(d.uvarint())
	step = d.int()
	return flags&flagKeyframe != 0, variant, step, !d.bad
}

var errUndecodable = errors.New("undecodable frame record")

// decode parses one frame payload, updating the predictors exactly as
// encode did. On error the predictor state is unreliable: the caller must
// wait for the next keyframe.
func (c *codec) decode(b []byte) (probes.Frame, error) {
	var f probes.Frame
	d := dec{b: b}
	flags := d.u8()
	if flags&flagKeyframe != 0 {
		c.reset()
	}
	uv := d.uvarint()
	if d.bad || uv >= uint64(c.reg.variants) {
		return f, errUndecodable
	}
	v := int(uv)
	f.Variant = v
	f.Step = d.int()
	f.Status = probes.Status(d.u8())
	c.elapsed[v] += d.varint()
	f.Elapsed = time.Duration(c.elapsed[v])
	f.Epoch = math.Float64frombits(math.Float64bits(c.predictEpoch(v)) + uint64(d.varint()))
	c.pushEpoch(v, f.Epoch)
	nl := 0
	if flags&flagLayers != 0 {
		n := d.uvarint()
		// Each layer costs at least one bit, which bounds the allocation
		// below by the payload's size.
		if n > uint64(c.reg.layers) || n > 8*uint64(len(d.b)) {
			return f, errUndecodable
		}
		nl = int(n)
	}
	if flags&flagEval != 0 {
		n := d.count(minEvalSize)
		f.Eval = make([]probes.Eval, n)
		for i := range f.Eval {
			f.Eval[i] = d.eval()
		}
	}
	if flags&flagSpectrum != 0 {
		if f.Spectrum = d.spectrum(); d.bad {
			return f, errUndecodable
		}
	}
	if flags&flagAlerts != 0 {
		n := d.count(minAlertSize)
		f.Alerts = make([]probes.Alert, n)
		for i := range f.Alerts {
			f.Alerts[i] = d.alert()
		}
	}
	if d.bad {
		return f, errUndecodable
	}
	r := bitReader{buf: d.b}
	sc := c.scalars[v*numScalars:]
	f.TrainLoss = math.Float64frombits(getXOR(&r, &sc[scalarTrainLoss]))
	f.StepsPerSec = math.Float64frombits(getXOR(&r, &sc[scalarStepsPerSec]))
	if flags&flagLayers != 0 {
		f.Layers = make([]probes.LayerValues, nl)
	}
	for l := 0; l < nl; l++ {
		lv, ok := c.decodeLayer(&r, v, l)
		if !ok {
			return f, errUndecodable
		}
		f.Layers[l] = lv
	}
	if r.bad {
		return f, errUndecodable
	}
	// The bit part ends with the byte its last bit is in.
	t := dec{b: r.buf[r.pos:]}
	if flags&flagBatch != 0 {
		if f.Batch = t.batch(); t.bad {
			return f, errUndecodable
		}
	}
	if flags&flagHist != 0 {
		if f.Hists = t.hists(c.reg.layers); t.bad {
			return f, errUndecodable
		}
	}
	return f, nil
}

// decodeLayer reads layer l of variant v as encodeLayer wrote it. It is
// false when the bitmap says "as before" and there is no earlier one.
func (c *codec) decodeLayer(r *bitReader, v, l int) (probes.LayerValues, bool) {
	lv := probes.EmptyLayerValues()
	mi := v*c.reg.layers + l
	var mask uint64
	if r.readBit() {
		if !c.hasMask[mi] {
			return lv, false
		}
		mask = c.masks[mi]
	} else {
		mask = r.readBits(uint(c.np))
		c.masks[mi], c.hasMask[mi] = mask, true
	}
	base := c.reg.id(v, l, 0)
	for p := 0; p < c.np; p++ {
		if mask&(1<<p) == 0 {
			continue
		}
		x := getXOR(r, &c.values[base+p])
		if q := c.reg.toProbe[p]; q < probes.NumProbes {
			lv[q] = math.Float64frombits(x)
		}
	}
	return lv, true
}
