package main

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
)

// outStream is standard output, remembering its first write error: a
// command whose product is its output (replay --headless, export, report,
// variants, version, --help) must not exit 0 when that output was lost, as
// into /dev/full, while the write errors themselves are dropped by
// fmt.Fprint and by printers that stop quietly.
type outStream struct {
	*os.File
	mu  sync.Mutex
	err error
}

func (o *outStream) Write(p []byte) (int, error) {
	n, err := o.File.Write(p)
	if err != nil {
		o.mu.Lock()
		if o.err == nil {
			o.err = err
		}
		o.mu.Unlock()
	}
	return n, err
}

// check turns a command's nil error into the output's write error: one line
// and exit 1, or, for a reader that went away (EPIPE, as `| head` does), a
// quiet 141, the status a shell shows for a process killed by SIGPIPE.
func (o *outStream) check(cmdErr error) error {
	o.mu.Lock()
	err := o.err
	o.mu.Unlock()
	if cmdErr != nil || err == nil {
		return cmdErr
	}
	if errors.Is(err, syscall.EPIPE) {
		return &cliError{code: 128 + int(syscall.SIGPIPE), err: errQuiet}
	}
	return fmt.Errorf("standard output: %w", unwrapPath(err))
}
