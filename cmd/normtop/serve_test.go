package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
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

// writeServeRun records a small finished run at path.
func writeServeRun(t *testing.T, path string) {
	t.Helper()
	w, err := record.Create(path, probes.RunMeta{RunID: strings.TrimSuffix(filepath.Base(path), ".ntr"), Model: "mlp", Data: "by hand",
		Metric: "accuracy", Variants: []probes.VariantMeta{{Name: "layernorm", Spec: "layernorm"}}, Layers: []string{"fc1"}})
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 20; s++ {
		f := probes.Frame{Step: s, TrainLoss: 1 / float64(s), Layers: []probes.LayerValues{{}}}
		if s == 20 {
			f.Status = probes.Done
		}
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(record.End{Status: record.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
}

// Every mistake is one line and nothing started: no port taken, no host
// key written. DIR, the authorized-keys file: exit 2; the port: exit 1.
func TestServeBadInput(t *testing.T) {
	sshtest.NeedTools(t)
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	os.Mkdir(runs, 0o755)
	_, pub := sshtest.NewKey(t, dir, "k")
	os.WriteFile(filepath.Join(dir, "keys"), []byte(pub+"\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "empty"), nil, 0o600)
	os.WriteFile(filepath.Join(dir, "garbage"), []byte("hello\n"), 0o600)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	hostKey := filepath.Join(dir, ".normtop_serve_host_ed25519_key") // the default, beside runs
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing DIR", []string{"nope", "--authorized-keys", "keys"}, 2, "serve nope: no such folder"},
		{"DIR a file", []string{"keys", "--authorized-keys", "keys"}, 2, "not a folder"},
		{"no --authorized-keys", []string{"runs"}, 2, "--authorized-keys FILE is required"},
		{"missing keys", []string{"runs", "--authorized-keys", "nokeys"}, 2, "authorized-keys file nokeys does not exist"},
		{"empty keys", []string{"runs", "--authorized-keys", "empty"}, 2, "holds no public key"},
		{"garbage keys", []string{"runs", "--authorized-keys", "garbage"}, 2, "line 1: not a public key"},
		{"keys a folder", []string{"runs", "--authorized-keys", "runs"}, 2, "not a regular file"},
		{"port in use", []string{"runs", "--authorized-keys", "keys", "--listen", busy.Addr().String()}, 1, "address already in use"},
		{"max sessions 0", []string{"runs", "--authorized-keys", "keys", "--max-sessions", "0"}, 2, "--max-sessions 0"},
	} {
		res := normtop(t, dir, append([]string{"serve", "--listen", "127.0.0.1:0"}, c.args...)...)
		checkOneLine(t, c.name, res, c.code, c.want)
		if _, err := os.Stat(hostKey); err == nil {
			t.Fatalf("%s: a host key was written", c.name)
		}
	}
	if os.Getuid() != 0 {
		os.Chmod(filepath.Join(dir, "empty"), 0)
		checkOneLine(t, "unreadable keys", normtop(t, dir, "serve", "runs", "--authorized-keys", "empty", "--listen", "127.0.0.1:0"), 2, "permission denied")
	}
}

// server is a normtop serve process of a test, with its stderr read as it
// comes.
type server struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	log    bytes.Buffer
	client *sshtest.Client
	key    string
	done   chan struct{}
}

func (s *server) stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

var servingLine = regexp.MustCompile(`serving .* on 127\.0\.0\.1:([0-9]+) `)

// startServe starts argv (normtop serve … or a wrapper of it) in dir and
// waits for its "serving" line.
func startServe(t *testing.T, dir string, argv []string, key, hostKey string) *server {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, key: key, done: make(chan struct{})}
	port := make(chan int, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				n, _ := strconv.Atoi(m[1])
				port <- n
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	select {
	case p := <-port:
		b, err := os.ReadFile(hostKey)
		if err != nil {
			t.Fatal(err)
		}
		signer, err := gossh.ParsePrivateKey(b)
		if err != nil {
			t.Fatal(err)
		}
		line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(signer.PublicKey())))
		s.client = sshtest.NewClient(t, t.TempDir(), p, line)
	case <-time.After(30 * time.Second):
		t.Fatalf("no serving line after 30 s:\n%s", s.stderr())
	}
	return s
}

// stop sends SIGTERM to normtop (under strace: strace's child) and returns
// the exit status.
func (s *server) stop(t *testing.T) int {
	t.Helper()
	pid := s.cmd.Process.Pid
	if filepath.Base(s.cmd.Path) == "strace" {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		if err != nil || len(strings.Fields(string(b))) != 1 {
			t.Fatalf("strace's child: %q, %v", b, err)
		}
		pid, _ = strconv.Atoi(strings.Fields(string(b))[0])
	}
	syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("serve still running 20 s after SIGTERM:\n%s", s.stderr())
	}
	err := s.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return 0
}

