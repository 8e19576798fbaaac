package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
	tmp, err := os.CreateTemp(filepath.Dir(o.out), "."+filepath.Base(o.out)+".*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary name would only confuse
		}
		return fmt.Errorf("--out %s: cannot create it: %w", o.out, err)
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
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	return nil
}
