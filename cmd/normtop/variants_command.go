package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/normtop/normtop/norm"
)

const variantsHelp = `Usage: normtop variants

Lists every normalization variant: its name, what it is, and its options
with their defaults. Use them in --variants, options after a colon:
  normtop train --variants layernorm,adanorm:k=0.1,powernorm:alpha_fwd=0.95,warmup=400

Example:
  normtop variants
`

func runVariants(args []string, st streams) error {
	fs := newFlagSet("variants")
	pos, err := parseArgs(fs, args, "normtop variants --help")
	if errors.Is(err, errHelp) {
		fmt.Fprint(st.out, variantsHelp)
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("normtop variants --help", "variants takes no arguments, got %q", pos[0])
	}
	for _, v := range norm.Variants() {
		fmt.Fprintf(st.out, "%-17s %s\n", v.Name, v.Summary)
		for _, opt := range v.Options {
			line := fmt.Sprintf("%-17s   %s=%s", "", opt.Name, opt.Default)
			if opt.Help != "" {
				line = fmt.Sprintf("%-36s %s", line, opt.Help)
			}
			fmt.Fprintln(st.out, strings.TrimRight(line, " "))
		}
	}
	return nil
}
