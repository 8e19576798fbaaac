package sshserve

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"os"

	gossh "golang.org/x/crypto/ssh"
)

// AuthorizedKeys are the public keys allowed in, read once at start from a
// file in OpenSSH's authorized_keys format (options before a key, such as
// restrict or from="…", are accepted and ignored: every session is
// read-only anyway). Adding a key means restarting the server, which keeps
// the file from being opened on every connection attempt.
type AuthorizedKeys struct {
	path string
	keys [][]byte // each key's wire encoding
}

// maxAuthorizedKeysBytes bounds the file read at start (OpenSSH's own files
// are a few kilobytes; a path naming a huge file by mistake must not be
// read whole).
const maxAuthorizedKeysBytes = 4 << 20

// ReadAuthorizedKeys reads and checks the file: missing, unreadable, too
// big, a line that is not a key, or no key at all is an error naming the
// file (and the line).
func ReadAuthorizedKeys(path string) (*AuthorizedKeys, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("authorized-keys file %s does not exist (one public key a line, e.g. a copy of ~/.ssh/id_ed25519.pub)", path)
	case err != nil:
		return nil, fmt.Errorf("authorized-keys file %s: %w", path, err)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("authorized-keys file %s is not a regular file", path)
	case st.Size() > maxAuthorizedKeysBytes:
		return nil, fmt.Errorf("authorized-keys file %s is %d bytes; at most %d are read", path, st.Size(), maxAuthorizedKeysBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("authorized-keys file %s: %w", path, err)
	}
	ak := &AuthorizedKeys{path: path}
	for n, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		key, _, _, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, fmt.Errorf("authorized-keys file %s line %d: not a public key (%v)", path, n+1, err)
		}
		ak.keys = append(ak.keys, key.Marshal())
	}
	if len(ak.keys) == 0 {
		return nil, fmt.Errorf("authorized-keys file %s holds no public key: nobody could connect (add one, e.g. ~/.ssh/id_ed25519.pub)", path)
	}
	return ak, nil
}

// Len is how many keys are allowed.
func (ak *AuthorizedKeys) Len() int { return len(ak.keys) }

// Allows reports whether key is one of the file's.
func (ak *AuthorizedKeys) Allows(key gossh.PublicKey) bool {
	w := key.Marshal()
	ok := false
	for _, k := range ak.keys {
		if len(k) == len(w) && subtle.ConstantTimeCompare(k, w) == 1 {
			ok = true
		}
	}
	return ok
}
