package tui

import "github.com/normtop/normtop/probes"

// Screen is one of the eight dashboard screens.
type Screen int

const (
	ScreenOverview Screen = iota
	ScreenLayers
	ScreenCompare
	ScreenSpectrum
	ScreenGradients
	ScreenEvents
	ScreenSummary
	ScreenGrid
	numScreens
)

var screenTitles = [numScreens]string{"Overview", "Layers", "Compare", "Spectrum", "Gradients", "Events", "Summary", "Grid"}

// Title is the screen's name as shown in the tab bar.
func (s Screen) Title() string {
	if s >= 0 && s < numScreens {
		return screenTitles[s]
	}
	return "?"
}

// State is what the root's keys change: what is run-wide (the screen shown,
// the variant, layer and probe selected, the cursor, zoom, scale and
// smoothing, pause and replay speed, and the root's own modes: the full
// help and the quit question). A component's own state is the
// component's (eventsState, summaryState, the Grid's page, the config
// panel's configState, the shared textFilter). The root's key tables
// (rootKeys, helpKeys, confirmKeys) are pure functions over it, so the key
// handling is tested without Bubble Tea.
type State struct {
	Screen  Screen
	Variant int          // selected variant (overview scroll, layers, gradients)
	Layer   int          // selected layer (layers, compare, gradients)
	Probe   probes.Probe // selected probe (layers, compare)
	// Log is the charts' y scale: logAuto (a log axis where a chart's
	// values span more than 3 decades), logOn or logOff (l).
	Log LogMode
	// Smooth indexes smoothWeights: the strength of the charts' EMA (s
	// steps through them; 0 is off).
	Smooth  int
	Paused  bool
	Help    bool    // full help shown
	HelpTop int     // the first line of the full help shown (it scrolls at 80×24)
	Replay  bool    // replay keys are active
	Speed   float64 // replay speed multiplier
	// Confirm: q was pressed during a live run; q or y again quits (the
	// key's Cmd: tea.Quit), any other key cancels.
	Confirm bool
	// Cursor is the chart cursor's step, -1 when off (c toggles it; ←/→
	// move it while it is on).
	Cursor int
	// ZoomSpan is how many steps the charts show (0: the whole run), ending
	// at ZoomEnd (0: the latest step, following the run).
	ZoomSpan, ZoomEnd int
	Hidden            uint64 // bit i: variant i is hidden from the charts (v)
	// SeekTo is a seek request for the replay driver ([, ], g, G): -1 =
	// none. The model consumes it at once, so the seek starts with the
	// key (a screen's seek, enter on an event, is a Cmd: seekMsg).
	SeekTo int
}

// Bounds are the facts the root's keys (rootKeys) and the wheel need from
// the frame's layout: how many things there are to select and where a seek
// may go.
type Bounds struct {
	Variants, Layers int
	Step             int // current replay position (highest step shown)
	LastStep         int // highest step known to exist (total steps when known)
	SeekStride       int // steps per [ or ]
	// Probes lists the probes some variant measured: p and P visit only
	// these (all probes when empty).
	Probes []probes.Probe
	// CellSteps is how many steps one chart column spans (the cursor's
	// stride); Running: a live run is still training (q asks first).
	CellSteps int
	Running   bool
	// LogShown: the chart laid out is on a log axis (l turns it off).
	LogShown bool
	Page     int // rows a page of the layers holds (PgUp/PgDn)
}

// NewState returns the initial state.
func NewState(replay bool, speed float64) State {
	if speed <= 0 {
		speed = 1
	}
	return State{Replay: replay, Speed: speed, SeekTo: -1, Probe: probes.DistMu, Cursor: -1, Smooth: defaultSmooth}
}
