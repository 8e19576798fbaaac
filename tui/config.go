package tui

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/normtop/normtop/normspec"
	"github.com/normtop/normtop/probes"
)

// The config panel (i): what the run header records (RunMeta and its
// Config map, docs/formats.md), grouped as a reader looks for it, every
// variant with all its options, and for a live run the process's CPU, memory
// and speed (LEET's run overview and system pane). A key the groups do not
// name still shows, under "other": nothing recorded is hidden.

// configPanel is the config panel (i), a component over the view context
// like a screen, shown over the current one. It owns its state (shown, and
// the first line shown) and its keys: configClosedKeys (i opens it) and,
// while it is shown, configKeys.
type configPanel struct {
	page
	state   configState
	runPath string           // the run file, as given
	live    bool             // a live run: the process's facts are shown
	sys     sysSample        // the last CPU sample (live runs)
	sysRead func() sysSample // nil: the process's own (readSys)
}

func (m *configPanel) View() []string { return m.configView(m.w, m.h) }

// ShortHelp is the help bar while the panel is shown: its keys, then the
// screens' (which close it and act).
func (m *configPanel) ShortHelp() []key.Binding {
	return append(configKeys.help(false), keymap.screens)
}

// configState is the panel's own state.
type configState struct {
	open bool // shown, over the current screen
	top  int  // the first line shown (the view clamps it to the lines)
}

// configClosedKeys: i opens the panel at its top.
var configClosedKeys = keyTable[configState, int]{
	{key: keymap.info, do: func(s *configState, _ int, _ keyName) tea.Cmd {
		*s = configState{open: true}
		return nil
	}},
}

// configKeys are the panel's keys while it is shown, given its page (the
// rows PgUp/PgDn move): i and esc close it, ↑/↓ and PgUp/PgDn scroll it,
// Home goes to its top. Any other key closes it and goes on to the root
// (key).
var configKeys = keyTable[configState, int]{
	{key: bind([]string{"i", "esc"}, "i", "run config"), do: func(s *configState, _ int, _ keyName) tea.Cmd {
		*s = configState{}
		return nil
	}},
	{key: either("↑/↓ j/k", "scroll", keymap.layer), do: func(s *configState, _ int, k keyName) tea.Cmd {
		s.scroll(upDown(k))
		return nil
	}},
	{key: either("PgUp/PgDn", "scroll a page", keymap.page), do: func(s *configState, page int, k keyName) tea.Cmd {
		s.scroll(upDown(k) * max(page, 1))
		return nil
	}},
	{key: keymap.home, do: func(s *configState, _ int, _ keyName) tea.Cmd {
		s.top = 0
		return nil
	}},
}

// scroll moves the panel by d lines (its keys, the wheel).
func (s *configState) scroll(d int) { s.top = max(s.top+d, 0) }

// key takes a key: when closed, i opens the panel; when shown, its keys
// act, and any other key closes it. It reports whether the key was the
// panel's (else the key goes on: to the root's keys when it closed the
// panel).
func (m *configPanel) key(k keyName) bool {
	if !m.state.open {
		_, ok := configClosedKeys.handle(&m.state, 0, k, false)
		return ok
	}
	if _, ok := configKeys.handle(&m.state, listPage(m.h), k, false); ok {
		return true
	}
	m.state = configState{}
	return false
}

// configGroups name the Config keys of each section, in display order.
var configGroups = []struct {
	title string
	keys  []string
}{
	{"model", []string{"model", "params", "layers", "d_model", "heads", "seq_len", "post_ln", "sizes", "norm_sites", "dtype"}},
	{"data", []string{"data", "data_desc", "data_path", "steps_per_epoch", "eval_size", "test_size", "vocab", "classes", "padding", "sentence_limit", "length_filter", "batching", "max_tokens", "tie_break", "row_multiple"}},
	{"training", []string{"steps", "epochs", "batch", "lr", "warmup", "schedule", "optimizer", "clip", "dropout", "loss", "label_smoothing", "weight_decay"}},
	{"seeds", []string{"seed", "seeds", "weight_seed", "batch_seed", "dropout_seed"}},
	{"probes", []string{"eval_every", "log_every", "probe_stats", "probe_grad", "probe_params", "probe_spectrum"}},
	{"build and host", []string{"version", "build", "go", "host", "os", "arch", "cpus", "gemm"}},
}

