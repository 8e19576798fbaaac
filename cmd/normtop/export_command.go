package main

import (
	"errors"
	"fmt"
	"os"

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

// exportToFile writes next to --out and renames, so a failed export never
// leaves a file that looks complete.
func exportToFile(o *exportOptions, r *record.Reader) error {
	tmp, err := createBeside(o.out)
	if err != nil {
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	defer os.Remove(tmp.Name())
	if err := exporters[o.format](tmp, r); err != nil {
		tmp.Close()
		return dataError(fmt.Errorf("%s: %w", o.path, err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	if err := os.Rename(tmp.Name(), o.out); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err
		}
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	return nil
}
