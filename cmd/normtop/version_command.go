package main

import "fmt"

const versionHelp = `Usage: normtop version

Prints normtop's version, the commit it was built from (with "modified" when
the build had uncommitted changes), the Go version and the platform.
normtop --version does the same.

Examples:
  normtop version
  normtop --version
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
	fmt.Fprintln(st.out, versionLine(buildInfo()))
	return nil
}
