package tui

import (
	"charm.land/bubbles/v2/key"
	"github.com/normtop/normtop/probes"
)

// Screen is one of the six dashboard screens.
type Screen int

const (
	ScreenOverview Screen = iota
	ScreenLayers
	ScreenCompare
	ScreenSpectrum
	ScreenGradients
	ScreenEvents
	ScreenSummary
	numScreens
)

var screenTitles = [numScreens]string{"Overview", "Layers", "Compare", "Spectrum", "Gradients", "Events", "Summary"}

// Title is the screen's name as shown in the tab bar.
func (s Screen) Title() string {
	if s >= 0 && s < numScreens {
		return screenTitles[s]
	}
	return "?"
}

// screenGuide is what each screen shows and what to look for, printed under
// the full help (?) for the current screen.
var screenGuide = [numScreens]string{
	"Overview: every variant's train loss (line) and val loss (• markers) on one axis, and the variants ranked " +
		"by their latest val metric. c puts a cursor on the chart (←/→ move it, or click): the legend reads every " +
		"variant at that step. z/Z zoom in and out (or the wheel), n shows the last N steps, 0 all; v hides the " +
		"selected variant. gap = val loss − train loss smoothed since the last eval. Xu et al.: LayerNorm's bias " +
		"and gain raise the risk of over-fitting (LayerNorm-simple often generalises better); AdaNorm aims to fix it.",
	"Layers: the selected variant's layers × probes, sparkline of the run and latest value; ! marks an outlier " +
		"(alerted, or latest > 10× the median shown). The chart follows the selected layer × probe.",
	"Compare: one probe (p: only probes some variant measured) for every variant, overlaid, per layer; ┄ on the " +
		"step axis marks the warm-up of running statistics (⌈3/m⌉ steps, NORMS.md §5). PowerNorm (Shen et al.): dist_mu / dist_var (Fig. 2) " +
		"and g_mu / g_var (Fig. 3) are large with persistent outliers for BatchNorm in Transformers; the " +
		"quadratic mean's dist_psi2 / g_psi2 fluctuate far less (Fig. 4).",
	"Spectrum: embedding singular values σ_i/σ_1 on a log axis; effective rank exp(H(σ/Σσ)) now, at the first " +
		"spectrum, and over the run. PowerNorm Fig. 6: PN's singular values decay more slowly than LN's " +
		"(fast decay = embeddings squeezed into a small subspace).",
	"Gradients: Theorem 1 of Xu et al. Keeping the μ derivative re-centres ∂ℓ/∂x (mean 0: layernorm, " +
		"layernorm-simple, detach-variance); detach-mean and detachnorm give mean ∂ℓ/∂y / σ. Keeping the σ " +
		"derivative re-scales (shrinks var ∂ℓ/∂x): compare var x/y across variants; 'none' gives 1.",
	"Events: divergence, outliers, ν growth (PowerNorm Γ > 2/(1−α_b)), AdaNorm φ ≤ 0, over-fitting, in step " +
		"order; repeated outliers of one probe fold into one row (×count). f filters by kind, F by variant; " +
		"in replay, enter seeks to the selected event's step and pauses there.",
	"Summary: the variants ranked by their final validation metric (then val loss, then train loss); ★ marks " +
		"the best. Runs of one spec with several seeds are grouped as mean±sd. o sorts by the next column, " +
		"O reverses. alerts counts outlier alerts per layer group. A finished run lands here.",
}

// Replay speeds that + and - step through.
var speeds = []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32, 64}

