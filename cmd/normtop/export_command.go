package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

func runExport(args []string, st streams) error {
	o, err := parseExport(args)
	if errors.Is(err, errHelp) {
		flags, _ := newExportFlags()
		fmt.Fprint(st.out, exportHelp)
		printFlags(st.out, flags)
		return nil
	}
	if err != nil {
		return err
	}
	if err := checkOut(o.out, exportHelpHint, o.force, o.path); err != nil {
		return err
	}
	r, err := record.Open(o.path)
	if err != nil {
		return dataError(err)
	}
	defer r.Close()
	if err := o.write(st, func(w io.Writer, where string) error {
		return exportTo(w, where, o, r)
	}); err != nil {
		return err
	}
	if note := runFileNote(o.path, r, false, ""); note != "" {
		fmt.Fprintln(st.err, "normtop: "+probes.SafeText(note))
	}
	return nil
}

// exportTo runs the exporter into w (named where in messages). A write
// error is the output's (exit 1, as report's); any other error is the run
// file's (a data error, exit 3).
func exportTo(w io.Writer, where string, o *exportOptions, r *record.Reader) error {
	ew := &errWriter{w: w}
	err := exporters[o.format](ew, r)
	switch {
	case ew.err != nil:
		return fmt.Errorf("%s: %w", where, unwrapPath(ew.err))
	case err != nil:
		return dataError(fmt.Errorf("%s: %w", o.path, err))
	}
	return nil
}

// errWriter remembers the first write error, which tells an output that
// failed from a run file that could not be read.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
