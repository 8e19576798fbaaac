package record

import (
	"bytes"
	"io"
	"os"
)

// sniffSize is how much of a file RecordingKind reads: a stream's header
// line names "normtop_stream" near its start (the writers put it first).
const sniffSize = 4 << 10

// RecordingKind says whether the file at path (symlinks followed) holds a
// recording: "run file" when it starts with the run file's magic, "stream"
// when its first line is a stream header, "" otherwise (or when it cannot
// be read: then it is the caller's write that reports). Commands that
// write an output file use it so that a typo or a link (runs/latest)
// cannot replace a recording.
func RecordingKind(path string) string {
	// Stat first: opening a FIFO (a valid --out) for reading would block
	// until a writer came.
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	b := make([]byte, sniffSize)
	n, _ := io.ReadFull(f, b)
	return recordingKind(b[:n])
}

func recordingKind(b []byte) string {
	if len(b) >= 4 && bytes.HasPrefix(b, fileMagic[:4]) {
		return "run file"
	}
	if isStream(b) {
		line, _, _ := bytes.Cut(bytes.TrimLeft(b, " \t\r\n"), []byte("\n"))
		if bytes.Contains(line, []byte(`"normtop_stream"`)) {
			return "stream"
		}
	}
	return ""
}
