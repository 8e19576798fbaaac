package sshserve

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/normtop/normtop/internal/sshtest"
	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// These tests run Debian's OpenSSH client (in a tmux terminal of a fixed
// size where a screen is read) against a Server on 127.0.0.1.

// syncBuffer is the server's log, read while it is written.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// patience bounds every wait for a screen, a log line or an exit: the
// waits poll and return as soon as their condition holds, so a generous
// bound costs nothing on a quiet machine and keeps a loaded 2-core one
// (a cold `go test -race ./...` beside another job) from failing a test
// that only ran slowly.
const patience = 60 * time.Second

// waitLog waits for the log to hold want.
func waitLog(t *testing.T, log *syncBuffer, want string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); !strings.Contains(log.String(), want); {
		if time.Now().After(end) {
			t.Fatalf("after %s the log has no %q:\n%s", d, want, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fixture is a server on 127.0.0.1 with one authorized key (good) and one
// that is not (stranger).
type fixture struct {
	srv            *Server
	log            *syncBuffer
	client         *sshtest.Client
	good, stranger string
	dir            string
	served         chan error
}

func serve(t *testing.T, dir string, tweak func(*Config)) *fixture {
	t.Helper()
	sshtest.NeedTools(t)
	keysDir := t.TempDir()
	good, goodPub := sshtest.NewKey(t, keysDir, "good")
	stranger, _ := sshtest.NewKey(t, keysDir, "stranger")
	akPath := filepath.Join(keysDir, "authorized_keys")
	if err := os.WriteFile(akPath, []byte("# the team\n"+goodPub+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ak, err := ReadAuthorizedKeys(akPath)
	if err != nil {
		t.Fatal(err)
	}
	hk, err := LoadOrCreateHostKey(filepath.Join(keysDir, "host_key"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	cfg := Config{Dir: dir, Listener: ln, Keys: ak, HostKey: hk, Log: log, MaxSessions: 16, FollowPoll: 100 * time.Millisecond}
	if tweak != nil {
		tweak(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{srv: srv, log: log, good: good, stranger: stranger, dir: dir, served: make(chan error, 1)}
	go func() { f.served <- srv.Serve() }()
	t.Cleanup(func() {
		srv.Shutdown("test over", time.Second)
		<-f.served
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	hostLine := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(hk.Signer.PublicKey())))
	f.client = sshtest.NewClient(t, keysDir, ln.Addr().(*net.TCPAddr).Port, hostLine)
	return f
}

// open starts an interactive session (ssh -tt) in a w×h terminal.
func (f *fixture) open(t *testing.T, w, h int) *sshtest.Term {
	return sshtest.OpenTerm(t, w, h, f.client.Args(f.good, []string{"-tt"}))
}

// testMeta is a small run's header.
func testMeta(id string) probes.RunMeta {
	return probes.RunMeta{RunID: id, Model: "mlp", Data: "by hand", Metric: "accuracy",
		Variants: []probes.VariantMeta{{Name: "layernorm", Spec: "layernorm"}, {Name: "batchnorm", Spec: "batchnorm"}},
		Layers:   []string{"fc1", "fc2"}, Config: map[string]string{"steps": "200"}}
}

// testFrame is variant v's frame at step.
func testFrame(v, step, last int) probes.Frame {
	f := probes.Frame{Variant: v, Step: step, Epoch: float64(step) / 100, TrainLoss: 2.3 / float64(step) * float64(1+v),
		Elapsed: time.Duration(step) * time.Millisecond,
		Layers:  []probes.LayerValues{{}, {}}}
	if step%20 == 0 || step == last {
		f.Eval = []probes.Eval{{Split: "val", Loss: 1.0 / float64(step), Metric: 0.5 + 0.001*float64(step)}}
	}
	if step == last {
		f.Status = probes.Done
	}
	return f
}

// writeRun records a finished run of steps steps in dir/name.
func writeRun(t testing.TB, dir, name string, steps int) {
	t.Helper()
	w, err := record.Create(filepath.Join(dir, name), testMeta(strings.TrimSuffix(name, ".ntr")))
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= steps; s++ {
		for v := range 2 {
			if err := w.Write(testFrame(v, s, steps)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(record.End{Status: record.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
}

// An authorized key gets the workspace, opens a run, comes back to the
// list and quits; the log has one connect and one disconnect line with the
// key's fingerprint.
func TestServeWorkspaceAndScreens(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "20261205-100000-alpha.ntr", 120)
	writeRun(t, dir, "20261205-110000-beta.ntr", 80)
	f := serve(t, dir, nil)
	tm := f.open(t, 160, 48)
	tm.WaitFor(patience, "workspace · 2 run files", "20261205-100000-alpha", "20261205-110000-beta", "120/200", "80/200")
	tm.Keys("Enter") // the first run, whole, in the replay dashboard: a finished run opens on its Summary
	tm.WaitFor(patience, "1 Overview", "7 Summary", "ranked by final val acc")
	tm.Keys("6")
	s := tm.WaitFor(patience, "no alerts so far")
	if strings.Contains(s, "ranked by final val acc") {
		t.Fatalf("6 did not switch to the Events screen:\n%s", s)
	}
	tm.Keys("7")
	tm.WaitFor(patience, "ranked by final val acc")
	tm.Keys("Escape")
	tm.WaitFor(patience, "workspace · 2 run files")
	tm.Keys("q")
	if code := tm.WaitExit(patience); code != 0 {
		t.Fatalf("ssh exited %d after q; screen:\n%s", code, tm.Screen())
	}
	waitLog(t, f.log, "disconnect", patience)
	log := f.log.String()
	fp := fingerprintOf(t, f.good+".pub")
	if strings.Count(log, " connect "+fp) != 1 || strings.Count(log, " disconnect "+fp) != 1 || !strings.Contains(log, "(quit)") {
		t.Fatalf("want one connect and one disconnect line for %s, ended by quit; log:\n%s", fp, log)
	}
	if !strings.Contains(log, "160×48") {
		t.Fatalf("the connect line does not give the window size:\n%s", log)
	}
}

func fingerprintOf(t *testing.T, pubPath string) string {
	t.Helper()
	b, err := os.ReadFile(pubPath)
	if err != nil {
		t.Fatal(err)
	}
	k, _, _, _, err := gossh.ParseAuthorizedKey(b)
	if err != nil {
		t.Fatal(err)
	}
	return gossh.FingerprintSHA256(k)
}

// Two sessions at once, each in its own window size: the wide one shows
// the columns the narrow one drops, and each has its own selection.
func TestServeTwoSizes(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "20261205-100000-alpha.ntr", 60)
	writeRun(t, dir, "20261205-110000-beta.ntr", 60)
	f := serve(t, dir, nil)
	wide, narrow := f.open(t, 170, 45), f.open(t, 90, 30)
	ws := wide.WaitFor(patience, "workspace · 2 run files", "started", "60/200")
	ns := narrow.WaitFor(patience, "workspace · 2 run files", "60/200")
	if strings.Contains(ns, "started") {
		t.Fatalf("the 90-column session shows the 'started' column:\n%s", ns)
	}
	if n := len(strings.Split(strings.TrimRight(ws, "\n"), "\n")); n > 45 {
		t.Fatalf("wide screen has %d lines", n)
	}
	if f.srv.Sessions() != 2 {
		t.Fatalf("Sessions() = %d, want 2", f.srv.Sessions())
	}
	// Moving one session's cursor leaves the other's where it was: the
	// row note under the list names the selected file.
	narrow.Keys("Down")
	narrow.WaitFor(patience, "20261205-110000-beta.ntr")
	time.Sleep(300 * time.Millisecond)
	if s := wide.Screen(); strings.Contains(s, "20261205-110000-beta.ntr") {
		t.Fatalf("a key in one session moved the other's cursor:\n%s", s)
	}
	log := f.log.String()
	if !strings.Contains(log, "170×45") || !strings.Contains(log, "90×30") {
		t.Fatalf("the log does not give both sizes:\n%s", log)
	}
}

// An unknown key and a password are refused with ssh's one line; only
// publickey is offered.
func TestServeRefusesUnknownKeyAndPassword(t *testing.T) {
	f := serve(t, t.TempDir(), nil)
	for _, c := range []struct {
		name string
		key  string
		opts []string
	}{
		{"unknown key", f.stranger, nil},
		{"password", "", []string{"-o", "PreferredAuthentications=password,keyboard-interactive"}},
		{"keyboard-interactive", "", []string{"-o", "PreferredAuthentications=keyboard-interactive", "-o", "KbdInteractiveAuthentication=yes"}},
	} {
		r := sshtest.Run(t, f.client.Args(c.key, c.opts, "true"))
		if r.Code != 255 || !strings.Contains(r.Stderr, "Permission denied (publickey)") {
			t.Errorf("%s: want exit 255 and 'Permission denied (publickey)', got %d: %q", c.name, r.Code, r.Stderr)
		}
	}
	waitLog(t, f.log, "refused connection from 127.0.0.1", patience)
	if f.srv.Sessions() != 0 {
		t.Fatal("a refused client has a session")
	}
}

// Read-only by construction: a command, a subsystem, no terminal, port
// forwarding (local, remote, stdio) are all refused.
func TestServeReadOnly(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "a.ntr", 10)
	f := serve(t, dir, nil)
	for _, c := range []struct {
		name  string
		opts  []string
		after []string
		code  int
		want  string
	}{
		{"command", []string{"-T"}, []string{"cat", "/etc/passwd"}, 1, "runs no command"},
		{"command with a terminal", []string{"-tt"}, []string{"sh"}, 1, "runs no command"},
		{"subsystem", []string{"-T", "-s"}, []string{"sftp"}, 255, ""},
		{"no terminal", []string{"-T"}, nil, 1, "needs a terminal"},
		{"stdio forwarding", []string{"-W", "127.0.0.1:22"}, nil, 255, ""},
		{"remote forwarding", []string{"-T", "-N", "-o", "ExitOnForwardFailure=yes", "-R", "127.0.0.1:0:127.0.0.1:22"}, nil, 255, "forwarding failed"},
	} {
		r := sshtest.Run(t, f.client.Args(f.good, c.opts, c.after...))
		if r.Code != c.code || !strings.Contains(r.Stderr, c.want) || strings.Contains(r.Stdout, "root:") {
			t.Errorf("%s: want exit %d and %q, got %d: stdout %q stderr %q", c.name, c.code, c.want, r.Code, r.Stdout, r.Stderr)
		}
	}
	// Local forwarding through an open session: the channel is refused.
	l, err := net.Listen("tcp", "127.0.0.1:0") // a free port for the forward's local end
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	fwd := fmt.Sprintf("127.0.0.1:%d:127.0.0.1:22", port)
	tm := sshtest.OpenTerm(t, 100, 30, f.client.Args(f.good, []string{"-tt", "-L", fwd, "-o", "ExitOnForwardFailure=yes"}))
	tm.WaitFor(patience, "workspace · 1 run files")
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("ssh did not listen for the forward: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(patience))
	if n, err := c.Read(make([]byte, 64)); err == nil || n > 0 {
		t.Fatalf("a connection through the forward got %d bytes (err %v): it was not refused", n, err)
	}
	c.Close()
	if f.srv.Sessions() != 1 {
		t.Fatalf("Sessions() = %d", f.srv.Sessions())
	}
}

// A session follows a run being written (its steps grow on the screen)
// and sees it end.
func TestServeFollowsLiveRun(t *testing.T) {
	dir := t.TempDir()
	w, err := record.Create(filepath.Join(dir, "20261205-120000-live.ntr"), testMeta("20261205-120000-live"))
	if err != nil {
		t.Fatal(err)
	}
	const last = 200
	write := func(from, to int) {
		for s := from; s <= to; s++ {
			for v := range 2 {
				if err := w.Write(testFrame(v, s, last)); err != nil {
					t.Fatal(err)
				}
			}
		}
		w.Flush()
	}
	write(1, 50)
	f := serve(t, dir, nil)
	tm := f.open(t, 160, 40)
	tm.WaitFor(patience, "50/200", "running")
	write(51, 120)
	tm.WaitFor(patience, "120/200")
	write(121, last)
	if err := w.Close(record.End{Status: record.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	s := tm.WaitFor(patience, "200/200", "done")
	if strings.Contains(s, "running") {
		t.Fatalf("the run ended but its row still says running:\n%s", s)
	}
	// A second session, later, reads the run from the cache, whole.
	tm2 := f.open(t, 160, 40)
	tm2.WaitFor(patience, "200/200", "done")
}

// A client killed in the middle of a stream of frames leaves the server
// serving: another client connects and sees the run go on.
func TestServeClientGoneMidFrame(t *testing.T) {
	dir := t.TempDir()
	w, err := record.Create(filepath.Join(dir, "20261205-130000-live.ntr"), testMeta("20261205-130000-live"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(record.End{Status: record.StatusCompleted})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a run written as fast as it goes, for the screens to redraw
		defer wg.Done()
		for s := 1; ; s++ {
			select {
			case <-stop:
				return
			default:
			}
			for v := range 2 {
				w.Write(testFrame(v, s, 1<<30))
			}
			if s%50 == 0 {
				w.Flush()
				time.Sleep(10 * time.Millisecond)
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	f := serve(t, dir, func(c *Config) { c.FollowPoll = 20 * time.Millisecond })
	tm := f.open(t, 160, 40)
	tm.WaitFor(patience, "20261205-130000-live")
	tm.Keys("Enter") // the run's dashboard redraws at every poll
	time.Sleep(time.Second)
	if err := syscall.Kill(tm.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitLog(t, f.log, "(client gone)", patience)
	tm2 := f.open(t, 120, 40)
	tm2.WaitFor(patience, "20261205-130000-live")
	if n := f.srv.Sessions(); n != 1 {
		t.Fatalf("Sessions() = %d after one client died and another came", n)
	}
}

// The session limit refuses one more with a line; the idle timeout closes a
// session nobody types in.
func TestServeLimits(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "a.ntr", 10)
	f := serve(t, dir, func(c *Config) { c.MaxSessions = 1; c.IdleTimeout = 3 * time.Second })
	tm := f.open(t, 100, 30)
	tm.WaitFor(patience, "workspace · 1 run files")
	extra := f.open(t, 100, 30)
	if code := extra.WaitExit(patience); code != 1 {
		t.Fatalf("the session over the limit: exit %d, want 1", code)
	}
	extra.WaitFor(patience, "the server's limit")
	for range 5 { // keys keep it open past the idle timeout
		time.Sleep(time.Second)
		tm.Keys("Down")
	}
	if s := tm.Screen(); !strings.Contains(s, "workspace · 1 run files") {
		t.Fatalf("a session with keys pressed every second was closed:\n%s", s)
	}
	tm.WaitFor(patience, "no key pressed for 3s")
	if code := tm.WaitExit(patience); code != 0 {
		t.Fatalf("idle session: exit %d", code)
	}
	waitLog(t, f.log, "(idle)", patience)
}

// Shutdown says goodbye in every session.
func TestServeShutdownGoodbye(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "a.ntr", 10)
	f := serve(t, dir, nil)
	a, b := f.open(t, 100, 30), f.open(t, 120, 40)
	a.WaitFor(patience, "workspace · 1 run files")
	b.WaitFor(patience, "workspace · 1 run files")
	if n := f.srv.Shutdown("SIGTERM", 5*time.Second); n != 2 {
		t.Fatalf("Shutdown ended %d sessions, want 2", n)
	}
	if err := <-f.served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	f.served <- nil // for the cleanup
	for _, tm := range []*sshtest.Term{a, b} {
		tm.WaitFor(patience, "the server is stopping (SIGTERM): goodbye")
		tm.WaitExit(patience)
	}
}

// Garbage before the handshake and 100 connections that never
// authenticate are dropped; the session already open keeps working and a
// new client gets in once they are gone.
func TestServeGarbageAndUnauthenticatedFlood(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "a.ntr", 10)
	writeRun(t, dir, "b.ntr", 10)
	f := serve(t, dir, func(c *Config) { c.HandshakeTimeout = 2 * time.Second })
	tm := f.open(t, 100, 30)
	tm.WaitFor(patience, "workspace · 2 run files")
	addr := f.srv.Addr().String()

	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5 { // garbage: random bytes, then a wrong version line
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		junk := make([]byte, 4096)
		for j := range junk {
			junk[j] = byte(rng.IntN(256))
		}
		if i == 0 {
			junk = []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		}
		c.Write(junk)
		c.SetReadDeadline(time.Now().Add(patience))
		buf := make([]byte, 1024)
		for {
			_, err := c.Read(buf)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("garbage connection %d still open after 5 s", i)
			}
			if err != nil {
				break // closed by the server
			}
		}
		c.Close()
	}
	var idle []net.Conn
	for range 100 { // connect, say nothing
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	// The open session still answers keys.
	tm.Keys("Down")
	tm.WaitFor(patience, "b.ntr")
	// Every silent connection is closed by the server within its handshake time.
	deadline := time.Now().Add(patience)
	for _, c := range idle {
		c.SetReadDeadline(deadline)
		if _, err := c.Read(make([]byte, 256)); err == nil {
			// the server's version line: read on to the close
			for {
				if _, err := c.Read(make([]byte, 256)); err != nil {
					break
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("a connection that never authenticated was still open after 10 s")
		}
	}
	if p := f.srv.pending.Load(); p != 0 {
		t.Fatalf("%d connections still counted in their handshake", p)
	}
	tm2 := f.open(t, 100, 30)
	tm2.WaitFor(patience, "workspace · 2 run files")
	if !strings.Contains(f.log.String(), "refused connection from") {
		t.Fatalf("no refusal logged:\n%s", f.log.String())
	}
}

// Each session draws in its own colour profile, from its own environment:
// 256 colours for TERM=xterm-256color, 24-bit with COLORTERM=truecolor too
// (sent with ssh -o SetEnv), and none with NO_COLOR.
func TestServeColourProfiles(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "a.ntr", 30)
	f := serve(t, dir, nil)
	open := func(env ...string) *sshtest.Term {
		opts := []string{"-tt"}
		for _, e := range env {
			opts = append(opts, "-o", "SetEnv="+e)
		}
		// ssh sends its TERM; tmux's own (tmux-256color) would cap the
		// profile at 256 colours whatever COLORTERM says.
		tm := sshtest.OpenTerm(t, 120, 30, append([]string{"env", "TERM=xterm-256color"}, f.client.Args(f.good, opts)...))
		tm.WaitFor(patience, "workspace · 1 run files", "30/200")
		return tm
	}
	plain, truecolor, none := open(), open("COLORTERM=truecolor"), open("NO_COLOR=1")
	time.Sleep(500 * time.Millisecond)
	if s := plain.Styled(); !strings.Contains(s, "38;5;") || strings.Contains(s, "38;2;") {
		t.Errorf("TERM=xterm-256color: want 256-colour cells only:\n%q", s)
	}
	if s := truecolor.Styled(); !strings.Contains(s, "38;2;") {
		t.Errorf("COLORTERM=truecolor: want 24-bit cells:\n%q", s)
	}
	if s := none.Styled(); strings.Contains(s, "38;5;") || strings.Contains(s, "38;2;") {
		t.Errorf("NO_COLOR=1: want no colour:\n%q", s)
	}
}

// A client asking for a huge window gets a screen drawn at most
// maxCols × maxRows: the list's right edge (the workspace tab) ends by
// column maxCols.
func TestServeClampsWindowSize(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "a.ntr", 10)
	f := serve(t, dir, nil)
	tm := f.open(t, 900, 300)
	s := tm.WaitFor(patience, "workspace · 1 run files")
	first := strings.SplitN(s, "\n", 2)[0]
	end := strings.LastIndex(first, "workspace") + len("workspace")
	if n := len([]rune(first[:end])); n > maxCols || n < maxCols-20 {
		t.Fatalf("the first line's tab ends at column %d, want near the clamp %d:\n%q", n, maxCols, first)
	}
	if !strings.Contains(f.log.String(), "900×300") {
		t.Fatalf("the log does not give the size asked for:\n%s", f.log.String())
	}
}

// Two sessions on one connection (what ssh -o ControlMaster does) are two
// dashboards, each its own.
func TestServeTwoSessionsOneConnection(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "a.ntr", 10)
	f := serve(t, dir, nil)
	b, err := os.ReadFile(f.good)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.ParsePrivateKey(b)
	if err != nil {
		t.Fatal(err)
	}
	c, err := gossh.Dial("tcp", f.srv.Addr().String(), &gossh.ClientConfig{User: "t", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.FixedHostKey(f.srv.cfg.HostKey.Signer.PublicKey())})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	outs := make([]*syncBuffer, 2)
	for i, w := range []int{100, 140} {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		outs[i] = &syncBuffer{}
		s.Stdout = outs[i]
		if err := s.RequestPty("xterm", 30, w, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Shell(); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range outs {
		waitLog(t, o, "workspace · 1 run files", patience)
	}
	if n := f.srv.Sessions(); n != 2 {
		t.Fatalf("Sessions() = %d, want 2", n)
	}
	log := f.log.String()
	if !strings.Contains(log, "100×30") || !strings.Contains(log, "140×30") {
		t.Fatalf("log:\n%s", log)
	}
}
