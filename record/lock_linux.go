//go:build linux

package record

import (
	"os"
	"syscall"
)

// Open-file-description locks (Linux ≥ 3.15) belong to the open file, not
// to the process, so a reader in the writer's own process (the live TUI, the
// tests) sees the writer's lock too; and the kernel drops the lock when the
// writer dies, SIGKILL included. Values from <fcntl.h>, identical on every
// Linux architecture.
const (
	fOFDGetlk = 36
	fOFDSetlk = 37
)

// lockWriter takes the writer's exclusive lock on the whole file.
func lockWriter(f *os.File) error {
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0}
	return syscall.FcntlFlock(f.Fd(), fOFDSetlk, &lk)
}

// writerLocked asks the kernel whether some open file holds the writer's
// lock, without taking any lock (F_OFD_GETLK only reports). known is false
// when the kernel cannot answer.
func writerLocked(f *os.File) (locked, known bool) {
	lk := syscall.Flock_t{Type: syscall.F_RDLCK, Whence: 0}
	if err := syscall.FcntlFlock(f.Fd(), fOFDGetlk, &lk); err != nil {
		return false, false
	}
	return lk.Type != syscall.F_UNLCK, true
}
