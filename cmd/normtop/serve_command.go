package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/normtop/normtop/record"
	"github.com/normtop/normtop/sshserve"
)

// serveGoodbyeWait is how long a stopping server waits for its sessions to
// say goodbye and close before it closes their connections.
const serveGoodbyeWait = 3 * time.Second

func runServe(args []string, st streams) error {
	o, err := parseServe(args)
	if errors.Is(err, errHelp) {
		flags, _ := newServeFlags()
		fmt.Fprint(st.out, serveHelp)
		printFlags(st.out, flags)
		return nil
	}
	if err != nil {
		return err
	}
	// Everything a user can get wrong is checked before the port is taken
	// and before a host key is written.
	if err := checkServeDir(o.dir); err != nil {
		return usageError(serveHelpHint, err)
	}
	keys, err := sshserve.ReadAuthorizedKeys(o.authorizedKeys)
	if err != nil {
		return usageError(serveHelpHint, err)
	}
	hostKeyPath := o.hostKey
	if hostKeyPath == "" {
		hostKeyPath = sshserve.DefaultHostKeyPath(o.dir)
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", o.listen, err) // exit 1: the address, not the command, is at fault
	}
	hostKey, err := sshserve.LoadOrCreateHostKey(hostKeyPath)
	if err != nil {
		ln.Close()
		return usageError(serveHelpHint, err)
	}
	srv, err := sshserve.New(sshserve.Config{
		Dir: o.dir, Listener: ln, Keys: keys, HostKey: hostKey, Log: st.err,
		Note:        func(name string, r *record.Reader) string { return runFileNote(name, r, false, "") },
		MaxSessions: o.maxSessions, IdleTimeout: o.idleTimeout,
	})
	if err != nil {
		ln.Close()
		return err
	}
	made := ""
	if hostKey.Generated {
		made = " (generated now)"
	}
	fmt.Fprintf(st.err, "normtop serve: host key %s%s, fingerprint %s\n", hostKey.Path, made, hostKey.Fingerprint())
	fmt.Fprintf(st.err, "normtop serve: serving %s on %s to the %d key(s) of %s; connect with ssh -t -p %d HOST\n",
		o.dir, ln.Addr(), keys.Len(), o.authorizedKeys, ln.Addr().(*net.TCPAddr).Port)

	sig := watchSignals(context.Background(), true)
	defer sig.stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve() }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-sig.ctx.Done():
	}
	s := sig.signal()
	n := srv.Shutdown(signalName(s), serveGoodbyeWait)
	<-done
	fmt.Fprintf(st.err, "normtop serve: stopped by %s; %d session(s) ended with a goodbye\n", signalName(s), n)
	return &cliError{code: signalExitCode(s), err: errQuiet}
}

// checkServeDir says in one line why dir cannot be served.
func checkServeDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("serve %s: no such folder (the folder of run files to serve; default ./runs)", dir)
	case err != nil:
		return fmt.Errorf("serve %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("serve %s: not a folder (serve takes the folder of run files; normtop replay FILE shows one)", dir)
	}
	if _, err := sshserve.ListRuns(dir); err != nil {
		return fmt.Errorf("serve %s: cannot list it: %w", dir, err)
	}
	return nil
}
