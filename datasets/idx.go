package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// IDX magic numbers for unsigned-byte data: 0x08 is the element type, the
// last byte the number of dimensions.
const (
	magicImages = 0x803 // ubyte, 3 dimensions: count, rows, cols
	magicLabels = 0x801 // ubyte, 1 dimension: count
)

// maxIDXPayload bounds what a header may announce, so a corrupt header cannot
// make us allocate without limit. MNIST's largest file holds 47 MB.
const maxIDXPayload = 1 << 31

// idx is one decoded IDX file: its dimensions and raw unsigned bytes.
type idx struct {
	dims []int
	data []byte
}

// readIDXFile reads an IDX file, plain or gzip (recognised by its content,
// not its name). Every error names the file.
// Cancelling ctx stops the read (closing the file wakes a read blocked on a
// pipe) with ctx's error.
func readIDXFile(ctx context.Context, path string, magic uint32) (idx, error) {
	f, err := os.Open(path)
	if err != nil {
		return idx{}, err
	}
	defer f.Close()
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	size := int64(-1)
	if st, err := f.Stat(); err == nil {
		if st.IsDir() {
			return idx{}, fmt.Errorf("%s: is a directory, want an IDX file", path)
		}
		if st.Mode().IsRegular() {
			size = st.Size() // a device or a pipe says 0: unknown
		}
	}
	m, err := decodeIDX(ctxReader{ctx, f}, size, magic)
	if ctx.Err() != nil {
		return idx{}, ctx.Err()
	}
	if err != nil {
		return idx{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// decodeIDX decodes an IDX stream, gunzipping it first when it starts with
// the gzip magic. size is the stream's length when known (-1 otherwise); it
// lets a plain file's length be checked before its payload is read.
func decodeIDX(r io.Reader, size int64, magic uint32) (idx, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return idx{}, fmt.Errorf("gzip: %v", err)
		}
		// The stream's size bounds a plausible payload (IDX compresses well
		// under 16:1) without trusting the header's claim for allocation.
		hint := 1 << 20
		if size > 0 {
			hint = max(hint, int(min(size, maxIDXPayload/16))*16)
		}
		m, err := decodeIDXPlain(zr, -1, hint, magic)
		if err != nil {
			return idx{}, err
		}
		if err := zr.Close(); err != nil {
			return idx{}, fmt.Errorf("gzip: %v", err)
		}
		return m, nil
	}
	return decodeIDXPlain(br, size, 1<<20, magic)
}

// decodeIDXPlain decodes an uncompressed IDX stream. size is its length when
// known (-1 otherwise); capHint caps the first allocation for the payload.
func decodeIDXPlain(r io.Reader, size int64, capHint int, magic uint32) (idx, error) {
	dims, payload, err := readIDXHeader(r, magic)
	if err != nil {
		return idx{}, err
	}
	header := int64(4 + 4*len(dims))
	if size >= 0 {
		if size != header+int64(payload) {
			return idx{}, sizeErr(dims, payload, size-header)
		}
		capHint = payload // the file really is that large
	}
	data, err := readExactly(r, payload, capHint)
	if err != nil {
		return idx{}, err
	}
	if len(data) < payload {
		return idx{}, sizeErr(dims, payload, int64(len(data)))
	}
	var one [1]byte
	n, err := io.ReadFull(r, one[:])
	if n == 0 && err != nil && err != io.EOF {
		// A gzip stream reports its CRC and size check here, at its end.
		return idx{}, err
	}
	if n > 0 {
		// Count the excess for the message, but not without bound: a gzip
		// stream could inflate to far more than the file's size.
		extra, err := io.CopyN(io.Discard, r, maxIDXPayload)
		if err != nil && err != io.EOF {
			return idx{}, readErr(err, "")
		}
		return idx{}, sizeErr(dims, payload, int64(payload)+1+extra)
	}
	return idx{dims: dims, data: data}, nil
}

// parseIDX decodes a plain IDX file already in memory; the payload shares
// data's storage instead of being copied.
func parseIDX(data []byte, magic uint32) (idx, error) {
	dims, payload, err := readIDXHeader(bytes.NewReader(data), magic)
	if err != nil {
		return idx{}, err
	}
	header := 4 + 4*len(dims)
	if len(data) != header+payload {
		return idx{}, sizeErr(dims, payload, int64(len(data)-header))
	}
	return idx{dims: dims, data: data[header:]}, nil
}

// readIDXHeader reads and checks the magic and the dimensions, returning the
// payload size they announce.
func readIDXHeader(r io.Reader, magic uint32) (dims []int, payload int, err error) {
	var hdr [4]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		if n == 0 && err == io.EOF {
			return nil, 0, errors.New("empty file, want an IDX header")
		}
		return nil, 0, readErr(err, fmt.Sprintf("truncated header: %d bytes, want at least 4", n))
	}
	got := binary.BigEndian.Uint32(hdr[:])
	if got != magic {
		return nil, 0, fmt.Errorf("wrong magic 0x%x, want 0x%x", got, magic)
	}
	raw := make([]byte, 4*int(magic&0xff))
	if n, err := io.ReadFull(r, raw); err != nil {
		return nil, 0, readErr(err, fmt.Sprintf("truncated header: %d dimension bytes, want %d", n, len(raw)))
	}
	dims = make([]int, len(raw)/4)
	payload = 1
	for i := range dims {
		d := binary.BigEndian.Uint32(raw[4*i:])
		if d == 0 {
			return nil, 0, fmt.Errorf("dimension %d is 0 (dimensions %s)", i, dimString(raw))
		}
		if uint64(payload)*uint64(d) > maxIDXPayload {
			return nil, 0, fmt.Errorf("dimensions %s announce more than %d bytes", dimString(raw), maxIDXPayload)
		}
		dims[i] = int(d)
		payload *= int(d)
	}
	return dims, payload, nil
}

// readExactly reads up to n bytes, growing its buffer as data arrives so a
// header that lies about the size cannot force a large allocation up front.
func readExactly(r io.Reader, n, capHint int) ([]byte, error) {
	buf := make([]byte, 0, min(n, capHint))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
			buf = buf[:len(buf):min(cap(buf), n)]
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break // the caller reports how much arrived
		}
		if err != nil {
			return nil, readErr(err, "")
		}
	}
	return buf, nil
}

// readErr turns an early end of data into the message truncated (a plain
// "truncated" when empty) and passes other read errors through.
func readErr(err error, truncated string) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		if truncated == "" {
			truncated = "truncated"
		}
		return errors.New(truncated)
	}
	return err
}

// sizeErr reports a payload that disagrees with the header's dimensions.
func sizeErr(dims []int, want int, got int64) error {
	what := "truncated"
	if got > int64(want) {
		what = "trailing data"
	}
	return fmt.Errorf("%s: header announces %s = %d data bytes, found %d", what, dimsString(dims), want, got)
}

func dimsString(dims []int) string {
	var b bytes.Buffer
	for i, d := range dims {
		if i > 0 {
			b.WriteString("×")
		}
		fmt.Fprint(&b, d)
	}
	return b.String()
}

func dimString(raw []byte) string {
	dims := make([]int, len(raw)/4)
	for i := range dims {
		dims[i] = int(binary.BigEndian.Uint32(raw[4*i:]))
	}
	return dimsString(dims)
}
