// Package record owns normtop's run file: a crash-safe, append-only log of
// every probes.Frame of a run, written by one process and read by any number
// of others while it grows.
//
// The writer (Create/Write/Close) never drops a Frame; it applies
// back-pressure by writing synchronously, shares one checksummed record
// among frames written in a burst, and flushes in the background so that
// followers see a frame within a fraction of a second. It holds an
// open-file-description lock for its lifetime, which the kernel drops if it
// dies, so readers can tell a run being written from one that was killed
// (Reader.State). Every second, and again at Close, it checks that its path
// still names its file (pathcheck.go): a loss is said at once
// (Writer.OnPathLost) and, at Close, the recording is saved elsewhere
// (LostError).
//
// The reader (Open/Next/Seek) reads what is complete, leaves a partly
// written record for later instead of calling it damage, resynchronises
// past damaged bytes and reports them (Damage), follows a growing file
// (Next returns io.EOF at the current end; later calls return what was
// appended since), and seeks through index records without reading the
// whole file (Seek, LastStep, Stats). Exports turn a run file into CSV,
// JSON Lines (export_jsonl.go) or a Markdown summary table.
//
// Each Frame is folded once into the run's probes.Standings on its path:
// the writer's (Writer.Standings: its end record and the recorder's exit
// status) and a finished file's (ReadStandings: the exports' summaries).
//
// The same Reader also reads a stream (docs/formats.md): the run as JSON Lines,
// written by trainers outside normtop (the PyTorch hook in python/), told
// apart from a run file by its content. Each format is a source (source.go:
// what a recording yields — its header, its frames from the seek target on,
// its end, its damage, how far it is written): runFile (runfile.go; its
// records reader_records.go, its index seek.go, its head's copy
// headcopy.go) and streamFile (stream_reader.go, stream.go; the streams of
// several ranks side by side: stream_ranks.go). The Reader (reader.go) is
// written once over the source; Next, Seek, LastStep, End, State, Ended,
// Damage and following answer for either. It is a second format behind one
// Reader, not a package of its own: a separate package could reach the
// Reader's position and state only through exported internals or a
// registration hook.
//
// The byte layout is documented in the repository's docs/formats.md; format.go
// holds its constants, codec.go, codec_fields.go and bits.go the value coding, index.go and
// seek.go the index. record depends on probes only.
package record
