package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/normtop/normtop/record"
)

const exportHelpHint = "normtop export --help"

type exportOptions struct {
	path   string
	format string
	out    string
}

func newExportFlags() (*flag.FlagSet, *exportOptions) {
	o := &exportOptions{format: "csv"}
	fs := newFlagSet("export")
	fs.StringVar(&o.format, "format", o.format, "csv | jsonl | md (md: the final validation metric per variant, papers' style)")
	fs.StringVar(&o.out, "out", "", "file to write (default: stdout)")
	return fs, o
}

// exporters maps --format values to record's exporters.
var exporters = map[string]func(io.Writer, *record.Reader) error{
	"csv":   record.ExportCSV,
	"jsonl": record.ExportJSONL,
	"md":    record.ExportMarkdown,
}

func parseExport(args []string) (*exportOptions, error) {
	fs, o := newExportFlags()
	pos, err := parseArgs(fs, args, exportHelpHint)
	if err != nil {
		return nil, err
	}
	switch {
	case len(pos) == 0:
		return nil, usageErrorf(exportHelpHint, "export needs a run file (e.g. normtop export runs/latest --format md)")
	case len(pos) > 1:
		return nil, usageErrorf(exportHelpHint, "export takes one run file, got %d arguments", len(pos))
	case exporters[o.format] == nil:
		return nil, usageErrorf(exportHelpHint, "--format %q: want csv, jsonl or md", o.format)
	}
	o.path = pos[0]
	return o, nil
}

const exportHelp = `Usage: normtop export FILE [flags]

Writes a run file as CSV or JSON Lines (every recorded value, one row per
step, variant, layer and probe) or as a Markdown table in the papers' style
(final validation metric per variant, "Diverge" where a variant diverged).

Examples:
  normtop export runs/latest --format md
  normtop export runs/latest --format csv --out run.csv
  normtop export runs/20261122-031500-mlp.ntr --format jsonl | jq .

Flags:
`

func runExport(args []string, st streams) error {
	o, err := parseExport(args)
	if errors.Is(err, errHelp) {
		fs, _ := newExportFlags()
		fmt.Fprint(st.out, exportHelp)
		printFlags(st.out, fs)
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
