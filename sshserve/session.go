package sshserve

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"github.com/normtop/normtop/tui"
)

// session is one dashboard: its program once made, and why it ended.
type session struct {
	mu       sync.Mutex
	program  *tea.Program
	reason   string // set when the server ends it: "idle", "shutdown"
	lastKey  atomic.Int64
	finished chan struct{}
}

// end asks the session's dashboard to quit, for reason.
func (st *session) end(reason string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.reason == "" {
		st.reason = reason
	}
	if p := st.program; p != nil {
		// Quit waits for the program's loop to take it: not under a lock.
		go p.Quit()
	}
}

func (st *session) why() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.reason
}

// gate admits a session to the dashboard, or refuses it with one line:
// a command (ssh host cmd), no terminal, the session limit reached, the
// server stopping. It logs the connect and the disconnect.
func (s *Server) gate(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		who := describe(sess)
		refuse := func(why, line string) {
			s.log.printf("refused %s: %s", who, why)
			fmt.Fprint(sess.Stderr(), "normtop serve: "+line+"\r\n")
			_ = sess.Exit(1)
		}
		pty, _, hasPty := sess.Pty()
		switch {
		case sess.RawCommand() != "" || sess.Subsystem() != "":
			refuse("asked to run a command", "this server shows the normtop dashboard and runs no command: connect with ssh -t and no command")
			return
		case !hasPty:
			refuse("no terminal", "the dashboard needs a terminal: connect with ssh -t")
			return
		}
		st := &session{finished: make(chan struct{})}
		st.lastKey.Store(time.Now().UnixNano())
		s.mu.Lock()
		switch {
		case s.stopping != "":
			s.mu.Unlock()
			refuse("server stopping", "the server is stopping ("+s.stopping+")")
			return
		case len(s.sessions) >= s.cfg.MaxSessions:
			s.mu.Unlock()
			refuse(fmt.Sprintf("%d sessions open already", s.cfg.MaxSessions),
				fmt.Sprintf("%d sessions open, the server's limit (--max-sessions): try later", s.cfg.MaxSessions))
			return
		}
		// Keyed by the ssh.Session, not stored in its context: the
		// context is the connection's, which several sessions can share
		// (ssh -o ControlMaster).
		s.sessions[sess] = st
		n := len(s.sessions)
		s.mu.Unlock()
		start := time.Now()
		s.log.printf("connect %s, %d×%d %s (%d session(s) open)", who, pty.Window.Width, pty.Window.Height, pty.Term, n)
		if s.cfg.IdleTimeout > 0 {
			go s.watchIdle(sess, st)
		}

		next(sess)

		close(st.finished)
		s.mu.Lock()
		delete(s.sessions, sess)
		s.mu.Unlock()
		reason := st.why()
		switch {
		case reason == "shutdown":
			fmt.Fprint(sess, "normtop serve: the server is stopping ("+s.stoppingWhy()+"): goodbye\r\n")
		case reason == "idle":
			fmt.Fprintf(sess, "normtop serve: no key pressed for %s: closed (the server's --idle-timeout)\r\n", s.cfg.IdleTimeout)
		case sess.Context().Err() != nil:
			reason = "client gone"
		default:
			reason = "quit"
		}
		s.log.printf("disconnect %s after %s (%s)", who, time.Since(start).Round(time.Second), reason)
	}
}

func (s *Server) stoppingWhy() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopping
}

// describe names a session in the log: its key's fingerprint, user and
// address.
func describe(sess ssh.Session) string {
	fp := "no key"
	if k := sess.PublicKey(); k != nil {
		fp = gossh.FingerprintSHA256(k)
	}
	return fmt.Sprintf("%s as %q from %s", fp, sess.User(), sess.RemoteAddr())
}

// watchIdle ends a session when no key came for the idle timeout.
func (s *Server) watchIdle(sess ssh.Session, st *session) {
	t := time.NewTicker(min(s.cfg.IdleTimeout/10, time.Second))
	defer t.Stop()
	for {
		select {
		case <-st.finished:
			return
		case <-sess.Context().Done():
			return
		case <-t.C:
			if time.Since(time.Unix(0, st.lastKey.Load())) >= s.cfg.IdleTimeout {
				st.end("idle")
				return
			}
		}
	}
}

// program makes a session's dashboard: the workspace of the folder's run
// files as they are now, reading through the shared cache, in the
// session's own window size and colour profile (from its TERM).
func (s *Server) program(sess ssh.Session) *tea.Program {
	s.mu.Lock()
	st := s.sessions[sess]
	s.mu.Unlock()
	if st == nil {
		return nil
	}
	names, err := ListRuns(s.cfg.Dir)
	note := ""
	switch {
	case err != nil:
		note = fmt.Sprintf("the served folder cannot be listed now: %v", err)
	case len(names) == 0:
		note = "no run files (*.ntr) or streams (*.jsonl) in the served folder yet: reconnect once a run has started"
	}
	if err == nil {
		s.cache.keepOnly(names)
	}
	model := tui.NewWorkspace(names, s.cache.Open, tui.Options{NoColor: noColor(sess.Environ())}, note)
	pty, _, _ := sess.Pty()
	w, h := clampSize(pty.Window.Width, pty.Window.Height)
	opts := append(bubbletea.MakeOptions(sess),
		tea.WithInput(keyInput{r: sess, last: &st.lastKey}),
		tea.WithoutSignalHandler(),
		tea.WithWindowSize(w, h),
		tea.WithFilter(sessionFilter))
	p := tea.NewProgram(model, opts...)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.reason != "" { // ended before it started
		return nil
	}
	st.program = p
	return p
}

// A session's screen is drawn at most maxCols × maxRows cells, whatever
// size its client asks for: the screen buffers grow with the area, and one
// client asking for 100,000 × 100,000 must not take the server's memory.
// 512 × 256 is more than a 4K display shows in a small font.
const maxCols, maxRows = 512, 256

func clampSize(w, h int) (int, int) { return min(w, maxCols), min(h, maxRows) }

// sessionFilter keeps every window size within the clamp, and turns a
// suspend (ctrl+z) into a resume as wish's own filter does: there is no
// shell to suspend to.
func sessionFilter(_ tea.Model, msg tea.Msg) tea.Msg {
	switch m := msg.(type) {
	case tea.WindowSizeMsg:
		m.Width, m.Height = clampSize(m.Width, m.Height)
		return m
	case tea.SuspendMsg:
		return tea.ResumeMsg{}
	}
	return msg
}

// noColor: the client sent NO_COLOR (ssh -o SendEnv=NO_COLOR).
func noColor(env []string) bool {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "NO_COLOR="); ok && v != "" {
			return true
		}
	}
	return false
}

// keyInput is a session's input that notes when a key last came (the idle
// timeout).
type keyInput struct {
	r    io.Reader
	last *atomic.Int64
}

func (k keyInput) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if n > 0 {
		k.last.Store(time.Now().UnixNano())
	}
	return n, err
}
