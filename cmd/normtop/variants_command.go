package main

import (
	"errors"
	"fmt"
	"github.com/normtop/normtop/normspec"
	"strings"
	"unicode/utf8"
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
	vs := normspec.Variants()
	width := 0 // of "name=default", for aligning the help texts
	for _, v := range vs {
		for _, opt := range v.Options {
			if n := utf8.RuneCountInString(opt.Name + "=" + opt.Default); n <= maxOptionWidth && n > width {
				width = n
			}
		}
	}
	for _, v := range vs {
		fmt.Fprintf(st.out, "%-17s %s\n", v.Name, v.Summary)
		for _, opt := range v.Options {
			nd := opt.Name + "=" + opt.Default
			pad := width - utf8.RuneCountInString(nd)
			switch {
			case opt.Help == "":
				fmt.Fprintf(st.out, "    %s\n", nd)
			case pad < 0: // a long default: its help goes on the next line
				fmt.Fprintf(st.out, "    %s\n    %s  %s\n", nd, strings.Repeat(" ", width), opt.Help)
			default:
				fmt.Fprintf(st.out, "    %s%s  %s\n", nd, strings.Repeat(" ", pad), opt.Help)
			}
		}
	}
	return nil
}

// maxOptionWidth caps the option column of normtop variants.
const maxOptionWidth = 20
