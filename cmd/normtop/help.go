package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// printFlags lists a flag set the way normtop's help writes flags:
// "--name value  usage (default x)".
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		left := "  --" + f.Name
		if name != "" {
			left += " " + name
		}
		line := left
		if len(left) < 24 {
			line += strings.Repeat(" ", 24-len(left))
		} else {
			line += "\n" + strings.Repeat(" ", 24)
		}
		line += usage
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			line += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintln(w, line)
	})
}