// configLines is the panel's content, one entry per line.
func (m *configPanel) configLines(w int) []string {
	s := m.styles
	meta := &m.data.meta
	kv := func(k, v string) string {
		return s.Dim.Render(fmt.Sprintf("  %-15s ", k)) + v
	}
	out := []string{s.Heading.Render("run")}
	out = append(out, kv("id", orDash(meta.RunID)), kv("file", orDash(m.runPath)),
		kv("metric", orDash(meta.Metric)))
	if !meta.Start.IsZero() {
		out = append(out, kv("started", meta.Start.UTC().Format("2006-01-02 15:04:05 UTC")))
	}
	seen := map[string]bool{}
	for _, g := range configGroups {
		var lines []string
		for _, k := range g.keys {
			if v, ok := meta.Config[k]; ok && v != "" {
				lines = append(lines, kv(k, v))
			}
			seen[k] = true
		}
		if len(lines) > 0 {
			out = append(out, "", s.Heading.Render(g.title))
			out = append(out, lines...)
		}
	}
	out = append(out, "", s.Heading.Render("variants")+s.Dim.Render(" (every option; site = the model's own)"))
	for i, vm := range meta.Variants {
		spec := vm.Spec
		if spec == "" {
			spec = vm.Name
		}
		if c, err := normspec.Parse(spec); err == nil {
			spec = c.Full()
		}
		line := s.seriesStyle(i).Render(m.data.variants[i].label)
		if lr := meta.Config[fmt.Sprintf("lr_variant%d", i)]; lr != "" {
			line += s.Dim.Render(" (lr " + lr + ")")
		}
		// A long spec wraps under its label rather than being cut.
		if ansi.StringWidth(line)+4+len(spec) > w {
			out = append(out, "  "+line)
			out = append(out, wrapIndented(strings.ReplaceAll(spec, ",", ", "), w, "      ")...)
		} else {
			out = append(out, "  "+line+"  "+spec)
		}
		seen[fmt.Sprintf("lr_variant%d", i)] = true
	}
	out = append(out, "", s.Heading.Render("placement")+s.Dim.Render(fmt.Sprintf(" (%d norm sites)", len(meta.Layers))))
	out = append(out, wrapIndented(strings.Join(meta.Layers, " "), w, "  ")...)
	var other []string
	for k := range meta.Config {
		if !seen[k] {
			other = append(other, k)
		}
	}
	sort.Strings(other)
	if len(other) > 0 {
		out = append(out, "", s.Heading.Render("other"))
		for _, k := range other {
			out = append(out, kv(k, meta.Config[k]))
		}
	}
	if m.live {
		out = append(out, "", s.Heading.Render("process")+s.Dim.Render(" (this dashboard and its trainer)"))
		out = append(out, m.processLines(kv)...)
	}
	if w := m.data.writer; w != nil {
		out = append(out, "", s.Heading.Render("writer process")+s.Dim.Render(fmt.Sprintf(" (the stream's own report, step %d)", m.data.writerStep)))
		out = append(out, writerLines(w, kv)...)
	}
	return out
}

// writerLines are a stream writer's resource facts (the parts it gave).
func writerLines(w *probes.System, kv func(k, v string) string) []string {
	var out []string
	if x := w.WallS; x > 0 && !math.IsInf(x, 0) {
		out = append(out, kv("wall per step", probes.FormatValue(x*1e3)+" ms"))
	}
	if x := w.RSSBytes; x > 0 && !math.IsInf(x, 0) {
		out = append(out, kv("memory", fmtBytes(uint64(x))+" resident"))
	}
	if x := w.CUDAMaxBytes; x > 0 && !math.IsInf(x, 0) {
		out = append(out, kv("CUDA peak", fmtBytes(uint64(x))+" allocated"))
	}
	return out
}

// processLines are the live run's system facts: CPU % since the panel's
// last draw, memory, and each variant's speed.
func (m *configPanel) processLines(kv func(k, v string) string) []string {
	now := m.readSys()
	usage := "measuring…"
	if p := m.sys; !p.at.IsZero() && now.at.After(p.at) {
		pct := 100 * float64(now.cpu-p.cpu) / float64(now.at.Sub(p.at).Nanoseconds())
		usage = fmt.Sprintf("%.0f%% of one core (%d cores)", pct, runtime.NumCPU())
	}
	m.sys = now
	out := []string{kv("cpu", usage), kv("memory", fmt.Sprintf("%s heap, %s from the OS", fmtBytes(now.heap), fmtBytes(now.sys)))}
	var speeds []string
	for i := range m.data.variants {
		speeds = append(speeds, fmt.Sprintf("%s %s", m.data.variants[i].label, probes.FormatValue(m.data.tally.Variants[i].StepsPerSec)))
	}
	return append(out, kv("steps/s", strings.Join(speeds, " · ")))
}

// readSys samples the process: the model's sysRead (tests pin it), else
// the clock, getrusage and the Go heap.
func (m *configPanel) readSys() sysSample {
	if m.sysRead != nil {
		return m.sysRead()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return sysSample{at: time.Now(), cpu: cpuNanos(), heap: ms.HeapAlloc, sys: ms.Sys}
}

// sysSample is the process CPU time at a moment: CPU % is the difference
// of two.
type sysSample struct {
	at        time.Time
	cpu       int64 // ns of CPU time
	heap, sys uint64
}

// cpuNanos is the process's user+system CPU time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func fmtBytes(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", b>>10)
}

func orDash(s string) string {
	if s == "" {
		return probes.Missing
	}
	return s
}

// wrapIndented wraps words into lines of w cells, each indented.
func wrapIndented(text string, w int, indent string) []string {
	lines := wrapWords(text, max(w-len(indent), 10))
	for i := range lines {
		lines[i] = indent + lines[i]
	}
	return lines
}

// configView lays the panel out: two columns when wide enough, scrolled
// by ↑/↓ and PgUp/PgDn (state.top) when it does not fit.
func (m *configPanel) configView(w, h int) []string {
	s := m.styles
	title := s.Heading.Render("run config") + s.Dim.Render(" · what the run header records · i or esc: close")
	colW := w
	if w >= 120 {
		colW = w/2 - 1
	}
	lines := m.configLines(colW)
	rows := h - 1
	if colW < w {
		// Two columns: the left one ends at a section break near half.
		half := (len(lines) + 1) / 2
		for half < len(lines) && lines[half] != "" {
			half++
		}
		left, right := lines[:half], lines[min(half+1, len(lines)):]
		n := max(len(left), len(right))
		merged := make([]string, n)
		for i := range n {
			l, r := "", ""
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			merged[i] = fit(l, colW) + "  " + r
		}
		lines = merged
	}
	top := clamp(m.state.top, 0, max(len(lines)-rows, 0))
	if len(lines) > rows {
		title = withHint(title, s.Dim.Render(fmt.Sprintf("lines %d–%d of %d (↑/↓)", top+1, min(top+rows, len(lines)), len(lines))), w)
	}
	out := []string{title}
	for _, l := range lines[top:min(top+rows, len(lines))] {
		out = append(out, l)
	}
	return out
}
