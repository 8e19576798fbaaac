package main

import (
	"flag"
	"io"

	"github.com/normtop/normtop/record"
)

const exportHelpHint = "normtop export --help"

type exportOptions struct {
	path string
	productFlags
}

func newExportFlags() (*flag.FlagSet, *exportOptions) {
	o := &exportOptions{}
	fs := newFlagSet("export")
	o.define(fs, "csv", "csv | jsonl | md (md: the final validation metric per variant, papers' style)")
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
