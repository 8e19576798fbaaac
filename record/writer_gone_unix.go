//go:build unix

package record

import (
	"errors"
	"os"
	"syscall"
)

// writerGone reports whether a stream's writer, named in its header by
// process id and host, is certainly gone: the host is this one and no
// process has that id. A writer on another host (a shared file system),
// or a header that names none, is never taken as gone here; the lock and
// the 5-s rule of docs/formats.md decide then. A process id reused by another
// process reads as alive (the safe side: "writing" for up to 5 s more).
func writerGone(pid int, host string) bool {
	if pid <= 0 || host == "" {
		return false
	}
	if h, err := os.Hostname(); err != nil || h != host {
		return false
	}
	err := syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH)
}