// State is everything the keys change. Navigate is a pure function over it, so
// the key handling is tested without Bubble Tea.
type State struct {
	Screen  Screen
	Variant int          // selected variant (overview scroll, layers, gradients)
	Layer   int          // selected layer (layers, compare, gradients)
	Probe   probes.Probe // selected probe (layers, compare)
	Event   int          // selected row on the events screen
	Log     bool         // log-scale charts
	Smooth  bool         // EMA-smoothed charts
	Paused  bool
	Help    bool // full help shown
	Quit    bool
	Replay  bool    // replay keys are active
	Speed   float64 // replay speed multiplier
	// Confirm: q was pressed during a live run; q or y again quits, any
	// other key cancels.
	Confirm bool
	// Cursor is the chart cursor's step, -1 when off (c toggles it; ←/→
	// move it while it is on).
	Cursor int
	// ZoomSpan is how many steps the charts show (0: the whole run), ending
	// at ZoomEnd (0: the latest step, following the run).
	ZoomSpan, ZoomEnd int
	Hidden            uint64 // bit i: variant i is hidden from the charts (v)
	EvKind            int    // events shown: -1 every kind, else a probes.AlertKind (f)
	EvVariant         int    // events shown: -1 every variant, else one (F)
	SortCol           int    // summary sort column (o); 0 = rank
	SortRev           bool   // summary order reversed (O)
	// SeekTo is a seek request for the replay driver: -1 = none. The model
	// consumes it and resets it to -1.
	SeekTo int
}

// Bounds are the facts Navigate needs from the data: how many things there
// are to select and where a seek may go.
type Bounds struct {
	Variants, Layers int
	EventSteps       []int // step of each event row, oldest first
	Step             int   // current replay position (highest step shown)
	LastStep         int   // highest step known to exist (total steps when known)
	SeekStride       int   // steps per [ or ]
	// Probes lists the probes some variant measured: p and P visit only
	// these (all probes when empty).
	Probes []probes.Probe
	// CellSteps is how many steps one chart column spans (the cursor's
	// stride); Running: a live run is still training (q asks first).
	CellSteps int
	Running   bool
	SortCols  int // columns of the summary table
}

// NewState returns the initial state.
func NewState(replay bool, speed float64) State {
	if speed <= 0 {
		speed = 1
	}
	return State{Replay: replay, Speed: speed, SeekTo: -1, Probe: probes.DistMu, Cursor: -1, EvKind: -1, EvVariant: -1}
}

// Navigate returns the state after key k (a tea.KeyPressMsg.String() value,
// e.g. "left", "tab", "G", "space").
func Navigate(s State, k string, b Bounds) State {
	s.SeekTo = -1
	if s.Help {
		// Any key closes the full help and does nothing else (q included).
		s.Help = false
		return s
	}
	if s.Confirm {
		s.Confirm = false
		if k == "q" || k == "y" || k == "ctrl+c" {
			s.Quit = true
		}
		return s
	}
	switch k {
	case "q", "ctrl+c":
		if b.Running && !s.Replay {
			s.Confirm = true
		} else {
			s.Quit = true
		}
	case "?":
		s.Help = !s.Help
	case "1", "2", "3", "4", "5", "6", "7":
		s.Screen = Screen(k[0] - '1')
	case "tab":
		s.Screen = (s.Screen + 1) % numScreens
	case "shift+tab":
		s.Screen = (s.Screen + numScreens - 1) % numScreens
	case "left", "right", "shift+left", "shift+right":
		d := 1
		if k == "left" || k == "shift+left" {
			d = -1
		}
		if s.Cursor >= 0 {
			if len(k) > 5 {
				d *= 10
			}
			s.Cursor = clamp(s.Cursor+d*max(b.CellSteps, 1), 1, max(b.Step, 1))
		} else {
			s.Variant = wrap(s.Variant+d, b.Variants)
		}
	case "up", "k":
		if s.Screen == ScreenEvents {
			s.Event = clamp(s.Event-1, 0, len(b.EventSteps)-1)
		} else {
			s.Layer = clamp(s.Layer-1, 0, b.Layers-1)
		}
	case "down", "j":
		if s.Screen == ScreenEvents {
			s.Event = clamp(s.Event+1, 0, len(b.EventSteps)-1)
		} else {
			s.Layer = clamp(s.Layer+1, 0, b.Layers-1)
		}
	case "p", "P":
		s.Probe = nextProbe(s.Probe, k == "p", b.Probes)
	case "l":
		s.Log = !s.Log
	case "s":
		s.Smooth = !s.Smooth
	case "space", " ":
		s.Paused = !s.Paused
	case "c":
		if s.Cursor >= 0 {
			s.Cursor = -1
		} else {
			s.Cursor = max(b.Step, 1)
			if s.ZoomSpan > 0 && s.ZoomEnd > 0 {
				s.Cursor = min(s.ZoomEnd, max(b.Step, 1))
			}
		}
	case "esc":
		s.Cursor = -1
	case "z", "Z", "n", "0":
		s.ZoomSpan, s.ZoomEnd = zoom(s, k, b)
	case "v":
		if b.Variants > 0 && s.Variant < 64 {
			s.Hidden ^= 1 << uint(s.Variant)
		}
	case "V":
		s.Hidden = 0
	case "f":
		s.EvKind++
		if s.EvKind >= int(probes.NumAlertKinds) {
			s.EvKind = -1
		}
		s.Event = 0
	case "F":
		s.EvVariant++
		if s.EvVariant >= b.Variants {
			s.EvVariant = -1
		}
		s.Event = 0
	case "o":
		s.SortCol = wrap(s.SortCol+1, max(b.SortCols, 1))
	case "O":
		s.SortRev = !s.SortRev
	}
	if !s.Replay {
		return s
	}
	stride := max(b.SeekStride, 1)
	switch k {
	case "+", "=":
		s.Speed = stepSpeed(s.Speed, +1)
	case "-", "_":
		s.Speed = stepSpeed(s.Speed, -1)
	case "[":
		s.SeekTo = max(b.Step-stride, 0)
	case "]":
		s.SeekTo = min(b.Step+stride, max(b.LastStep, b.Step+stride))
	case "g", "home":
		s.SeekTo = 0
	case "G", "end":
		s.SeekTo = max(b.LastStep, b.Step)
	case "enter":
		if s.Screen == ScreenEvents && s.Event >= 0 && s.Event < len(b.EventSteps) {
			// A seek reads the frames before its target: one past the
			// event's step shows that step itself, every variant at it,
			// and the replay stops there to be looked at.
			s.SeekTo = b.EventSteps[s.Event] + 1
			s.Paused = true
		}
	}
	return s
}

