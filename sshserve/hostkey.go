package sshserve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// DefaultHostKeyPath is where the host key lives when --host-key is not
// given: beside the served folder (not in it: it is not a run file, and a
// folder that is copied or shared should not carry the key along).
func DefaultHostKeyPath(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return filepath.Join(filepath.Dir(filepath.Clean(abs)), ".normtop_serve_host_ed25519_key")
}

// HostKey is the server's identity: loaded from path, or generated there
// (ed25519, OpenSSH private key format, mode 0600) when path does not exist,
// so clients see the same fingerprint at every start.
type HostKey struct {
	Signer    gossh.Signer
	Path      string
	Generated bool // written by this start
}

// Fingerprint is the key's SHA256 fingerprint, as ssh and ssh-keygen -l
// print it.
func (h *HostKey) Fingerprint() string { return gossh.FingerprintSHA256(h.Signer.PublicKey()) }

// LoadOrCreateHostKey returns the host key at path, generating it first if
// there is no file. An existing key readable or writable by others is
// refused, as sshd refuses one: anyone who can read it can impersonate the
// server.
func LoadOrCreateHostKey(path string) (*HostKey, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return createHostKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("host key %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("host key %s is not a regular file", path)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("host key %s has mode %04o: others can read it, so it is not used (chmod 600 %s)", path, st.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("host key %s: %w", path, err)
	}
	signer, err := gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("host key %s is not an unencrypted SSH private key (%v)", path, err)
	}
	return &HostKey{Signer: signer, Path: path}, nil
}

// createHostKey writes a new ed25519 key to path. It is written to a
// temporary file first and linked into place, so a crash never leaves half
// a key and two servers starting at once never overwrite each other's.
func createHostKey(path string) (*HostKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("host key: generating: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "normtop serve host key")
	if err != nil {
		return nil, fmt.Errorf("host key: encoding: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".normtop-host-key-*")
	if err != nil {
		return nil, fmt.Errorf("host key %s: cannot write it: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600 already; say so for the reader.
	if err := tmp.Chmod(0o600); err == nil {
		_, err = tmp.Write(pem.EncodeToMemory(block))
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("host key %s: writing: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) { // another server made it first: use that one
			return LoadOrCreateHostKey(path)
		}
		return nil, fmt.Errorf("host key %s: %w", path, err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	return &HostKey{Signer: signer, Path: path, Generated: true}, nil
}
