package normspec_test

import (
	"fmt"

	"github.com/normtop/normtop/normspec"
)

// A variant spec as --variants takes it: the name, then options after a
// colon. String gives the canonical spec (options at their defaults left
// out), Full every option the variant takes.
func ExampleParse() {
	c, err := normspec.Parse("powernorm:alpha_fwd=0.95,warmup=400,bwd=paper")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Name(), c.AlphaFwd, c.AlphaBwd, c.Warmup, c.PaperBwd)
	fmt.Println(c.String())

	d, _ := normspec.Parse("layernorm")
	fmt.Println(d.Full())
	// Output:
	// powernorm 0.95 0.9 400 true
	// powernorm:alpha_fwd=0.95,warmup=400,bwd=paper
	// layernorm:conv=p,eps=1e-05
}

// A mistake in a spec is an error that names the variant or option at
// fault and what would be valid.
func ExampleParse_error() {
	_, err := normspec.Parse("batchnorm:momentum=2")
	fmt.Println(err != nil)
	_, err = normspec.Parse("layernrom")
	fmt.Println(err)
	// Output:
	// true
	// norm: unknown variant "layernrom" (valid: none, layernorm, layernorm-simple, detachnorm, detach-mean, detach-variance, adanorm, rmsnorm, batchnorm, pn-v, powernorm, groupnorm, instancenorm)
}

// The registry lists every variant with its options and defaults: what
// `normtop variants` prints.
func ExampleVariants() {
	for _, v := range normspec.Variants() {
		if v.Name == "pn-v" {
			for _, o := range v.Options {
				fmt.Printf("%s=%s\n", o.Name, o.Default)
			}
		}
	}
	// Output:
	// alpha=0.9
	// groups=0
	// eps=1e-5
}
