// Package sshtest drives Debian's OpenSSH client against a normtop serve
// server on 127.0.0.1, for the tests of sshserve and cmd/normtop: client
// keys made with ssh-keygen, a known_hosts file pinning the server's host
// key, and a terminal of a fixed size (a detached tmux session, whose
// screen is read back as text) to run ssh in.
package sshtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// NeedTools skips the test when the OpenSSH client, ssh-keygen or tmux is
// missing (CI installs them: .ci/run).
func NeedTools(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"ssh", "ssh-keygen", "tmux"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (Debian: openssh-client, tmux)", tool)
		}
	}
}

// NewKey makes an ed25519 client key pair in dir and returns the private
// key's path and the public key's authorized_keys line.
func NewKey(t testing.TB, dir, name string) (priv, pubLine string) {
	t.Helper()
	priv = filepath.Join(dir, name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", priv).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	b, err := os.ReadFile(priv + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return priv, strings.TrimSpace(string(b))
}

// Client is how ssh reaches one server: its port and a known_hosts file
// holding the server's host key, so the host key is checked too.
type Client struct {
	Port       int
	KnownHosts string
}

// NewClient writes a known_hosts file for 127.0.0.1:port and hostKeyLine
// (the host's public key in authorized_keys form: "ssh-ed25519 AAAA…").
func NewClient(t testing.TB, dir string, port int, hostKeyLine string) *Client {
	t.Helper()
	kh := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(kh, []byte(fmt.Sprintf("[127.0.0.1]:%d %s\n", port, hostKeyLine)), 0o600); err != nil {
		t.Fatal(err)
	}
	return &Client{Port: port, KnownHosts: kh}
}

// Args is the ssh command line for key (a private key path; "" offers
// none), options first, then 127.0.0.1, then what follows (a command).
func (c *Client) Args(key string, opts []string, after ...string) []string {
	args := []string{"ssh", "-p", strconv.Itoa(c.Port),
		"-F", "/dev/null", // no user or system config: the test says everything
		"-o", "UserKnownHostsFile=" + c.KnownHosts, "-o", "GlobalKnownHostsFile=/dev/null",
		"-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
		"-o", "ConnectTimeout=10", "-o", "LogLevel=ERROR"}
	if key != "" {
		args = append(args, "-i", key)
	} else {
		args = append(args, "-o", "PubkeyAuthentication=no")
	}
	args = append(args, opts...)
	args = append(args, "127.0.0.1")
	return append(args, after...)
}

// Result is a finished command's output and exit status.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs argv without a terminal, for at most 30 s.
func Run(t testing.TB, argv []string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader("")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return Result{out.String(), errb.String(), code}
}

// Term is a terminal of a fixed size running one command: a detached tmux
// session on a server of its own. A shell runs the command, then prints
// its exit status and stays, so the last screen can be read: tmux's own
// remain-on-exit loses what a command writes just before it exits.
type Term struct {
	t    testing.TB
	sock string
}

// exitedLine is what the shell prints after the command: [exited N].
var exitedLine = regexp.MustCompile(`\[exited ([0-9]+)\]`)

// OpenTerm runs argv in a w×h terminal.
func OpenTerm(t testing.TB, w, h int, argv []string) *Term {
	t.Helper()
	dir := t.TempDir()
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g status off\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := &Term{t: t, sock: filepath.Join(dir, "s")}
	wrap := []string{"sh", "-c", `"$@"; echo "[exited $?]"; exec sleep 600`, "sh"}
	args := append([]string{"-f", conf, "new-session", "-d", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "--"}, append(wrap, argv...)...)
	tm.tmux(args...)
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.sock, "kill-server").Run() })
	return tm
}

func (tm *Term) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.sock}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Screen is what the terminal shows now, one line per row.
func (tm *Term) Screen() string { return tm.tmux("capture-pane", "-p") }

// Styled is the screen with its colours and attributes as escape
// sequences (tmux writes a 256-colour cell as 38;5;N, a 24-bit one as
// 38;2;R;G;B).
func (tm *Term) Styled() string { return tm.tmux("capture-pane", "-p", "-e") }

// WaitFor waits up to d for the screen to hold every one of want and
// returns it; the test fails with the last screen otherwise.
func (tm *Term) WaitFor(d time.Duration, want ...string) string {
	tm.t.Helper()
	end := time.Now().Add(d)
	for {
		s := tm.Screen()
		missing := ""
		for _, w := range want {
			if !strings.Contains(s, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return s
		}
		if time.Now().After(end) {
			tm.t.Fatalf("after %s the screen has no %q:\n%s", d, missing, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Keys types keys (tmux key names: Enter, Escape, q).
func (tm *Term) Keys(keys ...string) { tm.tmux(append([]string{"send-keys"}, keys...)...) }

// PID is the process id of the command in the terminal (the shell's
// child).
func (tm *Term) PID() int {
	tm.t.Helper()
	sh := strings.TrimSpace(tm.tmux("display-message", "-p", "#{pane_pid}"))
	b, err := os.ReadFile("/proc/" + sh + "/task/" + sh + "/children")
	if err != nil {
		tm.t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 1 {
		tm.t.Fatalf("the terminal's shell has children %q, want one", f)
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		tm.t.Fatal(err)
	}
	return n
}

// WaitExit waits up to d for the command to exit and returns its status;
// the test fails if it is still running.
func (tm *Term) WaitExit(d time.Duration) int {
	tm.t.Helper()
	end := time.Now().Add(d)
	for {
		if m := exitedLine.FindStringSubmatch(tm.Screen()); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
		if time.Now().After(end) {
			tm.t.Fatalf("the command is still running after %s; screen:\n%s", d, tm.Screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
