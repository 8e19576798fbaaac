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
	numScreens
)

var screenTitles = [numScreens]string{"Overview", "Layers", "Compare", "Spectrum", "Gradients", "Events"}

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
	"Overview: train and val loss per variant on one step axis; gap = val loss − train loss smoothed since the " +
		"last eval. Xu et al.: LayerNorm's bias and gain raise the risk of over-fitting (LayerNorm-simple often " +
		"generalises better); AdaNorm aims to fix it. Status and steps/s per variant.",
	"Layers: the selected variant's layers × probes, sparkline of the run and latest value; ! marks an outlier " +
		"(alerted, or latest > 10× the median shown). The chart follows the selected layer × probe.",
	"Compare: one probe (p) for every variant, per layer. PowerNorm (Shen et al.): dist_mu / dist_var (Fig. 2) " +
		"and g_mu / g_var (Fig. 3) are large with persistent outliers for BatchNorm in Transformers; the " +
		"quadratic mean's dist_psi2 / g_psi2 fluctuate far less (Fig. 4).",
	"Spectrum: embedding singular values σ_i/σ_1 on a log axis; effective rank exp(H(σ/Σσ)) now, at the first " +
		"spectrum, and over the run. PowerNorm Fig. 6: PN's singular values decay more slowly than LN's " +
		"(fast decay = embeddings squeezed into a small subspace).",
	"Gradients: Theorem 1 of Xu et al. Keeping the μ derivative re-centres ∂ℓ/∂x (mean 0: layernorm, " +
		"layernorm-simple, detach-variance); detach-mean and detachnorm give mean ∂ℓ/∂y / σ. Keeping the σ " +
		"derivative re-scales (shrinks var ∂ℓ/∂x): compare var x/y across variants; 'none' gives 1.",
	"Events: divergence, outliers, ν growth (PowerNorm Γ > 2/(1−α_b)), AdaNorm φ ≤ 0, over-fitting; " +
		"in replay, enter seeks to the selected event's step.",
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
}

// NewState returns the initial state.
func NewState(replay bool, speed float64) State {
	if speed <= 0 {
		speed = 1
	}
	return State{Replay: replay, Speed: speed, SeekTo: -1, Probe: probes.DistMu}
}

// Navigate returns the state after key k (a tea.KeyPressMsg.String() value,
// e.g. "left", "tab", "G", "space").
func Navigate(s State, k string, b Bounds) State {
	s.SeekTo = -1
	if s.Help && k != "q" && k != "ctrl+c" {
		// Any key closes the full help; ? toggles it.
		s.Help = false
		return s
	}
	switch k {
	case "q", "ctrl+c":
		s.Quit = true
	case "?":
		s.Help = !s.Help
	case "1", "2", "3", "4", "5", "6":
		s.Screen = Screen(k[0] - '1')
	case "tab":
		s.Screen = (s.Screen + 1) % numScreens
	case "shift+tab":
		s.Screen = (s.Screen + numScreens - 1) % numScreens
	case "left":
		s.Variant = wrap(s.Variant-1, b.Variants)
	case "right":
		s.Variant = wrap(s.Variant+1, b.Variants)
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
	case "p":
		s.Probe = (s.Probe + 1) % probes.NumProbes
	case "P":
		s.Probe = (s.Probe + probes.NumProbes - 1) % probes.NumProbes
	case "l":
		s.Log = !s.Log
	case "s":
		s.Smooth = !s.Smooth
	case "space", " ":
		s.Paused = !s.Paused
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
			s.SeekTo = b.EventSteps[s.Event]
		}
	}
	return s
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
	replay                                             bool
	screens, variant, layer, probe, log, smooth, pause key.Binding
	speed, seek, ends, jump, help, quit                key.Binding
}

func newKeyMap(replay bool) keyMap {
	b := func(keys []string, k, d string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, d))
	}
	return keyMap{
		replay:  replay,
		screens: b([]string{"1", "2", "3", "4", "5", "6", "tab"}, "1-6", "screen"),
		variant: b([]string{"left", "right"}, "←/→", "variant"),
		layer:   b([]string{"up", "down"}, "↑/↓", "layer"),
		probe:   b([]string{"p", "P"}, "p", "probe"),
		log:     b([]string{"l"}, "l", "log"),
		smooth:  b([]string{"s"}, "s", "smooth"),
		pause:   b([]string{"space"}, "space", "pause"),
		speed:   b([]string{"+", "-"}, "+/-", "speed"),
		seek:    b([]string{"[", "]"}, "[/]", "seek"),
		ends:    b([]string{"g", "G"}, "g/G", "start/end"),
		jump:    b([]string{"enter"}, "enter", "jump to event"),
		help:    b([]string{"?"}, "?", "help"),
		quit:    b([]string{"q"}, "q", "quit"),
	}
}

// ShortHelp is the always-visible help bar.
func (k keyMap) ShortHelp() []key.Binding {
	if k.replay {
		return []key.Binding{k.screens, k.variant, k.pause, k.speed, k.seek, k.help, k.quit}
	}
	return []key.Binding{k.screens, k.variant, k.layer, k.probe, k.pause, k.help, k.quit}
}

// FullHelp is shown by ?.
func (k keyMap) FullHelp() [][]key.Binding {
	cols := [][]key.Binding{
		{k.screens, k.variant, k.layer, k.probe},
		{k.log, k.smooth, k.pause, k.help, k.quit},
	}
	if k.replay {
		cols = append(cols, []key.Binding{k.speed, k.seek, k.ends, k.jump})
	}
	return cols
}
