package sshserve

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normtop/normtop/internal/sshtest"
)

func TestReadAuthorizedKeys(t *testing.T) {
	sshtest.NeedTools(t)
	dir := t.TempDir()
	_, pub := sshtest.NewKey(t, dir, "k")
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, path string
		keys       int
		err        string
	}{
		{"one key", write("one", pub+"\n"), 1, ""},
		{"comments, blank lines, options", write("opts", "# team\n\n  restrict,from=\"10.0.0.0/8\" "+pub+"\n"+pub+"\n"), 2, ""},
		{"missing", filepath.Join(dir, "nope"), 0, "does not exist"},
		{"empty", write("empty", ""), 0, "holds no public key"},
		{"only comments", write("comments", "# nobody yet\n"), 0, "holds no public key"},
		{"garbage line", write("garbage", pub+"\nnot a key at all\n"), 0, "line 2: not a public key"},
		{"a directory", dir, 0, "not a regular file"},
	} {
		ak, err := ReadAuthorizedKeys(c.path)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.err)
		case c.err == "" && ak.Len() != c.keys:
			t.Errorf("%s: %d keys, want %d", c.name, ak.Len(), c.keys)
		}
	}
	if os.Getuid() != 0 { // root reads a 0000 file anyway
		p := write("unreadable", pub+"\n")
		os.Chmod(p, 0)
		if _, err := ReadAuthorizedKeys(p); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("unreadable: %v", err)
		}
	}
}

// The host key is generated once (0600), reused at the next start, and its
// fingerprint is the one ssh-keygen prints; a key others can read is
// refused.
func TestHostKey(t *testing.T) {
	sshtest.NeedTools(t)
	p := filepath.Join(t.TempDir(), "host_key")
	a, err := LoadOrCreateHostKey(p)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Generated || st.Mode().Perm() != 0o600 {
		t.Fatalf("generated %v, mode %04o; want a new key, 0600", a.Generated, st.Mode().Perm())
	}
	b, err := LoadOrCreateHostKey(p)
	if err != nil {
		t.Fatal(err)
	}
	if b.Generated || b.Fingerprint() != a.Fingerprint() {
		t.Fatalf("second start: generated %v, fingerprint %s, want the first's %s", b.Generated, b.Fingerprint(), a.Fingerprint())
	}
	out, err := exec.Command("ssh-keygen", "-l", "-f", p).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen -l: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), a.Fingerprint()) {
		t.Fatalf("ssh-keygen -l says %q, the server %s", out, a.Fingerprint())
	}
	os.Chmod(p, 0o644)
	if _, err := LoadOrCreateHostKey(p); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a world-readable host key: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad")
	os.WriteFile(bad, []byte("not a key"), 0o600)
	if _, err := LoadOrCreateHostKey(bad); err == nil || !strings.Contains(err.Error(), "not an unencrypted SSH private key") {
		t.Fatalf("a file that is not a key: %v", err)
	}
}