// zoomPresets are the "last N steps" windows n cycles through.
var zoomPresets = []int{100, 1000, 10000, 100000}

// zoom returns the chart window after z (halve the span, around the
// cursor when it is on), Z (double it; the whole run once it covers it),
// n (the next "last N steps" preset shorter than the run, then the whole
// run) or 0 (the whole run).
func zoom(s State, k string, b Bounds) (span, end int) {
	last := max(b.Step, 1)
	cur := s.ZoomSpan
	if cur <= 0 || cur > last {
		cur = last
	}
	switch k {
	case "0":
		return 0, 0
	case "z":
		span = max(cur/2, 8)
		if s.Cursor >= 0 {
			end = min(s.Cursor+span/2, last)
			if end == last {
				end = 0
			}
			return span, end
		}
		return span, s.ZoomEnd
	case "Z":
		span = cur * 2
		if span >= last {
			return 0, 0
		}
		end = s.ZoomEnd
		if end > 0 {
			end = min(end+span/4, last)
			if end == last {
				end = 0
			}
		}
		return span, end
	case "n":
		// Next preset: the largest preset smaller than the current span.
		for i := len(zoomPresets) - 1; i >= 0; i-- {
			p := zoomPresets[i]
			if p < cur {
				return p, 0
			}
		}
		return 0, 0
	}
	return s.ZoomSpan, s.ZoomEnd
}

// nextProbe moves to the next (or previous) probe in list, or in probe
// order when the list is empty.
func nextProbe(p probes.Probe, fwd bool, list []probes.Probe) probes.Probe {
	if len(list) == 0 {
		if fwd {
			return (p + 1) % probes.NumProbes
		}
		return (p + probes.NumProbes - 1) % probes.NumProbes
	}
	idx := -1
	for i, q := range list {
		if q == p {
			idx = i
		}
	}
	switch {
	case idx < 0 && fwd:
		for _, q := range list {
			if q > p {
				return q
			}
		}
		return list[0]
	case idx < 0:
		for i := len(list) - 1; i >= 0; i-- {
			if list[i] < p {
				return list[i]
			}
		}
		return list[len(list)-1]
	case fwd:
		return list[(idx+1)%len(list)]
	}
	return list[(idx+len(list)-1)%len(list)]
}

