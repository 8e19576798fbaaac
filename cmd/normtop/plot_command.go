package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/normtop/normtop/report"
)

func runPlot(args []string, st streams) error {
	o, err := parsePlot(args)
	if errors.Is(err, errHelp) {
		flags, _ := newPlotFlags()
		fmt.Fprint(st.out, plotHelp)
		printFlags(st.out, flags)
		return nil
	}
	if err != nil {
		return err
	}
	if err := checkOut(o.out, plotHelpHint, o.paths...); err != nil {
		return err
	}
	fig, err := report.PlotFigure(o.paths, report.PlotRequest{Series: o.probe, Layer: o.layer,
		Variants: o.variantList(), LogY: o.log, Smooth: o.smooth})
	var bad *report.BadRequest
	switch {
	case errors.As(err, &bad):
		return usageError(plotHelpHint, err)
	case err != nil:
		return dataError(err)
	}
	write := func(w io.Writer) error {
		if err := fig.Write(w, o.format, 0, 0); err != nil {
			return fmt.Errorf("--out %s: %w", o.out, err)
		}
		return nil
	}
	// A device or a FIFO (/dev/stdout, a pipe another process reads) is
	// written in place, never replaced by a rename; a file is written
	// whole or not at all.
	if fi, err := os.Stat(o.out); err == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(o.out, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("--out %s: %w", o.out, unwrapPathErr(err))
		}
		if err := write(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return writeFileAtomic(o.out, write)
}

// unwrapPathErr drops a PathError's operation and file name (the message
// names --out already).
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
