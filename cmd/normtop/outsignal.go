package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/normtop/normtop/probes"
)

// tempGuard removes a temporary --out file when SIGINT, SIGTERM, SIGQUIT or SIGHUP
// arrives while it is being written, then exits 128+signal as the default
// action would. Without it the signal's default action kills the process
// and leaves the hidden temporary file behind (130 MB of a large export).
type tempGuard struct {
	mu      sync.Mutex // held by rename and by the handler: the file is either renamed or removed
	tmp     string     // the temporary file, once created (set under mu)
	renamed bool
	ch      chan os.Signal
	quit    chan struct{}
	done    chan struct{}
}

// removeOnSignal starts watching before the temporary file exists (the
// guard's createBeside makes it), so no signal can come between its
// creation and the handler: that window left .NAME.123 files behind under
// load.
func removeOnSignal(out string) *tempGuard {
	g := &tempGuard{ch: make(chan os.Signal, 1), quit: make(chan struct{}), done: make(chan struct{})}
	signal.Notify(g.ch, append(stopSignalList(), syscall.SIGHUP)...)
	quitWatchers.Add(1)
	go func() {
		defer close(g.done)
		select {
		case sig := <-g.ch:
			g.mu.Lock() // never released: the process ends here
			if !g.renamed {
				if g.tmp != "" {
					os.Remove(g.tmp)
				}
				// stderr directly: the handler runs beside the command,
				// which may hold st.err's messages in no order with it.
				fmt.Fprintf(os.Stderr, "normtop: stopped by %s; --out %s was not written\n", signalName(sig), probes.SafeText(out))
			}
			os.Exit(signalExitCode(sig))
		case <-g.quit:
		}
	}()
	return g
}

// createBeside creates the temporary file beside target (outfile.go's
// createBeside) holding mu, so a signal handled meanwhile waits for its
// name and removes it.
func (g *tempGuard) createBeside(target string) (*os.File, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f, err := createBeside(target)
	if err == nil {
		g.tmp = f.Name()
	}
	return f, err
}

// rename renames the temporary file over target unless a signal got there
// first (then the handler exits the process and rename never returns).
func (g *tempGuard) rename(tmp, target string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	err := os.Rename(tmp, target)
	g.renamed = err == nil
	return err
}

// release stops watching: signals take their default action again.
func (g *tempGuard) release() {
	signal.Stop(g.ch)
	quitWatchers.Add(-1)
	close(g.quit)
	<-g.done
}