// stepSpeed moves to the next preset speed above (dir > 0) or below the
// current one, staying at the ends.
func stepSpeed(cur float64, dir int) float64 {
	if dir > 0 {
		for _, v := range speeds {
			if v > cur {
				return v
			}
		}
		return speeds[len(speeds)-1]
	}
	for i := len(speeds) - 1; i >= 0; i-- {
		if speeds[i] < cur {
			return speeds[i]
		}
	}
	return speeds[0]
}

func wrap(i, n int) int {
	if n <= 0 {
		return 0
	}
	return ((i % n) + n) % n
}

func clamp(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return min(max(v, lo), hi)
}

// keyMap feeds the bubbles help view; the bindings mirror Navigate.
type keyMap struct {
	replay                                                  bool
	screens, tab, variant, layer, probe, log, smooth, pause key.Binding
	cursor, zoom, last, toggle, filter, sort                key.Binding
	speed, seek, ends, jump, help, quit                     key.Binding
}

func newKeyMap(replay bool) keyMap {
	b := func(keys []string, k, d string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, d))
	}
	return keyMap{
		replay:  replay,
		screens: b([]string{"1", "2", "3", "4", "5", "6", "7"}, "1-7", "screen"),
		tab:     b([]string{"tab", "shift+tab"}, "tab/⇧tab", "next/prev screen"),
		variant: b([]string{"left", "right"}, "←/→", "variant/cursor"),
		layer:   b([]string{"up", "down", "j", "k"}, "↑/↓ j/k", "layer/event"),
		probe:   b([]string{"p", "P"}, "p/P", "probe"),
		log:     b([]string{"l"}, "l", "log"),
		smooth:  b([]string{"s"}, "s", "smooth"),
		pause:   b([]string{"space"}, "space", "pause"),
		cursor:  b([]string{"c", "esc"}, "c", "cursor"),
		zoom:    b([]string{"z", "Z", "0"}, "z/Z/0", "zoom in/out/all"),
		last:    b([]string{"n"}, "n", "last N steps"),
		toggle:  b([]string{"v", "V"}, "v/V", "hide variant"),
		filter:  b([]string{"f", "F"}, "f/F", "filter kind/variant"),
		sort:    b([]string{"o", "O"}, "o/O", "sort/reverse"),
		speed:   b([]string{"+", "-"}, "+/-", "speed"),
		seek:    b([]string{"[", "]"}, "[/]", "seek"),
		ends:    b([]string{"g", "G"}, "g/G", "start/end"),
		jump:    b([]string{"enter"}, "enter", "jump to event"),
		help:    b([]string{"?"}, "?", "help"),
		quit:    b([]string{"q"}, "q", "quit"),
	}
}

// shortHelp is the always-visible help bar of a mode and screen: the keys
// that act there, most used first (the bar truncates at the right).
func (k keyMap) shortHelp(s Screen) []key.Binding {
	out := []key.Binding{k.screens}
	switch s {
	case ScreenEvents:
		out = append(out, k.layer, k.filter)
		if k.replay {
			out = append(out, k.jump)
		}
	case ScreenSummary:
		out = append(out, k.sort)
	case ScreenOverview, ScreenCompare, ScreenLayers, ScreenGradients:
		out = append(out, k.cursor, k.zoom, k.toggle, k.variant)
		if s != ScreenOverview {
			out = append(out, k.layer, k.probe)
		}
	}
	out = append(out, k.pause)
	if k.replay {
		out = append(out, k.speed, k.seek, k.ends)
	}
	out = append(out, k.log, k.smooth, k.help, k.quit)
	return out
}

// ShortHelp implements help.KeyMap (the overview's bar).
func (k keyMap) ShortHelp() []key.Binding { return k.shortHelp(ScreenOverview) }

// FullHelp is shown by ?: every key.
func (k keyMap) FullHelp() [][]key.Binding {
	cols := [][]key.Binding{
		{k.screens, k.tab, k.variant, k.layer, k.probe},
		{k.cursor, k.zoom, k.last, k.toggle, k.log, k.smooth},
		{k.filter, k.sort, k.pause, k.help, k.quit},
	}
	if k.replay {
		cols = append(cols, []key.Binding{k.speed, k.seek, k.ends, k.jump})
	}
	return cols
}
