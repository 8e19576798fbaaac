package probes

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSafeText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"layernorm", "layernorm"},
		{"block0.ln1 — ünïcode ✓", "block0.ln1 — ünïcode ✓"},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"a\r\nb\tc", `a\r\nb\tc`},
		{"\x1b[2J", `\x1b[2J`},
		{"del\x7f", `del\x7f`},
		{"c1\u009b31m", `c1\u009b31m`},
		{"bad\xff\xfeutf8", `bad\xff\xfeutf8`},
		{"rtl\u202eevil", `rtl\u202eevil`},
		{"line\u2028sep", `line\u2028sep`},
		{"kept \\x1b backslash", "kept \\x1b backslash"},
		{"real \ufffd replacement", "real \ufffd replacement"},
	} {
		got := SafeText(c.in)
		if got != c.want {
			t.Errorf("SafeText(%q) = %q, want %q", c.in, got, c.want)
		}
		if again := SafeText(got); again != got {
			t.Errorf("SafeText is not idempotent on %q: %q", got, again)
		}
	}
}

func TestSafeTextMax(t *testing.T) {
	long := strings.Repeat("é", 50000) + "\x1b"
	got := SafeTextMax(long, 100)
	if len(got) > 130 || !utf8.ValidString(got) || !strings.HasSuffix(got, "(100001 bytes)") {
		t.Errorf("SafeTextMax = %q", got)
	}
	if got := SafeTextMax("a\x1bb", 100); got != `a\x1bb` {
		t.Errorf("SafeTextMax short = %q", got)
	}
}

func TestRunMetaSafe(t *testing.T) {
	m := RunMeta{RunID: "r\x1b", Model: "m\n", Data: "d\r", Metric: "x\x07",
		Variants: []VariantMeta{{Name: "n\x1b", Spec: "s\x1b"}}, Layers: []string{"l\x1b"},
		Config: map[string]string{"k\x1b": "v\x1b"}}
	s := m.Safe()
	if m.Variants[0].Name != "n\x1b" || m.Layers[0] != "l\x1b" || m.Config["k\x1b"] != "v\x1b" {
		t.Fatal("Safe changed its receiver's slices or map")
	}
	all := s.RunID + s.Model + s.Data + s.Metric + s.Variants[0].Name + s.Variants[0].Spec + s.Layers[0]
	for k, v := range s.Config {
		all += k + v
	}
	for _, r := range all {
		if r < 0x20 {
			t.Fatalf("control %q left in %q", r, all)
		}
	}
}

// FuzzSafeText: whatever comes in, nothing a terminal acts on goes out.
func FuzzSafeText(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]0;t\x07", "\xc2\x9b", "\xe2\x80\xae", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := SafeText(s)
		if !utf8.ValidString(out) {
			t.Fatalf("SafeText(%q) = %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if r < 0x20 || r == 0x7f || unsafeRune(r) {
				t.Fatalf("SafeText(%q) = %q keeps %U", s, out, r)
			}
		}
		if SafeText(out) != out {
			t.Fatalf("not idempotent on %q", s)
		}
	})
}
