package sshserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"github.com/normtop/normtop/tui"
)

// Config is what a server needs. The listener is made by the caller, so a
// port in use is found before anything else starts.
type Config struct {
	Dir      string
	Listener net.Listener
	Keys     *AuthorizedKeys
	HostKey  *HostKey
	Log      io.Writer // connect, disconnect and refusal lines
	Note     NoteFunc  // the line under a finished run's row (nil: none)

	MaxSessions int           // dashboards at once; one more is refused with a line
	IdleTimeout time.Duration // a session with no key pressed for this long is closed (0: never)

	// Zero values take the defaults below (tests shorten them).
	HandshakeTimeout time.Duration
	MaxHandshakes    int
	FollowPoll       time.Duration
}

// Limits on connections that have not authenticated: a client that sends
// nothing, or garbage, or opens connections by the hundred, holds at most
// MaxHandshakes of them for HandshakeTimeout each; past that a new one is
// closed at once. Sessions already open are not affected.
const (
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultMaxHandshakes    = 64
	defaultFollowPoll       = 500 * time.Millisecond
)

// Server serves the dashboard of one folder.
type Server struct {
	cfg   Config
	ssh   *ssh.Server
	cache *runCache
	stop  context.CancelFunc
	log   *logger

	mu       sync.Mutex
	sessions map[*session]struct{}
	stopping string // why the server is stopping ("" while serving)

	pending atomic.Int64 // connections accepted and not yet authenticated
}

// New builds the server; Serve starts it.
func New(cfg Config) (*Server, error) {
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if cfg.MaxHandshakes <= 0 {
		cfg.MaxHandshakes = DefaultMaxHandshakes
	}
	if cfg.FollowPoll <= 0 {
		cfg.FollowPoll = defaultFollowPoll
	}
	if cfg.MaxSessions <= 0 {
		return nil, errors.New("the session limit must be at least 1")
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, cache: newRunCache(ctx, cfg.Dir, cfg.Note, cfg.FollowPoll), stop: stop,
		log: &logger{w: cfg.Log}, sessions: map[*session]struct{}{}}
	srv, err := wish.NewServer(
		func(srv *ssh.Server) error { srv.AddHostKey(cfg.HostKey.Signer); return nil },
		wish.WithVersion("normtop"),
		// Public keys only: with no password or keyboard-interactive
		// handler, those methods are not offered at all.
		wish.WithPublicKeyAuth(s.allowKey),
		func(srv *ssh.Server) error {
			srv.HandshakeTimeout = cfg.HandshakeTimeout
			srv.ConnCallback = s.accept
			srv.ConnectionFailedCallback = s.failed
			// No forwarding, subsystem or other channel: only "session",
			// and a session only runs the dashboard (gate).
			srv.LocalPortForwardingCallback = nil
			srv.ReversePortForwardingCallback = nil
			srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
			srv.RequestHandlers = map[string]ssh.RequestHandler{}
			srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": ssh.DefaultSessionHandler}
			return nil
		},
		// The last middleware runs first: gate, then the dashboard.
		wish.WithMiddleware(bubbletea.MiddlewareWithProgramHandler(s.program), s.gate),
	)
	if err != nil {
		stop()
		return nil, err
	}
	s.ssh = srv
	return s, nil
}

