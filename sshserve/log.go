package sshserve

import (
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// logger writes the server's log lines, a timestamp first. Refusals of
// connections that never got in are at most one line a second (a flood of
// them says how many it left out), so a scan cannot fill the log.
type logger struct {
	mu         sync.Mutex
	w          io.Writer
	lastRefuse time.Time
	unsaid     int
}

func (l *logger) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.line(fmt.Sprintf(format, args...))
}

func (l *logger) line(msg string) {
	if l.w != nil {
		fmt.Fprintf(l.w, "%s normtop serve: %s\n", time.Now().UTC().Format(time.RFC3339), msg)
	}
}

func (l *logger) refused(addr net.Addr, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Since(l.lastRefuse) < time.Second {
		l.unsaid++
		return
	}
	l.lastRefuse = time.Now()
	msg := fmt.Sprintf("refused connection from %s: %s", addr, why)
	if l.unsaid > 0 {
		msg += fmt.Sprintf(" (and %d more refused connection(s) not logged one by one)", l.unsaid)
		l.unsaid = 0
	}
	l.line(msg)
}
