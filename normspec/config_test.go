package normspec

import (
	"strings"
	"testing"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		spec string
		want Config
	}{
		{"none", Config{Kind: None}},
		{"layernorm", Config{Kind: LayerNorm, Eps: 1e-5}},
		{" LayerNorm : conv = C ", Config{Kind: LayerNorm, Conv: ConvC, Eps: 1e-5}},
		{"layernorm-simple:eps=1e-6", Config{Kind: LayerNormSimple, Eps: 1e-6}},
		{"detachnorm:conv=c", Config{Kind: DetachNorm, Conv: ConvC, Eps: 1e-5}},
		{"adanorm", Config{Kind: AdaNorm, Eps: 1e-5, C: 1, K: 0.1}},
		{"adanorm:c=2,k=0.2", Config{Kind: AdaNorm, Eps: 1e-5, C: 2, K: 0.2}},
		{"rmsnorm", Config{Kind: RMSNorm, Eps: 1e-5}},
		{"batchnorm:momentum=0.1,groups=4", Config{Kind: BatchNorm, Eps: 1e-5, Momentum: 0.1, Groups: 4}},
		{"pn-v:alpha=0.95", Config{Kind: PNV, Eps: 1e-5, AlphaFwd: 0.95}},
		{"powernorm", Config{Kind: PowerNorm, Eps: 1e-5, AlphaFwd: 0.9, AlphaBwd: 0.9, Warmup: -1}},
		{"powernorm:alpha_fwd=0.95,warmup=4000", Config{Kind: PowerNorm, Eps: 1e-5, AlphaFwd: 0.95, AlphaBwd: 0.9, Warmup: 4000}},
		{"powernorm:alpha=0.8,bwd=paper,groups=8", Config{Kind: PowerNorm, Eps: 1e-5, AlphaFwd: 0.8, AlphaBwd: 0.8, Warmup: -1, Groups: 8, PaperBwd: true}},
		{"powernorm:", Config{Kind: PowerNorm, Eps: 1e-5, AlphaFwd: 0.9, AlphaBwd: 0.9, Warmup: -1}},
		{"groupnorm", Config{Kind: GroupNorm, Eps: 1e-5}},
		{"groupnorm:groups=4,eps=1e-6", Config{Kind: GroupNorm, Eps: 1e-6, Groups: 4}},
		{"instancenorm", Config{Kind: InstanceNorm, Eps: 1e-5, Momentum: 0.1}},
		{"instancenorm:running=1", Config{Kind: InstanceNorm, Eps: 1e-5, Momentum: 0.1, Running: true}},
		{"instancenorm:running=1,momentum=0.2", Config{Kind: InstanceNorm, Eps: 1e-5, Momentum: 0.2, Running: true}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := Parse(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("Parse(%q) = %+v, want %+v", tt.spec, got, tt.want)
			}
			back, err := Parse(got.String())
			if err != nil || back != got {
				t.Fatalf("round trip via %q: %+v, %v", got.String(), back, err)
			}
		})
	}
}

func TestConfigStringCanonical(t *testing.T) {
	tests := map[string]string{
		"powernorm:warmup=4000,alpha_fwd=0.95": "powernorm:alpha_fwd=0.95,warmup=4000",
		"layernorm:conv=p":                     "layernorm",
		"adanorm:k=0.1,c=2":                    "adanorm:c=2",
		"powernorm:bwd=code":                   "powernorm",
		"pn-v:alpha=0.5":                       "pn-v:alpha=0.5",
	}
	for in, want := range tests {
		c, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if c.String() != want {
			t.Errorf("Parse(%q).String() = %q, want %q", in, c.String(), want)
		}
	}
}

