package normspec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind names a normalization variant. The order is the registry order of
// docs/development.md.
type Kind int

// The variants, in registry order.
const (
	None Kind = iota
	LayerNorm
	LayerNormSimple
	DetachNorm
	DetachMean
	DetachVariance
	AdaNorm
	RMSNorm
	BatchNorm
	PNV
	PowerNorm
	GroupNorm
	InstanceNorm
	numKinds
)

var kindNames = [numKinds]string{
	"none", "layernorm", "layernorm-simple", "detachnorm", "detach-mean",
	"detach-variance", "adanorm", "rmsnorm", "batchnorm", "pn-v", "powernorm",
	"groupnorm", "instancenorm",
}

func (k Kind) String() string {
	if k < 0 || k >= numKinds {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// RowFamily reports whether the variant normalises each row over its
// features (statistics per row), as opposed to per feature over rows.
func (k Kind) RowFamily() bool { return k >= LayerNorm && k <= RMSNorm }

// LNFamily: the variants whose statistics follow a Convention.
func (k Kind) LNFamily() bool { return k >= LayerNorm && k <= AdaNorm }

// UnitFamily reports whether the variant is one of the norm zoo's (docs/math.md
// §8): statistics over a normalization unit of a sample (a group of
// features, over one row or over all the sample's rows) rather than over a
// row or a feature.
func (k Kind) UnitFamily() bool { return k == GroupNorm || k == InstanceNorm }

// HasAffine: the variants with a learnable gain γ and bias β.
func (k Kind) HasAffine() bool {
	return k == LayerNorm || k == RMSNorm || k == BatchNorm || k == PNV || k == PowerNorm || k.UnitFamily()
}

// Convention selects the per-row statistics of the LayerNorm family
// (docs/math.md §1): P is PyTorch's and the papers' (biased variance, divisor
// √(v+ε)); C is the AdaNorm authors' code (unbiased variance, divisor s+ε).
type Convention int

// The two conventions; ConvP is the default.
const (
	ConvP Convention = iota
	ConvC
)

func (c Convention) String() string {
	if c == ConvC {
		return "c"
	}
	return "p"
}

// Config is a parsed variant spec. Fields that do not apply to Kind are zero.
// Parse fills every applicable field with its default, so that
// Parse(c.String()) == c for every c that Parse returned.
type Config struct {
	Kind     Kind
	Conv     Convention
	Eps      float64 // added to the variance (P) or the std (C); 1e-5
	C, K     float64 // adanorm: φ = C(1 - K·y); 1, 0.1
	Momentum float64 // batchnorm running-statistics momentum; 0.05
	AlphaFwd float64 // pn-v: alpha; powernorm: alpha_fwd; 0.9
	AlphaBwd float64 // powernorm: alpha_bwd; 0.9
	Warmup   int     // powernorm; -1 = take Site.Warmup
	Groups   int     // powernorm GroupScaling groups, 0 = Site.Heads; batchnorm, pn-v: 0 = no GroupScaling; groupnorm: groups, 0 = 32 clamped to d
	PaperBwd bool    // powernorm: backward divisor ψ_{t-1} (paper) instead of ψ_B (code)
	// Running: instancenorm keeps running means and variances of its
	// instances (PyTorch's track_running_stats, momentum 0.1) and uses
	// them in inference; off by default, as in PyTorch.
	Running bool
}

const (
	defaultEps      = 1e-5
	defaultC        = 1.0
	defaultK        = 0.1
	defaultMomentum = 0.05
	defaultAlpha    = 0.9
	// PyTorch's InstanceNorm momentum, for instancenorm:running=1.
	defaultInstanceMomentum = 0.1
)

// Default returns the configuration Parse gives for the bare variant name.
func Default(k Kind) Config {
	c := Config{Kind: k}
	if k == None || k < 0 || k >= numKinds {
		return c
	}
	c.Eps = defaultEps
	switch k {
	case AdaNorm:
		c.C, c.K = defaultC, defaultK
	case BatchNorm:
		c.Momentum = defaultMomentum
	case InstanceNorm:
		c.Momentum = defaultInstanceMomentum
	case PNV:
		c.AlphaFwd = defaultAlpha
	case PowerNorm:
		c.AlphaFwd, c.AlphaBwd, c.Warmup = defaultAlpha, defaultAlpha, -1
	}
	return c
}

// Name is the registry name of the variant, e.g. "powernorm".
func (c Config) Name() string { return c.Kind.String() }

// String is the canonical spec: the name followed by the options that differ
// from their defaults, in registry order.
func (c Config) String() string {
	d := Default(c.Kind)
	var opts []string
	add := func(k, v string) { opts = append(opts, k+"="+v) }
	ff := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, o := range kindOptions(c.Kind) {
		if f := c.number(o); f != nil {
			// powernorm's alpha sets alpha_fwd and alpha_bwd, which print.
			if *f != *d.number(o) && !(o == "alpha" && c.Kind == PowerNorm) {
				add(o, ff(*f))
			}
			continue
		}
		switch o {
		case "conv":
			if c.Conv != d.Conv {
				add(o, c.Conv.String())
			}
		case "warmup":
			if c.Warmup != d.Warmup {
				add(o, strconv.Itoa(c.Warmup))
			}
		case "groups":
			if c.Groups != d.Groups {
				add(o, strconv.Itoa(c.Groups))
			}
		case "bwd":
			if c.PaperBwd {
				add(o, "paper")
			}
		case "running":
			if c.Running {
				add(o, "1")
			}
		}
	}
	if len(opts) == 0 {
		return c.Name()
	}
	return c.Name() + ":" + strings.Join(opts, ",")
}

// Parse reads a variant spec "name[:option=value,...]". Errors name the
// variant or option at fault and what would be valid.
func Parse(spec string) (Config, error) {
	name, rest, hasOpts := strings.Cut(strings.TrimSpace(spec), ":")
	name = strings.ToLower(strings.TrimSpace(name))
	kind := Kind(-1)
	for k, n := range kindNames {
		if n == name {
			kind = Kind(k)
		}
	}
	if kind < 0 {
		return Config{}, fmt.Errorf("norm: unknown variant %q (valid: %s)", name, strings.Join(kindNames[:], ", "))
	}
	c := Default(kind)
	if !hasOpts || strings.TrimSpace(rest) == "" {
		return c, nil
	}
	valid := kindOptions(kind)
	seen := map[string]bool{}
	for _, kv := range strings.Split(rest, ",") {
		key, val, ok := strings.Cut(kv, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		val = strings.TrimSpace(val)
		if !ok || key == "" {
			return Config{}, fmt.Errorf("norm: %s: option %q is not key=value (valid options: %s)", name, strings.TrimSpace(kv), optionList(valid))
		}
		if !contains(valid, key) {
			return Config{}, fmt.Errorf("norm: %s: unknown option %q (valid options: %s)", name, key, optionList(valid))
		}
		if seen[key] {
			return Config{}, fmt.Errorf("norm: %s: option %q given twice", name, key)
		}
		seen[key] = true
		if err := c.set(key, val); err != nil {
			return Config{}, fmt.Errorf("norm: %s: %s=%s: %w", name, key, val, err)
		}
	}
	if kind == InstanceNorm && seen["momentum"] && !c.Running {
		return Config{}, fmt.Errorf("norm: %s: momentum applies to the running statistics; give running=1 with it", name)
	}
	if seen["alpha"] && kind == PowerNorm && (seen["alpha_fwd"] || seen["alpha_bwd"]) {
		return Config{}, fmt.Errorf("norm: %s: alpha sets both alpha_fwd and alpha_bwd; give either alpha or those two", name)
	}
	return c, nil
}

func (c *Config) set(key, val string) error {
	switch key {
	case "conv":
		i, err := oneOf(strings.ToLower(val), "p", "c")
		if err != nil {
			return err
		}
		c.Conv = []Convention{ConvP, ConvC}[i]
	case "running":
		i, err := oneOf(val, "0", "1")
		if err != nil {
			return err
		}
		c.Running = i == 1
	case "bwd":
		i, err := oneOf(strings.ToLower(val), "code", "paper")
		if err != nil {
			return err
		}
		c.PaperBwd = i == 1
	case "warmup":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return fmt.Errorf("must be an integer ≥ 0 (steps)")
		}
		c.Warmup = n
	case "groups":
		least := 1 // BatchNorm, PN-V: 0 is their default, no GroupScaling (§11)
		if c.Kind == BatchNorm || c.Kind == PNV {
			least = 0
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < least {
			return fmt.Errorf("must be an integer ≥ %d", least)
		}
		c.Groups = n
	default:
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("must be a finite number")
		}
		if f := c.number(key); f != nil {
			*f = v
		}
		if key == "alpha" && c.Kind == PowerNorm {
			c.AlphaBwd = v
		}
		return c.checkRange(key)
	}
	return nil
}

// oneOf is the index of val among the valid values, or an error that
// lists them.
func oneOf(val string, valid ...string) (int, error) {
	for i, v := range valid {
		if val == v {
			return i, nil
		}
	}
	return 0, fmt.Errorf("valid values: %s", strings.Join(valid, ", "))
}

// number is the field behind a numeric option (alpha is PN-V's alpha and,
// through set, powernorm's alpha_fwd and alpha_bwd together), or nil for
// an option that is not a number.
func (c *Config) number(key string) *float64 {
	switch key {
	case "eps":
		return &c.Eps
	case "c":
		return &c.C
	case "k":
		return &c.K
	case "momentum":
		return &c.Momentum
	case "alpha", "alpha_fwd":
		return &c.AlphaFwd
	case "alpha_bwd":
		return &c.AlphaBwd
	}
	return nil
}

// checkRange validates one numeric option; Validate uses it for all. eps,
// c and k must be positive, the decays and momentum in (0,1).
func (c Config) checkRange(key string) error {
	f := c.number(key)
	switch {
	case f == nil:
		return nil
	case key == "eps" || key == "c" || key == "k":
		if !(*f > 0) || math.IsInf(*f, 0) {
			return fmt.Errorf("must be > 0")
		}
	case !(*f > 0 && *f < 1):
		return fmt.Errorf("must be in (0,1)")
	}
	return nil
}

// Validate checks a Config built by hand (Parse already validates).
func (c Config) Validate() error {
	if c.Kind < 0 || c.Kind >= numKinds {
		return fmt.Errorf("norm: unknown variant kind %d (valid: %s)", int(c.Kind), strings.Join(kindNames[:], ", "))
	}
	name := c.Name()
	opts := kindOptions(c.Kind)
	for _, o := range opts {
		if o == "alpha" && c.Kind == PowerNorm {
			continue
		}
		if err := c.checkRange(o); err != nil {
			return fmt.Errorf("norm: %s: %s: %w", name, o, err)
		}
	}
	if c.Conv != ConvP && c.Conv != ConvC {
		return fmt.Errorf("norm: %s: conv: valid values: p, c", name)
	}
	if c.Conv == ConvC && !c.Kind.LNFamily() {
		return fmt.Errorf("norm: %s: conv=c applies only to the LayerNorm family", name)
	}
	if c.Warmup < -1 {
		return fmt.Errorf("norm: %s: warmup: must be an integer ≥ 0 (or -1 for the trainer's warmup)", name)
	}
	if c.Running && c.Kind != InstanceNorm {
		return fmt.Errorf("norm: %s: running applies only to instancenorm", name)
	}
	if c.Groups < 0 {
		return fmt.Errorf("norm: %s: groups: must be an integer ≥ 1 (or 0 for the default)", name)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func optionList(opts []string) string {
	if len(opts) == 0 {
		return "none"
	}
	return strings.Join(opts, ", ")
}
