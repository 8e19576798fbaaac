package main

import (
	"errors"
	"fmt"
	"io"

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
	if err := checkOut(o.out, plotHelpHint, o.force, o.paths...); err != nil {
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
	// A file is written whole or not at all; a device, a FIFO or a link's
	// target is written in place, never replaced (outfile.go).
	return writeOut(o.out, write)
}
