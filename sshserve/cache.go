package sshserve

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
	"github.com/normtop/normtop/tui"
)

// NoteFunc says, once a run file has been read to its end, what was not
// whole about it (damage skipped, no end record): the line the workspace
// shows under the row. cmd/normtop passes the one `normtop replay` prints.
type NoteFunc func(name string, r *record.Reader) string

// runCache reads each served file once, however many sessions show it:
// its frames are decoded into memory on the first open and every session
// reads them through a cursor of its own. A run still being written is
// followed by one reader for all sessions, which appends to the frames as
// they come (docs/formats.md: a follower sees a frame within a second).
type runCache struct {
	dir  string
	note NoteFunc
	poll time.Duration
	ctx  context.Context // the server's life: followers stop with it

	mu      sync.Mutex
	entries map[string]*cacheEntry
}

// cacheEntry is one file's frames. Frames only grow; a session's cursor
// keeps its own position.
type cacheEntry struct {
	name string
	file fileID
	once sync.Once
	err  error // opening failed: not kept, the next open tries again

	meta probes.RunMeta

	mu      sync.RWMutex
	frames  []probes.Frame
	readErr error  // a read error after frames[:len]: the sessions' rows say it
	ended   bool   // end record read, or the writer gone: nothing more will come
	endFile fileID // the file when it ended
	crashed bool
	note    string
}

// fileID tells a file replaced under the same name (a new run file moved
// into place, maybe on a reused inode) from the one cached: a finished
// run's file does not change, so a different size or time means another
// file; a run being followed only grows, so its inode is enough.
type fileID struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
}

func idOf(st os.FileInfo) fileID {
	id := fileID{size: st.Size(), mtime: st.ModTime()}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(s.Dev), uint64(s.Ino)
	}
	return id
}

// stale reports whether the entry is not the file now at its name.
func (e *cacheEntry) stale(now fileID) bool {
	if e.file.dev != now.dev || e.file.ino != now.ino {
		return true
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.ended && (e.endFile.size != now.size || !e.endFile.mtime.Equal(now.mtime))
}

func newRunCache(ctx context.Context, dir string, note NoteFunc, poll time.Duration) *runCache {
	return &runCache{dir: dir, note: note, poll: poll, ctx: ctx, entries: map[string]*cacheEntry{}}
}

// Open is the workspace's tui.Opener: name is a bare file name in the
// served folder.
func (c *runCache) Open(name string) (tui.ReplaySource, func(), error) {
	path, err := contained(c.dir, name)
	if err != nil {
		return nil, nil, err
	}
	st, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	id := idOf(st)
	c.mu.Lock()
	e := c.entries[name]
	if e == nil || e.stale(id) {
		e = &cacheEntry{name: name, file: id}
		c.entries[name] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.err = c.load(e, path) })
	if e.err != nil {
		c.mu.Lock()
		if c.entries[name] == e {
			delete(c.entries, name)
		}
		c.mu.Unlock()
		return nil, nil, e.err
	}
	return &cursor{e: e, target: -1}, func() {}, nil
}

// keepOnly forgets the files not in names (the folder's listing when a
// session starts): a run file deleted from the folder does not stay in
// memory for the server's life. A session still showing it keeps its
// cursor, and its frames, until it lets go.
func (c *runCache) keepOnly(names []string) {
	keep := make(map[string]bool, len(names))
	for _, n := range names {
		keep[n] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for n := range c.entries {
		if !keep[n] {
			delete(c.entries, n)
		}
	}
}

// load opens the file and reads every frame there; a run still being
// written is then followed in the background.
func (c *runCache) load(e *cacheEntry, path string) error {
	if strings.HasSuffix(path, ".jsonl") {
		if err := checkRankStreams(c.dir, path, e.name); err != nil {
			return err
		}
	}
	r, err := record.Open(path)
	if err != nil {
		return err
	}
	e.meta = r.Meta()
	if e.drain(r, c.note, path) {
		r.Close()
		return nil
	}
	go c.follow(e, r, path)
	return nil
}

// drain appends what r has now; it reports true, the run's facts set, when
// nothing more will come.
func (e *cacheEntry) drain(r *record.Reader, note NoteFunc, path string) bool {
	var got []probes.Frame
	var err error
	for {
		var f probes.Frame
		if f, err = r.Next(); err != nil {
			break
		}
		got = append(got, f)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.frames = append(e.frames, got...)
	if !errors.Is(err, io.EOF) {
		e.readErr = err
		e.end(path)
		return true
	}
	if !r.Ended() {
		return false
	}
	e.crashed = r.Crashed()
	e.end(path)
	if note != nil {
		e.note = note(e.name, r)
	}
	return true
}

// end marks the run ended, as its file is now (e.mu held).
func (e *cacheEntry) end(path string) {
	e.ended = true
	if st, err := os.Lstat(path); err == nil {
		e.endFile = idOf(st)
	}
}

// follow polls a run being written until it ends or the server stops.
func (c *runCache) follow(e *cacheEntry, r *record.Reader, path string) {
	defer r.Close()
	t := time.NewTicker(c.poll)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
			if e.drain(r, c.note, path) {
				return
			}
		}
	}
}

// frameCount is how many frames the cache holds, all files together (the
// load check reports it beside the process's RSS).
func (c *runCache) frameCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, e := range c.entries {
		e.mu.RLock()
		n += len(e.frames)
		e.mu.RUnlock()
	}
	return n
}

// cursor is one session's reading position in a cached file: a
// tui.ReplaySource with the Ender, Crasher and Noter answers of
// *record.Reader. Frames are shared with every other cursor and only ever
// read (the dashboard's store copies what it keeps).
type cursor struct {
	e      *cacheEntry
	pos    int
	target int // Seek's step: frames before it are skipped, as record.Reader skips them
	erred  bool
}

func (c *cursor) Meta() probes.RunMeta { return c.e.meta }

func (c *cursor) Next() (probes.Frame, error) {
	c.e.mu.RLock()
	defer c.e.mu.RUnlock()
	for c.pos < len(c.e.frames) {
		f := c.e.frames[c.pos]
		c.pos++
		if f.Step >= c.target {
			return f, nil
		}
	}
	if c.e.readErr != nil && !c.erred {
		c.erred = true
		return probes.Frame{}, c.e.readErr
	}
	return probes.Frame{}, io.EOF
}

// Seek: the next Next returns the first frame with Step ≥ step, and no
// frame before step after it (record.Reader's rule).
func (c *cursor) Seek(step int) error {
	c.e.mu.RLock()
	defer c.e.mu.RUnlock()
	c.target, c.pos = step, len(c.e.frames)
	for i := range c.e.frames {
		if c.e.frames[i].Step >= step {
			c.pos = i
			break
		}
	}
	return nil
}

// Ended: the run ended and this cursor has read all of it.
func (c *cursor) Ended() bool {
	c.e.mu.RLock()
	defer c.e.mu.RUnlock()
	return c.e.ended && c.pos >= len(c.e.frames)
}

func (c *cursor) Crashed() bool {
	c.e.mu.RLock()
	defer c.e.mu.RUnlock()
	return c.e.crashed
}

func (c *cursor) Note() string {
	c.e.mu.RLock()
	defer c.e.mu.RUnlock()
	return c.e.note
}
