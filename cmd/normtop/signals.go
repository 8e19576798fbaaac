package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// stopSignals turns SIGINT and SIGTERM (and, for the dashboard, SIGHUP: its
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
	sigs := []os.Signal{syscall.SIGINT, syscall.SIGTERM}
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
	}
	return sig.String()
}
