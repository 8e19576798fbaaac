package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/normtop/normtop/probes"
)

// configFixture is the fixture run with a recorded config and its process
// facts pinned (a golden cannot hold the real CPU %).
func configFixture() *Model {
	dark := true
	m := fixtureModel(4, 6, 200, Options{RunPath: "runs/fixture.ntr", Dark: &dark})
	m.data.meta.Config = map[string]string{"steps": "200", "batch": "32", "lr": "0.001", "d_model": "64",
		"heads": "4", "seeds": "1,2,3", "eval_every": "20", "data_desc": "text (Opticks)", "lr_variant2": "0.0005",
		"host": "box", "custom_key": "kept"}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m.config.sysRead = func() sysSample { return sysSample{at: at, cpu: 1e9, heap: 30 << 20, sys: 60 << 20} }
	return m
}

// TestConfigPanel: i shows every recorded key, grouped, the variants with
// all their options, a key no group names under "other", and for a live
// run the process facts; i or esc closes it, a screen key closes it and
// switches.
func TestConfigPanel(t *testing.T) {
	out := ansi.Strip(runScreen(t, configFixture(), 160, 48, "i"))
	for _, want := range []string{"run config", "training", "batch", "seeds", "1,2,3", "build and host", "box",
		"powernorm:alpha_fwd=0.9, alpha_bwd=0.9", "(lr 0.0005)", "other", "custom_key", "process", "30 MiB heap", "block2.ln2"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
	for _, k := range []string{"i", "esc"} {
		if out := runScreen(t, configFixture(), 120, 40, "i", k); strings.Contains(out, "run config") {
			t.Errorf("%s left the panel open", k)
		}
	}
	if out := ansi.Strip(runScreen(t, configFixture(), 120, 40, "i", "2")); strings.Contains(out, "run config") || !strings.Contains(out, "layers × probes") {
		t.Errorf("2 did not close the panel and switch:\n%s", out)
	}
}

// TestCPUPercent: the CPU % is the CPU time between two samples over the
// wall time between them.
func TestCPUPercent(t *testing.T) {
	m := configFixture()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	m.config.sysRead = func() sysSample {
		n++
		return sysSample{at: at.Add(time.Duration(n) * time.Second), cpu: int64(n) * 5e8}
	}
	kv := func(k, v string) string { return k + "=" + v }
	first := strings.Join(m.config.processLines(kv), "\n")
	second := strings.Join(m.config.processLines(kv), "\n")
	if !strings.Contains(first, "measuring") || !strings.Contains(second, "cpu=50% of one core") {
		t.Fatalf("first:\n%s\nsecond:\n%s", first, second)
	}
}

// TestGoldenConfig: the panel at 80×24 (one column, scrolled) and 160×48
// (two columns), colours pinned.
func TestGoldenConfig(t *testing.T) {
	for _, c := range []struct {
		w, h int
		keys []string
	}{{80, 24, []string{"i"}}, {80, 24, []string{"i", "pgdown"}}, {160, 48, []string{"i"}}} {
		t.Run(fmt.Sprintf("%dx%d_%s", c.w, c.h, strings.Join(c.keys, "_")), func(t *testing.T) {
			out := runScreen(t, configFixture(), c.w, c.h, c.keys...)
			golden.RequireEqual(t, pinned(t, out, colorprofile.ANSI256))
		})
	}
}

// TestConfigPanelWriterProcess: a stream whose writer reports its process
// (python/normtop's system=True) shows the latest report under "writer
// process"; a run without one shows no such section.
func TestConfigPanelWriterProcess(t *testing.T) {
	m := configFixture()
	if out := ansi.Strip(runScreen(t, m, 160, 48, "i")); strings.Contains(out, "writer process") {
		t.Fatalf("a run without writer reports shows a writer section:\n%s", out)
	}
	m = configFixture()
	m.data.add(&probes.Frame{Variant: 0, Step: 150, System: &probes.System{WallS: 0.5, RSSBytes: 1 << 30}})
	m.data.add(&probes.Frame{Variant: 1, Step: 190, System: &probes.System{WallS: 0.0125, RSSBytes: 3 << 29, CUDAMaxBytes: 5 << 30}})
	out := ansi.Strip(runScreen(t, m, 160, 48, "i"))
	for _, want := range []string{"writer process", "step 190", "12.5 ms", "1.5 GiB resident", "5.0 GiB allocated"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
}
