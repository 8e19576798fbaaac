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

	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/bubbletea"
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
	sessions map[ssh.Session]*session
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
		log: &logger{w: cfg.Log}, sessions: map[ssh.Session]*session{}}
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
	for _, st := range s.sessions {
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
