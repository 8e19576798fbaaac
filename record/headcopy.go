package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// The head copy. The header and the registry are the only records whose
// loss loses the whole run (every frame is decoded under them), so the
// writer writes both payloads a second time, in a record of their own
// (recHeadCopy) right after the registry:
//
//	headerLen:uvarint header[headerLen] registry
//
// A reader takes the first header and registry as they are; only when
// one of them fails its checksums (a flipped bit, a bad sector) does it
// look for the copy and read the run from there, reporting the damaged
// head as a Damage. Readers before the copy skip the record (an unknown
// type), and files written before it open as before: they have no copy.

// maxHeadScan bounds how far past the prelude the reader looks for the
// copy: the damaged header (≤ MaxHeaderSize) and registry (≤ MaxRecordSize)
// lie before it.
const maxHeadScan = preludeSize + 2*recordHeaderSize + MaxHeaderSize + MaxRecordSize

func appendHeadCopy(dst, hdr, reg []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(hdr)))
	dst = append(dst, hdr...)
	return append(dst, reg...)
}

func splitHeadCopy(p []byte) (hdr, reg []byte, ok bool) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		return nil, nil, false
	}
	return p[k : k+int(n)], p[k+int(n):], true
}

// headRecords returns the header and registry payloads and where the
// frames begin: from the file's first two records, or, when either is
// damaged, from the head copy.
func (r *runFile) headRecords() (hdr, reg []byte, dataStart int64, err error) {
	hdr, err = r.readHeadRecord(preludeSize, recHeader, "header")
	if err == nil {
		if len(hdr) > MaxHeaderSize {
			return nil, nil, 0, fmt.Errorf("run file %s: header record is %d bytes, over the %d-byte limit (damaged or not written by normtop)", r.path, len(hdr), MaxHeaderSize)
		}
		hdr = bytes.Clone(hdr) // it aliases the read buffer, which the registry's read reuses
		at := preludeSize + recordHeaderSize + int64(len(hdr))
		if reg, err = r.readHeadRecord(at, recRegistry, "registry"); err == nil {
			return hdr, reg, at + recordHeaderSize + int64(len(reg)), nil
		}
	}
	var dmg *headDamaged
	if !errors.As(err, &dmg) {
		return nil, nil, 0, err // truncated (a follower retries) or unreadable
	}
	at, p, ok := r.findHeadCopy()
	if !ok {
		return nil, nil, 0, err // no copy (a file from before it): the first error, as before
	}
	if hdr, reg, ok = splitHeadCopy(p); !ok || len(hdr) > MaxHeaderSize {
		return nil, nil, 0, err
	}
	r.damaged = append(r.damaged, Damage{Offset: preludeSize, Length: at - preludeSize,
		Reason: "damaged " + dmg.what + " record; the run was read from the head's copy"})
	return hdr, reg, at + recordHeaderSize + int64(len(p)), nil
}

// findHeadCopy scans past the prelude for the first record that verifies
// and is a head copy. It stops at the first frame or index record (the copy
// comes before any: this file has none) and after maxHeadScan bytes.
func (r *runFile) findHeadCopy() (at int64, payload []byte, ok bool) {
	for at = preludeSize + 1; at < maxHeadScan; at++ {
		next, found := r.scanSync(at)
		if !found || next >= maxHeadScan {
			return 0, nil, false
		}
		at = next
		typ, p, st := r.readRecord(at)
		if st != recOK {
			continue
		}
		switch typ {
		case recHeadCopy:
			return at, append([]byte(nil), p...), true // p aliases the read buffer
		case recFrame, recIndex, recStats, recEnd, recTrailer:
			return 0, nil, false
		}
	}
	return 0, nil, false
}
