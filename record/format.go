package record

import (
	"encoding/binary"
	"hash/crc32"
)

// FormatVersion is the run-file format this package writes and the newest it
// reads. Bump it for any change an older reader would misread; adding a new
// record type does not need a bump (readers skip unknown types).
const FormatVersion = 1

// fileMagic opens every run file. The high byte and the CR LF catch files
// mangled by text-mode transfers, as in PNG.
var fileMagic = [8]byte{0x89, 'N', 'T', 'R', 'U', 'N', '\r', '\n'}

// preludeSize is magic(8) + version(4) + crc32c of the 12 bytes before it(4).
const preludeSize = 16

// syncMarker starts every record; the reader scans for it to resynchronise
// after damage.
var syncMarker = [4]byte{0xE2, 'N', 'T', 'r'}

// Record framing: sync(4) type(1) length(4) headerCRC(4) payloadCRC(4) payload.
// headerCRC covers type and length, so a damaged length is detected before
// the reader waits for (or reads) the payload it claims.
const recordHeaderSize = 17

// MaxRecordSize bounds a record's payload. The writer refuses larger records
// and the reader treats a larger length as damage, so no forged length makes
// the reader allocate more than this.
const MaxRecordSize = 16 << 20

// MaxHeaderSize bounds the header record's JSON, far below MaxRecordSize:
// a real header is a few KiB (tens with thousands of layers), while 16 MiB
// of forged JSON such as ["","",...] decodes to hundreds of MB. The writer
// refuses a larger header and the reader rejects one before decoding it.
const MaxHeaderSize = 1 << 20

// Record types. Readers skip types they do not know.
const (
	recHeader   byte = 1 // JSON: format version, probes.RunMeta, writer facts
	recRegistry byte = 2 // series ids → (variant, layer, probe name)
	recFrame    byte = 3 // one probes.Frame
	recIndex    byte = 4 // keyframe offsets and per-series min/max/count
	recEnd      byte = 5 // run status at Close
	recTrailer  byte = 6 // offset of the last index record; the file's last record
	recStats    byte = 7 // per-series count/min/max since the previous index record
	recHeadCopy byte = 8 // the header and registry payloads again (headcopy.go)
)

// trailerPayload is the trailer's fixed payload: offset of the last index
// record (8) and of the end record (8), little-endian. The trailer record
// is always the file's last recordHeaderSize+trailerPayload bytes.
const trailerPayload = 16

// Writer tuning. A keyframe resets every predictor so decoding can start
// there (seek targets and resync points); an index record lists the
// keyframes since the previous one.
const (
	keyframeEvery = 64 << 10 // bytes of frame records between keyframes
	indexEvery    = 1 << 20  // bytes between index records
)

// keyframeRecords: a frame record opened after this many frame records
// without a keyframe starts with one (0: only keyframeEvery counts). At 1
// every frame record starts with a keyframe, so damage to one record costs
// its own frames and no others: the frames after it no longer depend on
// predictor state the damaged bytes held. A var so that tests can measure
// the other settings.
var keyframeRecords = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// appendRecord frames payload as one record of type typ.
func appendRecord(dst []byte, typ byte, payload []byte) []byte {
	var h [recordHeaderSize]byte
	copy(h[:4], syncMarker[:])
	h[4] = typ
	binary.LittleEndian.PutUint32(h[5:9], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[9:13], crc32c(h[4:9]))
	binary.LittleEndian.PutUint32(h[13:17], crc32c(payload))
	dst = append(dst, h[:]...)
	return append(dst, payload...)
}

// headerStatus classifies the 17 bytes at a candidate record start.
type headerStatus int

const (
	hdrOK headerStatus = iota
	hdrBadSync
	hdrBadCRC
	hdrTooLong
)

// parseRecordHeader checks sync, header CRC and the length bound.
func parseRecordHeader(h []byte) (typ byte, n int, payloadCRC uint32, st headerStatus) {
	if [4]byte(h[:4]) != syncMarker {
		return 0, 0, 0, hdrBadSync
	}
	if crc32c(h[4:9]) != binary.LittleEndian.Uint32(h[9:13]) {
		return 0, 0, 0, hdrBadCRC
	}
	l := binary.LittleEndian.Uint32(h[5:9])
	if l > MaxRecordSize {
		return 0, 0, 0, hdrTooLong
	}
	return h[4], int(l), binary.LittleEndian.Uint32(h[13:17]), hdrOK
}

func appendPrelude(dst []byte) []byte {
	var p [preludeSize]byte
	copy(p[:8], fileMagic[:])
	binary.LittleEndian.PutUint32(p[8:12], FormatVersion)
	binary.LittleEndian.PutUint32(p[12:16], crc32c(p[:12]))
	return append(dst, p[:]...)
}
