// Package record owns normtop's run file: a crash-safe, append-only log of
// every probes.Frame of a run, written by one process and read by any number
// of others while it grows.
//
// The writer (Create/Write/Close) never drops a Frame; it applies
// back-pressure by writing synchronously. The reader (Open/Next/Seek) reads
// what is complete, resynchronises past damaged bytes and reports them
// (Damage), follows a file that is still being written (Next returns io.EOF
// at the current end and later calls return what was appended since), and
// seeks through index records without reading the whole file. Exports turn a
// run file into CSV, JSON Lines or a Markdown summary table.
//
// The byte layout is documented in FORMAT.md next to this file; format.go
// holds its constants. record depends on probes only.
package record
