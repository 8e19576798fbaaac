package probes

import "sync"

// Feed is the lossy, coalescing path from the trainer to the live UI. Push
// never blocks: it appends to a bounded queue under a short lock and, when
// the queue is over capacity, drops the oldest plain frames. A frame is kept
// whatever the pressure when it carries an Eval, an Alert or a Spectrum, or
// when its Status differs from the previous frame pushed for its variant;
// the newest frame is never dropped either, so the UI always sees the latest
// state. The consumer waits on Ready and takes everything with Drain.
//
// Dropping is amortised: once the queue exceeds its capacity, one pass drops
// the oldest plain frames until it is back to three quarters of it, so a
// steady overload costs O(1) per Push.
type Feed struct {
	mu         sync.Mutex
	capacity   int
	q          []feedItem
	lastStatus map[int]Status
	ready      chan struct{}
	closed     bool
	dropped    int
	// standings is the producer's fold as of the newest PushFolded (nil
	// until one): the UI draws on it instead of folding what it drains.
	standings *Standings
}

type feedItem struct {
	f    Frame
	keep bool
}

// NewFeed returns a Feed holding about capacity plain frames (at least 1).
func NewFeed(capacity int) *Feed {
	if capacity < 1 {
		capacity = 1
	}
	return &Feed{
		capacity:   capacity,
		q:          make([]feedItem, 0, capacity+1),
		lastStatus: make(map[int]Status),
		ready:      make(chan struct{}, 1),
	}
}

// Push queues fr for the UI; it never blocks. Frames pushed after Close are
// discarded.
func (f *Feed) Push(fr Frame) { f.push(fr, nil) }

// PushFolded is Push for a producer that has folded fr into st (a live run:
// the writer's one fold): the Feed keeps a copy of st as of fr, which
// DrainFolded hands to the UI, so the UI never folds a Frame again and its
// standings count every Frame, dropped ones too. st is read only here, on
// the producer's goroutine.
func (f *Feed) PushFolded(fr Frame, st *Standings) { f.push(fr, st) }

func (f *Feed) push(fr Frame, st *Standings) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	if st != nil {
		if f.standings == nil {
			f.standings = NewStandingsSize(len(st.Variants), 0)
		}
		st.CopyTo(f.standings)
	}
	prev, seen := f.lastStatus[fr.Variant]
	if !seen {
		prev = Running
	}
	f.lastStatus[fr.Variant] = fr.Status
	keep := len(fr.Eval) > 0 || len(fr.Alerts) > 0 || fr.Spectrum != nil || fr.Status != prev
	f.q = append(f.q, feedItem{f: fr, keep: keep})
	if len(f.q) > f.capacity {
		f.shed()
	}
	f.mu.Unlock()
	f.signal()
}

// shed drops the oldest plain frames (never the newest) until the queue holds
// at most three quarters of the capacity, or only frames that must be kept.
func (f *Feed) shed() {
	target := max(1, f.capacity-f.capacity/4)
	excess := len(f.q) - target
	w := 0
	last := len(f.q) - 1
	for r, it := range f.q {
		if excess > 0 && !it.keep && r != last {
			excess--
			f.dropped++
			continue
		}
		f.q[w] = it
		w++
	}
	clear(f.q[w:]) // let the dropped frames' slices be collected
	f.q = f.q[:w]
}

func (f *Feed) signal() {
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// Drain appends every pending frame to dst, oldest first, and empties the
// queue.
func (f *Feed) Drain(dst []Frame) []Frame {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.drainLocked(dst)
}

// drainLocked is Drain with f.mu held.
func (f *Feed) drainLocked(dst []Frame) []Frame {
	for i := range f.q {
		dst = append(dst, f.q[i].f)
	}
	clear(f.q)
	f.q = f.q[:0]
	return dst
}

// DrainFolded is Drain, and copies the producer's standings as of the
// newest drained Frame into st under the same lock, so they match the
// Frames drained; false (st untouched) when the producer never called
// PushFolded.
func (f *Feed) DrainFolded(dst []Frame, st *Standings) ([]Frame, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	dst = f.drainLocked(dst)
	if f.standings == nil {
		return dst, false
	}
	f.standings.CopyTo(st)
	return dst, true
}

// Ready is signalled (it has capacity one, so signals coalesce) when frames
// are pending, and once more on Close so a waiting consumer can notice.
func (f *Feed) Ready() <-chan struct{} { return f.ready }

// Close marks the end of the stream: later Pushes are discarded. Frames
// already queued stay available to Drain.
func (f *Feed) Close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.signal()
}

// Closed reports whether Close was called.
func (f *Feed) Closed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// Dropped reports how many frames were dropped under pressure so far.
func (f *Feed) Dropped() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dropped
}
