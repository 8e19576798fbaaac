package main

import (
	"flag"
	"time"
)

const serveHelpHint = "normtop serve --help"

type serveOptions struct {
	dir            string
	listen         string
	authorizedKeys string
	hostKey        string // "" = sshserve.DefaultHostKeyPath(dir)
	maxSessions    int
	idleTimeout    time.Duration
}

func newServeFlags() (*flag.FlagSet, *serveOptions) {
	o := &serveOptions{listen: ":2222", maxSessions: 16, idleTimeout: 30 * time.Minute}
	fs := newFlagSet("serve")
	fs.StringVar(&o.listen, "listen", o.listen, "address to listen on (127.0.0.1:2222: this machine only)")
	fs.StringVar(&o.authorizedKeys, "authorized-keys", "", "file of the public keys allowed in, one a line (OpenSSH authorized_keys format); required")
	fs.StringVar(&o.hostKey, "host-key", "", "the server's private key; generated there (0600) on first start (default: .normtop_serve_host_ed25519_key beside DIR)")
	fs.IntVar(&o.maxSessions, "max-sessions", o.maxSessions, "dashboards open at once; one more is refused with a line")
	fs.DurationVar(&o.idleTimeout, "idle-timeout", o.idleTimeout, "close a session when no key was pressed for this long (0 = never)")
	return fs, o
}

func parseServe(args []string) (*serveOptions, error) {
	fs, o := newServeFlags()
	pos, err := parseArgs(fs, args, serveHelpHint)
	if err != nil {
		return nil, err
	}
	switch {
	case len(pos) > 1:
		return nil, usageErrorf(serveHelpHint, "serve takes one folder of run files, got %d arguments", len(pos))
	case o.authorizedKeys == "":
		return nil, usageErrorf(serveHelpHint, "--authorized-keys FILE is required: the public keys allowed in (e.g. a copy of ~/.ssh/authorized_keys)")
	case o.maxSessions < 1:
		return nil, usageErrorf(serveHelpHint, "--max-sessions %d: want 1 or more", o.maxSessions)
	case o.idleTimeout < 0:
		return nil, usageErrorf(serveHelpHint, "--idle-timeout %s: want a duration ≥ 0 (e.g. 15m; 0 = never)", o.idleTimeout)
	}
	o.dir = "runs"
	if len(pos) == 1 {
		o.dir = pos[0]
	}
	return o, nil
}

const serveHelp = `Usage: normtop serve [DIR] --authorized-keys FILE [flags]

Serves the workspace of DIR's run files and streams (default ./runs: the
screens of normtop replay DIR, live runs followed) over SSH, to anyone whose
public key is in the authorized-keys file. Each session gets its own
dashboard in its own window size and colours; connect with
  ssh -t -p 2222 HOST

Read-only: no shell, no command, no port forwarding, no subsystem; public-key
authentication only (no password, no keyboard-interactive); only regular
files directly in DIR are opened (symbolic links are not followed). A
session cannot stop or change a run.

The host key is generated on first start (ed25519, mode 0600) and reused;
its fingerprint is printed at every start, for clients to check.

Limits: --max-sessions dashboards at once (default 16); a session with no key
pressed for --idle-timeout is closed; at most 64 connections may be in their
SSH handshake at once, each for at most 10 s (garbage or silence is dropped);
a screen is drawn at most 512×256 cells.
One log line on stderr per connect, disconnect (key fingerprint, user,
address, duration) and refusal. SIGTERM (or Ctrl-C) ends every session with a
goodbye line; the exit status is then 143 (130).

Exit codes: 2 a missing DIR or authorized-keys file, an unreadable or empty
one, a bad host key; 1 the address in use; nothing is started then.

Examples:
  normtop serve runs --authorized-keys ~/.ssh/authorized_keys
  normtop serve runs --authorized-keys team.keys --listen 127.0.0.1:2222
  ssh -t -p 2222 gpu-box

Flags:
`