// The host key is generated on the first start (0600), its fingerprint
// printed, and reused by the next; SIGTERM says goodbye in the session open
// and exits 143.
func TestServeHostKeyAndSIGTERM(t *testing.T) {
	sshtest.NeedTools(t)
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	os.Mkdir(runs, 0o755)
	writeServeRun(t, filepath.Join(runs, "20261205-100000-mlp.ntr"))
	key, pub := sshtest.NewKey(t, dir, "k")
	os.WriteFile(filepath.Join(dir, "keys"), []byte(pub+"\n"), 0o600)
	hostKey := filepath.Join(dir, ".normtop_serve_host_ed25519_key")
	argv := []string{buildNormtop(t), "serve", "runs", "--authorized-keys", "keys", "--listen", "127.0.0.1:0"}

	s := startServe(t, dir, argv, key, hostKey)
	st, err := os.Stat(hostKey)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("host key: %v, mode %v; want it written 0600", err, st.Mode())
	}
	fp := regexp.MustCompile(`fingerprint (SHA256:\S+)`).FindStringSubmatch(s.stderr())
	if fp == nil || !strings.Contains(s.stderr(), "(generated now)") {
		t.Fatalf("no generated host key and fingerprint said:\n%s", s.stderr())
	}
	tm := sshtest.OpenTerm(t, 100, 30, s.client.Args(key, []string{"-tt"}))
	tm.WaitFor(20*time.Second, "workspace · 1 run files", "20261205-100000-mlp")
	if code := s.stop(t); code != 143 {
		t.Fatalf("exit %d after SIGTERM, want 143:\n%s", code, s.stderr())
	}
	tm.WaitFor(10*time.Second, "the server is stopping (SIGTERM): goodbye")
	if code := tm.WaitExit(10 * time.Second); code != 0 {
		t.Fatalf("the client exited %d", code)
	}
	log := s.stderr()
	for _, want := range []string{" connect SHA256:", " disconnect SHA256:", "(shutdown)", "stopped by SIGTERM; 1 session(s) ended with a goodbye"} {
		if !strings.Contains(log, want) {
			t.Fatalf("log has no %q:\n%s", want, log)
		}
	}

	s2 := startServe(t, dir, argv, key, hostKey) // the same key, not a new one
	if strings.Contains(s2.stderr(), "generated") || !strings.Contains(s2.stderr(), fp[1]) {
		t.Fatalf("second start does not reuse the host key %s:\n%s", fp[1], s2.stderr())
	}
	tm2 := sshtest.OpenTerm(t, 100, 30, s2.client.Args(key, []string{"-tt"}))
	tm2.WaitFor(20*time.Second, "workspace · 1 run files") // known_hosts pins the key: ssh would refuse another
	s2.stop(t)
}

// Nothing outside DIR is opened, checked under strace: a link to
// /etc/passwd named like a run file, a stream naming ../x as a rank's
// stream, and a stream naming a rank's stream that is a link to
// /etc/passwd.
func TestServeOpensNothingOutsideDir(t *testing.T) {
	sshtest.NeedTools(t)
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace not installed (Debian: strace; .ci/run installs it)")
	}
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	os.Mkdir(runs, 0o755)
	writeServeRun(t, filepath.Join(runs, "20261205-100000-mlp.ntr"))
	os.WriteFile(filepath.Join(dir, "x"), []byte("outside\n"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(runs, "passwd.ntr"))
	os.Symlink("/etc/passwd", filepath.Join(runs, "evil.rank1.jsonl"))
	header := func(rank string) []byte {
		return []byte(`{"normtop_stream":1,"meta":{"RunID":"s","Model":"m","Variants":[{"Name":"layernorm"}],"Layers":["fc1"]},"streams":["` + rank + `"]}` + "\n")
	}
	os.WriteFile(filepath.Join(runs, "up.jsonl"), header("../x"), 0o644)
	os.WriteFile(filepath.Join(runs, "evil.jsonl"), header("evil.rank1.jsonl"), 0o644)
	key, pub := sshtest.NewKey(t, dir, "k")
	os.WriteFile(filepath.Join(dir, "keys"), []byte(pub+"\n"), 0o600)
	hostKey := filepath.Join(dir, ".normtop_serve_host_ed25519_key")
	trace := filepath.Join(dir, "trace")
	argv := []string{"strace", "-f", "-qq", "-e", "trace=open,openat,openat2", "-o", trace,
		buildNormtop(t), "serve", "runs", "--authorized-keys", "keys", "--listen", "127.0.0.1:0"}
	s := startServe(t, dir, argv, key, hostKey)
	tm := sshtest.OpenTerm(t, 160, 40, s.client.Args(key, []string{"-tt"}))
	tm.WaitFor(20*time.Second, "workspace · 3 run files", "unreadable")
	tm.Keys("Enter") // the run file opened whole
	tm.WaitFor(10*time.Second, "1 Overview")
	tm.Keys("Escape")
	tm.WaitFor(10*time.Second, "workspace · 3 run files")
	tm.Keys("Down") // evil.jsonl: its row note says why it is unreadable
	tm.WaitFor(10*time.Second, "is a symbolic link: not followed")
	tm.Keys("Down") // up.jsonl
	tm.WaitFor(10*time.Second, "not a file directly in the served folder")
	s.stop(t)
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	opened := regexp.MustCompile(`open(?:at2?)?\((?:[A-Z_]+, )?"([^"]*)"`).FindAllStringSubmatch(string(b), -1)
	if len(opened) == 0 {
		t.Fatalf("strace saw no open:\n%s", b)
	}
	sawRun := false
	for _, m := range opened {
		p := m[1]
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p) // relative to the server's directory
		}
		p = filepath.Clean(p)
		switch {
		case p == "/etc/passwd", p == filepath.Join(dir, "x"), strings.HasSuffix(p, "evil.rank1.jsonl"), strings.HasSuffix(p, "passwd.ntr"):
			t.Errorf("the server opened %s", m[1])
		case strings.HasPrefix(p, runs+"/"):
			sawRun = sawRun || strings.HasSuffix(p, "20261205-100000-mlp.ntr")
		}
	}
	if !sawRun {
		t.Fatal("strace did not see the run file opened: the trace misses opens, so it proves nothing")
	}
}