// Serve serves until Shutdown; it returns nil then.
func (s *Server) Serve() error {
	err := s.ssh.Serve(s.cfg.Listener)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// Addr is the address listened on (the port chosen when it was :0).
func (s *Server) Addr() net.Addr { return s.cfg.Listener.Addr() }

// Sessions is how many dashboards are open.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Shutdown ends every session with a goodbye line naming why, waits up to
// wait for them to finish, then closes every connection and the listener.
// It returns how many sessions were open.
func (s *Server) Shutdown(why string, wait time.Duration) int {
	s.mu.Lock()
	s.stopping = why
	n := len(s.sessions)
	for st := range s.sessions {
		st.end("shutdown")
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	// Shutdown closes the listener and waits for the connections: a client
	// closes its connection once its session has said goodbye and exited.
	if err := s.ssh.Shutdown(ctx); err != nil {
		s.ssh.Close()
	}
	s.stop()
	return n
}

// allowKey is the public-key check (only keys of the authorized-keys file).
func (s *Server) allowKey(ctx ssh.Context, key ssh.PublicKey) bool {
	if !s.cfg.Keys.Allows(key) {
		return false
	}
	if c, ok := ctx.Value(connKey).(*trackedConn); ok {
		c.authenticated()
	}
	return true
}

// connKey finds a connection's trackedConn from its context.
var connKey = &struct{ name string }{"normtop-conn"}

// trackedConn counts a connection among the pending ones until it
// authenticates or closes.
type trackedConn struct {
	net.Conn
	s    *Server
	once sync.Once
}

func (c *trackedConn) authenticated() { c.once.Do(func() { c.s.pending.Add(-1) }) }

func (c *trackedConn) Close() error {
	c.authenticated() // no longer pending either way
	return c.Conn.Close()
}

// accept admits a connection unless too many are still in their handshake.
func (s *Server) accept(ctx ssh.Context, conn net.Conn) net.Conn {
	if s.pending.Add(1) > int64(s.cfg.MaxHandshakes) {
		s.pending.Add(-1)
		s.log.refused(conn.RemoteAddr(), fmt.Sprintf("%d connections already in their handshake", s.cfg.MaxHandshakes))
		return nil
	}
	tc := &trackedConn{Conn: conn, s: s}
	ctx.SetValue(connKey, tc)
	return tc
}

// failed logs a connection that ended before it was in: no authorized key,
// garbage instead of SSH, a handshake past its time.
func (s *Server) failed(conn net.Conn, err error) {
	s.log.refused(conn.RemoteAddr(), handshakeError(err))
}

// handshakeError says a failed handshake's cause in a few words.
func handshakeError(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "no auth passed yet"), strings.Contains(msg, "unable to authenticate"):
		return "no authorized key offered"
	case errors.Is(err, io.EOF):
		return "closed by the client during the handshake"
	case errors.Is(err, context.DeadlineExceeded), strings.Contains(msg, "i/o timeout"):
		return "handshake not finished in time"
	}
	return msg
}

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

// sessionKey finds a session's state from its ssh.Session context.
var sessionKey = &struct{ name string }{"normtop-session"}

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
		s.sessions[st] = struct{}{}
		n := len(s.sessions)
		s.mu.Unlock()
		start := time.Now()
		s.log.printf("connect %s, %d×%d %s (%d session(s) open)", who, pty.Window.Width, pty.Window.Height, pty.Term, n)
		sess.Context().SetValue(sessionKey, st)
		if s.cfg.IdleTimeout > 0 {
			go s.watchIdle(sess, st)
		}

		next(sess)

		close(st.finished)
		s.mu.Lock()
		delete(s.sessions, st)
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
	st, _ := sess.Context().Value(sessionKey).(*session)
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

// logger writes the server's log lines, a timestamp first. Refusals of
// connections that never got in are at most one line a second (a flood of
// them says how many it left out), so a scan cannot fill the log.
type logger struct {
	mu         sync.Mutex
	w          io.Writer
	lastRefuse time.Time
	unsaid     int
}

func (l *logger) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.line(fmt.Sprintf(format, args...))
}

func (l *logger) line(msg string) {
	if l.w != nil {
		fmt.Fprintf(l.w, "%s normtop serve: %s\n", time.Now().UTC().Format(time.RFC3339), msg)
	}
}

func (l *logger) refused(addr net.Addr, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Since(l.lastRefuse) < time.Second {
		l.unsaid++
		return
	}
	l.lastRefuse = time.Now()
	msg := fmt.Sprintf("refused connection from %s: %s", addr, why)
	if l.unsaid > 0 {
		msg += fmt.Sprintf(" (and %d more refused connection(s) not logged one by one)", l.unsaid)
		l.unsaid = 0
	}
	l.line(msg)
}
