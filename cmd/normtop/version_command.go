package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); otherwise
// the VCS revision the binary was built from is shown.
var version = "dev"

func versionString() string {
	s := "normtop " + version + " (" + runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, dirty string
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				rev = kv.Value
			case "vcs.modified":
				if kv.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			s += ", commit " + rev + dirty
		}
	}
	return s + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}

const versionHelp = `Usage: normtop version

Prints the version, the Go version and the commit normtop was built from.

Example:
  normtop version
`

func runVersion(args []string, st streams) error {
	fs := newFlagSet("version")
	pos, err := parseArgs(fs, args, "normtop version --help")
	if err == errHelp {
		fmt.Fprint(st.out, versionHelp)
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("normtop version --help", "version takes no arguments, got %q", pos[0])
	}
	fmt.Fprintln(st.out, versionString())
	return nil
}
