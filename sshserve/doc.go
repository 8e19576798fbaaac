// Package sshserve serves the workspace dashboard (the screens of `normtop
// replay DIR`) over SSH: `normtop serve DIR`. Any SSH client whose public key
// is in the authorized-keys file gets its own dashboard, in its own window
// size and colour profile; nothing else is offered.
//
// It owns:
//   - the server (server.go): charm.land/wish/v2 with its Bubble Tea
//     middleware, public-key authentication only, no subsystem or
//     forwarding, the handshakes in flight bounded; the shutdown that says
//     goodbye to every session;
//   - a session (session.go): the gate that refuses a command, no terminal,
//     one session over the limit; its own workspace program, window size
//     (clamped) and colour profile; the idle timeout;
//   - the log (log.go): one line per connect, disconnect and refusal;
//   - the keys (hostkey.go, authkeys.go): a host key generated once (0600)
//     and reused, and the authorized-keys file read once at start;
//   - the run folder (runs.go): which files of DIR are served (regular *.ntr
//     run files and *.jsonl streams directly in DIR; symbolic links, other
//     ranks' streams and anything outside DIR are not), and a read-once cache
//     of their frames (cache.go) that every session reads through its own
//     cursor, so twenty sessions cost one decode of each file, and a run still
//     being written is followed by one reader for all of them.
//
// The dashboard itself is tui.NewWorkspace, unchanged: this package only
// gives it an Opener. Each session's workspace still builds its own store of
// the runs it shows (tui keeps one per model); the cache saves the file
// reading and decoding, not that.
//
// Why a package and not cmd/normtop: the server is tested here with Debian's
// OpenSSH client against 127.0.0.1, which needs it as a value with a
// listener, a log writer and a Shutdown, not as a process.
package sshserve
