package record

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/normtop/normtop/probes"
)

// rankMerge reads the streams of the other ranks of a distributed run
// (listed in rank 0's header, docs/formats.md "Several ranks") alongside rank 0's
// own, and shows every rank's variants side by side: rank k's variant v is
// variant k·V + v, labelled "<spec>@rank<k>". The ranks run the same model,
// so rank 0's header stands for all of them; another rank's frames are
// mapped by variant and layer name, and what rank 0 does not name is
// dropped.
type rankMerge struct {
	dir   string // the first stream's directory: every rank's stream must lie in it
	meta  probes.RunMeta
	nVar  int // variants per rank
	own   *probes.Frame
	ranks []*rankStream
	// target is the step of the last Seek (0: none): a rank whose file
	// appears later starts there too, as the ranks opened at the seek did.
	target int
	// Missing ranks are looked for at the first read, at the first read
	// after an io.EOF (a new poll) and every rankRetryFrames in between.
	afterEOF   bool
	tried      bool
	sinceRetry int // frames returned since missing ranks were last looked for
	opens      int // attempts to open a missing rank's file (tests count them)
}

// rankRetryFrames: between polls, missing ranks' files are looked for again
// after this many frames. Looking for every missing file at every frame
// cost 5,000 listed ranks 9 s for a short stream; a count (not a clock)
// keeps the work per frame bounded however slow the machine is.
const rankRetryFrames = 1024

type rankStream struct {
	rank   int
	path   string
	r      *Reader // nil until the file is there with a complete header
	failed error   // opened, but not as a stream: given up
	la     *probes.Frame
	vmap   []int // the stream's variant → this run's variant (−1: dropped)
	lmap   []int // the stream's layer → this run's layer (−1: dropped)
}

func newRankMerge(path string, m probes.RunMeta, streams []string) *rankMerge {
	rm := &rankMerge{nVar: len(m.Variants)}
	rm.meta = m
	rm.meta.Variants = nil
	for k := 0; k <= len(streams); k++ {
		for _, v := range m.Variants {
			spec := v.Spec
			if spec == "" {
				spec = v.Name
			}
			rm.meta.Variants = append(rm.meta.Variants, probes.VariantMeta{Name: v.Name, Spec: spec + "@rank" + strconv.Itoa(k)})
		}
	}
	dir := filepath.Dir(path)
	rm.dir = dir
	for k, s := range streams {
		// parseStreamHeader let only local names through.
		rm.ranks = append(rm.ranks, &rankStream{rank: k + 1, path: filepath.Join(dir, s)})
	}
	return rm
}

// open tries to open a rank's stream that was not there yet.
// openMissing looks for the ranks not opened yet, when it is time to.
func (rm *rankMerge) openMissing(force bool) {
	if rm.tried && !force && rm.sinceRetry < rankRetryFrames {
		return
	}
	rm.tried, rm.sinceRetry = true, 0
	for _, rs := range rm.ranks {
		rm.open(rs)
	}
}

