package main

import (
	"errors"
	"fmt"
	"io"

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
	if o.out != "" {
		if err := checkOut(o.out, exportHelpHint, o.path); err != nil {
			return err
		}
	}
	r, err := record.Open(o.path)
	if err != nil {
		return dataError(err)
	}
	defer r.Close()
	if o.out == "" {
		if err := exporters[o.format](st.out, r); err != nil {
			return dataError(fmt.Errorf("%s: %w", o.path, err))
		}
	} else if err := exportToFile(o, r); err != nil {
		return err
	}
	if note := runFileNote(o.path, r, false, ""); note != "" {
		fmt.Fprintln(st.err, "normtop: "+note)
	}
	return nil
}

// exportToFile writes the export through writeFileAtomic; an exporter's
// error is a data error (the run file could not be read).
func exportToFile(o *exportOptions, r *record.Reader) error {
	var readErr error
	err := writeFileAtomic(o.out, func(w io.Writer) error {
		if err := exporters[o.format](w, r); err != nil {
			readErr = dataError(fmt.Errorf("%s: %w", o.path, err))
			return readErr
		}
		return nil
	})
	if readErr != nil {
		return readErr
	}
	return err
}
