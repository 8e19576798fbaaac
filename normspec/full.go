package normspec

import (
	"strconv"
	"strings"
)

// Full is the spec with every option the variant takes, defaults included
// ("powernorm:conv=P,eps=1e-05,alpha_fwd=0.9,..."), in registry order: what
// a run's config panel shows, where String leaves the defaults out.
func (c Config) Full() string {
	var opts []string
	for _, o := range kindOptions(c.Kind) {
		if v, ok := c.optionValue(o); ok {
			opts = append(opts, o+"="+v)
		}
	}
	if len(opts) == 0 {
		return c.Name()
	}
	return c.Name() + ":" + strings.Join(opts, ",")
}

// optionValue is option o's value as a spec writes it; warmup -1 and
// groups 0 are the site's own (the model's warm-up, its heads).
func (c Config) optionValue(o string) (string, bool) {
	ff := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch o {
	case "conv":
		return c.Conv.String(), true
	case "eps":
		return ff(c.Eps), true
	case "c":
		return ff(c.C), true
	case "k":
		return ff(c.K), true
	case "momentum":
		return ff(c.Momentum), true
	case "alpha":
		// PN-V's one rate; for powernorm a shorthand for the two below.
		return ff(c.AlphaFwd), c.Kind == PNV
	case "alpha_fwd":
		return ff(c.AlphaFwd), true
	case "alpha_bwd":
		return ff(c.AlphaBwd), true
	case "warmup":
		if c.Warmup < 0 {
			return "site", true
		}
		return strconv.Itoa(c.Warmup), true
	case "groups":
		if c.Groups == 0 {
			return "site", true
		}
		return strconv.Itoa(c.Groups), true
	case "bwd":
		if c.PaperBwd {
			return "paper", true
		}
		return "code", true
	}
	return "", false
}
