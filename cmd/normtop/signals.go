package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// stopSignalList is the signals that stop a run or an output cleanly:
// SIGINT and SIGTERM, and SIGQUIT (Ctrl-\) unless GOTRACEBACK is set: Go's
// default for SIGQUIT is a goroutine dump and exit 2 (this tool's usage
// error), which a user who did not ask for a dump only reads as a crash,
// and which left the temporary file beside --out. With GOTRACEBACK set
// (a developer asking for the dump), SIGQUIT keeps Go's default.
func stopSignalList() []os.Signal {
	sigs := []os.Signal{syscall.SIGINT, syscall.SIGTERM}
	if quitStops() {
		sigs = append(sigs, syscall.SIGQUIT)
	}
	return sigs
}

func quitStops() bool { return os.Getenv("GOTRACEBACK") == "" }

// quitWatchers counts the handlers (stopSignals, tempGuard) that take
// SIGQUIT now; with none, quitFallback ends the process as SIGTERM's
// default would (exit 131, no dump, nothing printed).
var quitWatchers atomic.Int32

// quitFallback makes SIGQUIT end the process with 131 and no dump while
// no handler above watches it (see stopSignalList).
func quitFallback() {
	if !quitStops() {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGQUIT)
	go func() {
		for range ch {
			if quitWatchers.Load() == 0 {
				os.Exit(128 + int(syscall.SIGQUIT))
			}
		}
	}()
}

// stopSignals turns SIGINT, SIGTERM, SIGQUIT (stopSignalList) (and, for the dashboard, SIGHUP: its
// terminal is gone) into a cancelled context, so that the run stops through
// the same path as a normal end: frames flushed, end record written, run file
// path printed. Headless runs ignore SIGHUP, so an SSH disconnect does not
// stop them, and SIGPIPE, so a closed stdout only stops the log lines.
type stopSignals struct {
	ctx    context.Context
	cancel context.CancelFunc
	ch     chan os.Signal
	mu     sync.Mutex
	got    os.Signal
	done   chan struct{}
}

func watchSignals(parent context.Context, headlessMode bool) *stopSignals {
	s := &stopSignals{ch: make(chan os.Signal, 2), done: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(parent)
	sigs := stopSignalList()
	if headlessMode {
		signal.Ignore(syscall.SIGHUP)
	} else {
		sigs = append(sigs, syscall.SIGHUP)
	}
	// Notify (rather than the default) makes writes to a broken stdout
	// return EPIPE instead of killing the process before the run file is
	// closed.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	signal.Notify(s.ch, sigs...)
	quitWatchers.Add(1)
	go func() {
		defer close(s.done)
		select {
		case sig := <-s.ch:
			s.mu.Lock()
			s.got = sig
			s.mu.Unlock()
			s.cancel()
		case <-s.ctx.Done():
		}
	}()
	return s
}

// signal returns the signal that stopped the run, or nil.
func (s *stopSignals) signal() os.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got
}

// stop releases the signal handlers (a second SIGINT then kills the process
// the default way).
func (s *stopSignals) stop() {
	signal.Stop(s.ch)
	quitWatchers.Add(-1)
	s.cancel()
	<-s.done
}

// signalExitCode is 128 + the signal number, as a shell reports it.
func signalExitCode(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return exitFailure
}

// signalName is the name a user knows a signal by.
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return sig.String()
}
