package train

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	for _, m := range []ModelKind{ModelMLP, ModelCNN} {
		if err := MNISTConfig(m).Validate(); err != nil {
			t.Fatalf("MNIST config %s: %v", m, err)
		}
	}
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"unknown model", func(c *Config) { c.Model = "rnn" }, `model "rnn"`},
		{"wrong data", func(c *Config) { c.Data = "mnist" }, "trains on text"},
		{"unknown variant", func(c *Config) { c.Variants = []string{"layernorm", "weightnorm"} }, `variant "weightnorm"`},
		{"bad option", func(c *Config) { c.Variants = []string{"powernorm:alpha_fwd=7"} }, "powernorm"},
		{"no variants", func(c *Config) { c.Variants = nil }, "variants"},
		{"negative steps", func(c *Config) { c.Steps = -1 }, "steps -1"},
		{"no steps no epochs", func(c *Config) { c.Steps, c.Epochs = 0, 0 }, "epochs 0"},
		{"zero lr", func(c *Config) { c.LR = 0 }, "lr 0"},
		{"negative lr", func(c *Config) { c.LR = -1 }, "lr -1"},
		{"batch", func(c *Config) { c.Batch = 0 }, "batch 0"},
		{"heads", func(c *Config) { c.Heads = 3 }, "not divisible by heads 3"},
		{"sizes", func(c *Config) { c.Layers = 0 }, "layers=0"},
		{"dropout", func(c *Config) { c.Dropout = 1 }, "dropout 1"},
		{"warmup", func(c *Config) { c.Warmup = -5 }, "warmup -5"},
		{"clip", func(c *Config) { c.Clip = -1 }, "clip -1"},
		{"eval", func(c *Config) { c.EvalEvery = 0 }, "eval-every 0"},
		{"dtype", func(c *Config) { c.Dtype = "float16" }, `dtype "float16"`},
		{"variant lr index", func(c *Config) { c.VariantLR = map[int]float64{9: 1} }, "variant index 9"},
		{"probes", func(c *Config) { c.Probes.Stats = -1 }, "probes"},
		{"max-tokens on characters", func(c *Config) { c.MaxTokens = 1024 }, "has no sentences to group"},
		{"max-tokens on images", func(c *Config) { *c = MNISTConfig(ModelMLP); c.MaxTokens = 1024 }, "model mlp on mnist data has no sentences"},
		{"max-tokens below seq-len", func(c *Config) { *c = WordConfig("sotu"); c.MaxTokens = 31 }, "max-tokens 31 is below the longest sentence, seq-len 176"},
		{"negative max-tokens", func(c *Config) { *c = WordConfig("sotu"); c.MaxTokens = -1 }, "max-tokens -1"},
		{"input", func(c *Config) { c.Input = "bert" }, `input "bert"`},
		{"tie on the classifier", func(c *Config) { *c = ClassifierConfig(); c.TieEmbeddings = true }, "nothing to tie"},
		{"input on images", func(c *Config) { *c = MNISTConfig(ModelCNN); c.Input = InputFairseq }, "no token embedding"},
		{"instancenorm on token budgets", func(c *Config) { *c = WordConfig("sotu"); c.Variants = []string{"instancenorm"} }, "use --batch N"},
		// issue 25 case 3: one variant twice would share its label.
		{"variant twice", func(c *Config) { c.Variants = []string{"layernorm", "rmsnorm", "layernorm"} }, `"layernorm" is the same variant as "layernorm"`},
		{"variant at its defaults", func(c *Config) { c.Variants = []string{"layernorm", "layernorm:eps=1e-5"} }, `"layernorm:eps=1e-5" is the same variant as "layernorm"`},
		{"options in another order", func(c *Config) {
			c.Variants = []string{"powernorm:alpha_fwd=0.95,warmup=40", "powernorm:warmup=40,alpha_fwd=0.95"}
		}, "same variant"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if _, err := NewRunner(c); err == nil {
				t.Error("NewRunner accepted the config")
			}
		})
	}
}

func TestDataErrors(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.txt")
	if err := os.WriteFile(short, []byte("too short"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte(strings.Repeat("ab\xffc", 4000)), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		model, path, want string
	}{
		{"transformer", filepath.Join(dir, "missing.txt"), "missing.txt"},
		{"transformer", short, "short.txt"},
		{"transformer", bad, "bad.txt"},
		{"mlp", dir, dir},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		if tc.model == "mlp" {
			c = MNISTConfig("mlp")
		}
		c.DataPath = tc.path
		_, err := NewRunner(c)
		if err == nil || !errors.Is(err, ErrData) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on %s: err = %v, want an ErrData naming %q", tc.model, tc.path, err, tc.want)
		}
	}
}

// A bad variant spec is a *VariantError carrying normspec.Parse's error, so
// that cmd can point at `normtop variants`; the specs Validate parsed are the
// ones a Runner builds its layers from.
func TestVariantError(t *testing.T) {
	tests := []struct {
		variants []string
		bad      string // "" when every spec parses
	}{
		{[]string{"layernorm", "powernorm:alpha_fwd=0.95"}, ""},
		{[]string{"layernorm", "fancynorm"}, "fancynorm"},
		{[]string{"powernorm:alpha=2"}, "powernorm:alpha=2"},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		c.Variants = tt.variants
		specs, err := c.check()
		var ve *VariantError
		if tt.bad == "" {
			if err != nil || len(specs) != len(tt.variants) || specs[1].AlphaFwd != 0.95 {
				t.Errorf("%v: specs %+v, err %v", tt.variants, specs, err)
			}
			continue
		}
		if !errors.As(c.Validate(), &ve) || ve.Spec != tt.bad || ve.Err == nil ||
			!strings.HasPrefix(ve.Error(), fmt.Sprintf("variant %q: norm: ", tt.bad)) {
			t.Errorf("%v: error %v, want a VariantError for %q", tt.variants, err, tt.bad)
		}
	}
}