// TestParseErrors: every bad spec is an error that names what is valid.
func TestParseErrors(t *testing.T) {
	tests := []struct{ spec, wantIn string }{
		{"batchnrom", "valid: none, layernorm, layernorm-simple, detachnorm, detach-mean, detach-variance, adanorm, rmsnorm, batchnorm, pn-v, powernorm, groupnorm, instancenorm"},
		{"", "unknown variant"},
		{"adanorm:c=0", "c=0: must be > 0"},
		{"adanorm:c=-1", "must be > 0"},
		{"adanorm:k=0", "must be > 0"},
		{"pn-v:alpha=1", "must be in (0,1)"},
		{"pn-v:alpha=0", "must be in (0,1)"},
		{"powernorm:alpha_bwd=1.5", "must be in (0,1)"},
		{"powernorm:alpha_fwd=nan", "finite number"},
		{"batchnorm:momentum=-0.1", "must be in (0,1)"},
		{"layernorm:foo=1", "unknown option \"foo\" (valid options: conv, eps)"},
		{"none:eps=1", "valid options: none"},
		{"rmsnorm:conv=c", "unknown option \"conv\" (valid options: eps)"},
		{"layernorm:conv=x", "valid values: p, c"},
		{"powernorm:bwd=torch", "valid values: code, paper"},
		{"powernorm:warmup=-3", "integer ≥ 0"},
		{"powernorm:groups=0", "integer ≥ 1"},
		{"powernorm:groups=1.5", "integer ≥ 1"},
		{"layernorm:eps=0", "must be > 0"},
		{"layernorm:eps", "not key=value"},
		{"layernorm:eps=1e-5,eps=1e-6", "given twice"},
		{"powernorm:alpha=0.9,alpha_fwd=0.8", "either alpha or"},
		{"groupnorm:groups=0", "integer ≥ 1"},
		{"groupnorm:conv=c", "unknown option \"conv\" (valid options: groups, eps)"},
		{"instancenorm:groups=2", "unknown option \"groups\" (valid options: running, momentum, eps)"},
		{"instancenorm:running=2", "valid values: 0, 1"},
		{"instancenorm:momentum=0.2", "give running=1 with it"},
		{"instancenorm:running=1,momentum=1", "must be in (0,1)"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := Parse(tt.spec)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded", tt.spec)
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Fatalf("Parse(%q) error %q does not contain %q", tt.spec, err, tt.wantIn)
			}
		})
	}
}

func TestVariantsRegistry(t *testing.T) {
	vs := Variants()
	if len(vs) != int(numKinds) {
		t.Fatalf("%d variants, want %d", len(vs), numKinds)
	}
	for i, v := range vs {
		if v.Name != Kind(i).String() || v.Summary == "" {
			t.Errorf("entry %d = %q, want %q with a summary", i, v.Name, Kind(i))
		}
		c, err := Parse(v.Name)
		if err != nil || c.Kind != Kind(i) || c != Default(Kind(i)) {
			t.Errorf("Parse(%q) = %+v, %v", v.Name, c, err)
		}
		for _, o := range v.Options {
			if o.Default == "" || o.Help == "" {
				t.Errorf("%s: option %q lacks default or help", v.Name, o.Name)
			}
		}
	}
	vs[0].Name = "changed"
	if Variants()[0].Name != "none" {
		t.Error("Variants returns the registry itself, not a copy")
	}
}

// FuzzParse: Parse never panics, and whatever it accepts round-trips
// through String and validates.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"layernorm", "powernorm:alpha_fwd=0.95,warmup=4000", "adanorm:c=2,k=0.1,conv=c", "pn-v:alpha=0.99", "batchnorm:momentum=0.1,groups=2", "groupnorm:groups=4,eps=1e-6", "instancenorm:running=1,momentum=0.2", ":", "x:y=z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		c, err := Parse(spec)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse(%q) accepted %+v that fails Validate: %v", spec, c, err)
		}
		back, err := Parse(c.String())
		if err != nil || back != c {
			t.Fatalf("Parse(%q) = %+v; Parse(%q) = %+v, %v", spec, c, c.String(), back, err)
		}
	})
}
