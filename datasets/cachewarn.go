package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
)

// Warn, when set (the command sets it to print "normtop: warning: ..." on
// stderr), receives one line the first time in this process that a cache
// cannot be written. Data loads all the same, from the network or the Go
// module cache; but without the line, a cache directory that is not
// writable would make every run download again without a word.
var Warn func(msg string)

var cacheWarnOnce sync.Once

// storeCache writes files to the cache directory dir and warns (once per
// process) when it cannot; what is the data (e.g. "the MNIST copy").
func storeCache(dir, what string, raws map[string][]byte) {
	err := writeCache(dir, raws)
	if err == nil {
		return
	}
	cacheWarnOnce.Do(func() {
		if Warn != nil {
			Warn(fmt.Sprintf("cannot write the cache %s (%v): %s is fetched or decoded again on every run; set XDG_CACHE_HOME to a writable directory", dir, unwrapPathErr(err), what))
		}
	})
}

// unwrapPathErr drops a PathError's operation and (temporary) file name.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
