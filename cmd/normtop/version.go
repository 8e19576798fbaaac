package main

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Version is normtop's release, the one CHANGELOG.md's newest entry names.
// It is raised by hand with each milestone; the commit a binary was built
// from comes from the Go toolchain's VCS stamp (see versionLine), so a
// build between releases is still told apart.
const Version = "0.5.0-dev"

// revisionDigits is how much of the commit hash versionLine prints: enough
// to be unique in this repository for years, short enough to read.
const revisionDigits = 12

// versionLine is what `normtop version` prints:
//
//	normtop 0.5.0-dev (0123456789ab, modified; go1.26.8 linux/amd64)
//
// The commit and "modified" (uncommitted changes in the build) come from
// the build's VCS settings, which `go build` and `go install` record inside
// a git checkout; `go run` and test binaries carry none, and the line then
// names only the toolchain and platform.
func versionLine(bi *debug.BuildInfo) string {
	var build []string
	if rev, modified := vcsOf(bi); rev != "" {
		build = append(build, rev)
		if modified {
			build = append(build, "modified")
		}
	}
	toolchain := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	if len(build) == 0 {
		return "normtop " + Version + " (" + toolchain + ")"
	}
	return "normtop " + Version + " (" + strings.Join(build, ", ") + "; " + toolchain + ")"
}

// vcsOf reads the commit (shortened to revisionDigits) and the modified
// flag from the build settings; nil build info gives neither.
func vcsOf(bi *debug.BuildInfo) (rev string, modified bool) {
	if bi == nil {
		return "", false
	}
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			modified = kv.Value == "true"
		}
	}
	if len(rev) > revisionDigits {
		rev = rev[:revisionDigits]
	}
	return rev, modified
}

// buildInfo is the running binary's build information, nil when the binary
// carries none.
func buildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}