func (rm *rankMerge) open(rs *rankStream) {
	if rs.r != nil || rs.failed != nil {
		return
	}
	rm.opens++
	if err := staysInDir(rm.dir, rs.path); err != nil {
		rs.failed = err
		return
	}
	r, err := openStream(rs.path)
	if err != nil {
		if errors.Is(err, ErrIncompleteHeader) || errors.Is(err, os.ErrNotExist) || !fileExists(rs.path) {
			return // not written yet: try again a little later
		}
		rs.failed = err
		return
	}
	if rm.target > 0 {
		r.Seek(rm.target)
	}
	m := r.Meta()
	rs.vmap = make([]int, len(m.Variants))
	for i, v := range m.Variants {
		rs.vmap[i] = -1
		for j, w := range rm.meta.Variants[:rm.nVar] {
			if w.Name == v.Name {
				rs.vmap[i] = rs.rank*rm.nVar + j
				break
			}
		}
	}
	rs.lmap = make([]int, len(m.Layers))
	for i, l := range m.Layers {
		rs.lmap[i] = -1
		for j, n := range rm.meta.Layers {
			if n == l {
				rs.lmap[i] = j
				break
			}
		}
	}
	rs.r = r
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// fill reads a rank's next frame into its lookahead, mapped to this run.
func (rm *rankMerge) fill(rs *rankStream) error {
	for rs.r != nil && rs.la == nil {
		f, err := rs.r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if f.Variant < 0 || f.Variant >= len(rs.vmap) || rs.vmap[f.Variant] < 0 {
			continue
		}
		f.Variant = rs.vmap[f.Variant]
		if f.Layers != nil {
			ls := make([]probes.LayerValues, len(rm.meta.Layers))
			for i := range ls {
				ls[i] = probes.EmptyLayerValues()
			}
			for i, v := range f.Layers {
				if rs.lmap[i] >= 0 {
					ls[rs.lmap[i]] = v
				}
			}
			f.Layers = ls
		}
		for i := range f.Alerts {
			if l := f.Alerts[i].Layer; l >= 0 {
				f.Alerts[i].Layer = -1
				if l < len(rs.lmap) {
					f.Alerts[i].Layer = rs.lmap[l]
				}
			}
		}
		f.Hists = rm.rankHists(rs, f.Hists)
		rs.la = &f
	}
	return nil
}

// next returns the frame with the smallest step among rank 0's next one and
// the other ranks' lookaheads, so that the ranks advance together.
func (rm *rankMerge) next(own *streamFile) (probes.Frame, error) {
	rm.openMissing(rm.afterEOF)
	rm.afterEOF = false
	if rm.own == nil {
		f, err := own.nextOwn()
		if err == nil {
			rm.own = &f
		} else if !errors.Is(err, io.EOF) {
			return f, err
		}
	}
	best := rm.own
	var from *rankStream
	for _, rs := range rm.ranks {
		if err := rm.fill(rs); err != nil {
			return probes.Frame{}, fmt.Errorf("rank %d: %w", rs.rank, err)
		}
		if rs.la != nil && (best == nil || rs.la.Step < best.Step) {
			best, from = rs.la, rs
		}
	}
	if best == nil {
		rm.afterEOF = true
		return probes.Frame{}, io.EOF
	}
	if from == nil {
		rm.own = nil
	} else {
		from.la = nil
	}
	rm.sinceRetry++
	return *best, nil
}

// moreToRead reports whether a frame waits in a lookahead or whole lines
// lie after some rank's read position (own: rank 0's answer).
func (rm *rankMerge) moreToRead(own bool) bool {
	if own || rm.own != nil {
		return true
	}
	for _, rs := range rm.ranks {
		if rs.la != nil || rs.r != nil && rs.r.src.moreToRead() {
			return true
		}
	}
	return false
}

func (rm *rankMerge) seek(step int) {
	rm.own, rm.target = nil, step
	for _, rs := range rm.ranks {
		rs.la = nil
		if rs.r != nil {
			rs.r.Seek(step)
		}
	}
}

func (rm *rankMerge) lastStep() int64 {
	m := int64(noStep)
	rm.openMissing(false)
	for _, rs := range rm.ranks {
		if rs.r != nil {
			if s, ok := rs.r.LastStep(); ok {
				m = max(m, int64(s))
			}
		}
	}
	return m
}

// state combines rank 0's state with the others': writing while any rank
// writes; complete when every rank is; otherwise unterminated.
func (rm *rankMerge) state(own State) State {
	all := own
	rm.openMissing(false)
	for _, rs := range rm.ranks {
		s := Unterminated
		if rs.r != nil {
			s = rs.r.State()
		}
		switch {
		case s == Writing || all == Writing:
			all = Writing
		case s == Unterminated:
			all = Unterminated
		}
	}
	return all
}

// ended folds the other ranks' end lines into e; false while one has none.
func (rm *rankMerge) ended(e *End) bool {
	for _, rs := range rm.ranks {
		if rs.r == nil {
			return false
		}
		re, ok := rs.r.End()
		if !ok {
			return false
		}
		for v, s := range re.Diverged {
			if v >= 0 && v < len(rs.vmap) && rs.vmap[v] >= 0 {
				e.Diverged[rs.vmap[v]] = s
			}
		}
		if re.Status != StatusCompleted {
			e.Status = re.Status
		}
	}
	return true
}

func (rm *rankMerge) damage() []Damage {
	var out []Damage
	for _, rs := range rm.ranks {
		if rs.failed != nil {
			out = append(out, Damage{Reason: fmt.Sprintf("rank %d stream %s: %v", rs.rank, rs.path, rs.failed)})
		}
		if rs.r != nil {
			for _, d := range rs.r.Damage() {
				d.Reason = fmt.Sprintf("rank %d stream %s: %s", rs.rank, filepath.Base(rs.path), d.Reason)
				out = append(out, d)
			}
		}
	}
	return out
}

func (rm *rankMerge) close() {
	for _, rs := range rm.ranks {
		if rs.r != nil {
			rs.r.Close()
		}
	}
}

// staysInDir refuses a rank stream that a symbolic link (the name itself
// or a directory on its way) leads out of the stream's directory: the
// header's names are checked to be local (parseStreamHeader), but a link
// inside the directory could still point at /etc/shadow or a device. A
// name that does not resolve yet (the rank has not started) passes: it is
// checked again when it appears.
func staysInDir(streamDir, path string) error {
	real, err := filepath.EvalSymlinks(path) // each element Lstat-ed, links followed
	if err != nil {
		return nil
	}
	dir, err := filepath.EvalSymlinks(streamDir)
	if err != nil {
		return nil
	}
	if rel, err := filepath.Rel(dir, real); err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("a symbolic link leads it out of the stream's directory (to %s); refused", real)
	}
	return nil
}

// rankHists maps a rank's histograms to this run's layers: those of layers
// rank 0 does not name are dropped, and all of them when the rank's bins
// are not rank 0's (they would not fit the run's layout).
func (rm *rankMerge) rankHists(rs *rankStream, hs []probes.Histogram) []probes.Histogram {
	if hs == nil {
		return nil
	}
	own, run := rs.r.Meta().Histogram, rm.meta.Histogram
	if own == nil || run == nil || *own != *run {
		return nil
	}
	out := make([]probes.Histogram, 0, len(hs))
	for _, h := range hs {
		if h.Layer < len(rs.lmap) && rs.lmap[h.Layer] >= 0 {
			h.Layer = rs.lmap[h.Layer]
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(a, b probes.Histogram) int { return a.Layer - b.Layer })
	return out
}
