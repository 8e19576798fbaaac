//go:build unix

package record

import (
	"os"
	"syscall"
)

// linkCount is the file's number of names (st_nlink); -1 when unknown.
func linkCount(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Nlink)
	}
	return -1
}
