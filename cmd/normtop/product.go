package main

import (
	"flag"
	"io"
)

// productFlags are the flags of a command whose output is its product
// (export, report): the format, and the file to write it to instead of
// standard output.
type productFlags struct {
	format string
	out    string
	force  bool // --out may replace a recording (checkOut)
}

// define adds --format (defaulting to format) and --out to fs.
func (p *productFlags) define(fs *flag.FlagSet, format, formatUsage string) {
	p.format = format
	fs.StringVar(&p.format, "format", p.format, formatUsage)
	fs.StringVar(&p.out, "out", "", "file to write (default: stdout)")
	fs.BoolVar(&p.force, "force", false, "let --out replace a file that holds a run file or a stream")
}

// write hands write standard output, or --out through writeOut (which
// never replaces what is not a regular file), and the name messages give
// it.
func (p *productFlags) write(st streams, write func(w io.Writer, where string) error) error {
	if p.out == "" {
		return write(st.out, "standard output")
	}
	return writeOut(p.out, func(w io.Writer) error { return write(w, "--out "+p.out) })
}
