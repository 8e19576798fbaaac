package tui

import (
	"math"
	"os"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// Options configure a dashboard.
type Options struct {
	RunPath string  // the run file, shown in the header
	Speed   float64 // replay speed multiplier (×1 = recorded wall-clock pace); ≤0 means 1
	From    int     // replay: start at this step (the charts still show the steps before it)
	// Follow (replay): watch a file still being written. With From 0 the
	// frames already there are read at once, without pacing, and the
	// dashboard then polls for appended ones (until an Ender source ends).
	Follow  bool
	NoColor bool // monochrome styles (NO_COLOR in the environment does the same)
	// Dark selects the initial palette before the terminal reports its
	// background colour (nil = dark).
	Dark *bool
}

// Coalescing and pacing.
const (
	frameInterval = 50 * time.Millisecond  // at most 20 renders per second
	followPoll    = 500 * time.Millisecond // replay --follow: poll for new frames at EOF
	batchMax      = 4096                   // frames read per replay Cmd
	untimedPace   = 10 * time.Millisecond  // per step, for frames recorded without Elapsed
	minW, minH    = 80, 24
)

// Model is the dashboard. It is used through tea.Model by pointer: View
// caches its output and redraws only when something it shows changed.
type Model struct {
	common
	screens [numScreens]screen
	help    help.Model
	opt     Options
	config  *configPanel // the config panel (i), over the current screen

	landed bool // the finished run was shown on the Summary screen once

	// The driver: exactly one is set.
	live   *liveDriver
	replay *replayDriver

	// rendering: dirty, the layout (common.lay) is stale; painted, cache
	// is the layout painted.
	dirty, painted bool
	cache          string
}

func newModel(meta probes.RunMeta, opt Options, replay bool) *Model {
	meta = meta.Safe() // a newline or ESC in a name would break the header and the config panel
	opt.RunPath = probes.SafeText(opt.RunPath)
	noColor := opt.NoColor || os.Getenv("NO_COLOR") != ""
	opt.NoColor = noColor
	dark := true
	if opt.Dark != nil {
		dark = *opt.Dark
	}
	if opt.Speed <= 0 || math.IsNaN(opt.Speed) || math.IsInf(opt.Speed, 0) {
		opt.Speed = 1
	}
	m := &Model{
		common: common{
			st:     NewState(replay, opt.Speed),
			data:   newStore(meta),
			styles: NewStyles(dark, noColor),
		},
		help:  help.New(),
		opt:   opt,
		dirty: true,
	}
	m.help.Styles = m.styles.Help
	m.screens = newScreens(&m.common)
	m.config = &configPanel{page: page{common: &m.common}, runPath: opt.RunPath}
	return m
}

// NewReplay returns the dashboard for a recorded run.
func NewReplay(src ReplaySource, opt Options) tea.Model {
	m := newModel(src.Meta(), opt, true)
	m.replay = newReplayDriver(src, m.data, opt.Follow, opt.Follow && opt.From <= 0)
	m.feed = m.replay
	return m
}

// Init starts the data source.
func (m *Model) Init() tea.Cmd {
	if m.replay != nil {
		return tea.Batch(tea.RequestBackgroundColor, m.replay.Init(m.opt.From))
	}
	return tea.Batch(tea.RequestBackgroundColor, m.live.Init())
}

// Update handles keys, the mouse, size and colours; a message a screen
// takes goes to it (the findings to the Summary), every other to the
// driver.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.dirty = true
	case tea.BackgroundColorMsg:
		m.styles = NewStyles(msg.IsDark(), m.opt.NoColor)
		m.help.Styles = m.styles.Help
		m.dirty = true
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case tea.MouseClickMsg:
		if msg.Button == tea.MouseLeft {
			return m, m.onClick(msg.X, msg.Y)
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp, tea.MouseWheelDown:
			return m, m.onWheel(msg.X, msg.Y, msg.Button == tea.MouseWheelUp)
		}
	case seekMsg:
		// A screen's seek (enter on an event): pause there.
		m.st.Paused = true
		m.dirty = true
		if m.replay != nil {
			return m, m.replay.SeekFor(msg.step, msg.variant)
		}
	default:
		for _, sc := range m.screens {
			if cmd, ok := sc.Update(msg); ok {
				m.dirty = true
				return m, cmd
			}
		}
		cmd, news := m.driver().Update(msg, m.playback())
		m.apply(news)
		return m, cmd
	}
	return m, nil
}

// onKey routes a key to the table that holds it, over the frame's layout:
// the root's modes (the full help, the quit question) hold every key while
// shown, as does the text filter while it is typed; the config panel its
// own while shown (any other key closes it and goes on, past the screen,
// to rootKey); else the shown screen's own keys first, then rootKey.
func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	lay := m.layout()
	k := keyName(msg.String())
	switch {
	case m.st.Help || m.st.Confirm:
		return m.onState(Navigate(m.st, msg.String(), lay.bounds))
	case m.filter.typing:
		m.filter.typeKey(k)
		m.filterChanged()
		return nil
	case m.config.state.open:
		if m.config.key(k) {
			m.dirty = true
			return nil
		}
		return m.rootKey(k, lay.bounds)
	}
	if key.Matches(k, keymap.diff) && m.st.Screen != ScreenOverview {
		// d is the Overview's from any screen: show it, then toggle.
		m.st.Screen = ScreenOverview
		m.dirty = true
		lay = m.layout()
	}
	if cmd, ok := m.screens[m.st.Screen].Update(msg); ok {
		m.dirty = true
		return cmd
	}
	return m.rootKey(k, lay.bounds)
}

// rootKey is a key the screen did not take: the text filter's keys (on a
// screen that shows it), the config panel's i, then the root's.
func (m *Model) rootKey(k keyName, b Bounds) tea.Cmd {
	if _, shows := m.screens[m.st.Screen].(filterer); shows {
		before := m.filter.pattern
		if _, ok := filterKeys.handle(&m.filter, m.st.Cursor >= 0, k, m.st.Replay); ok {
			if m.filter.pattern != before {
				m.filterChanged()
			}
			m.dirty = true
			return nil
		}
	}
	if m.config.key(k) {
		m.dirty = true
		return nil
	}
	return m.onState(Navigate(m.st, string(k), b))
}

// filterChanged: the text filter was typed or cleared; the screens that
// show it go back to their first row or page.
func (m *Model) filterChanged() {
	m.dirty = true
	for _, sc := range m.screens {
		if f, ok := sc.(filterer); ok {
			f.filterChanged()
		}
	}
}

// screenHasKeys: nothing over the shown screen takes the keys or the mouse.
func (m *Model) screenHasKeys() bool {
	return !m.st.Help && !m.config.state.open && !m.filter.typing && !m.st.Confirm
}

// onClick: a heading of the shown screen's table sorts it (sorter); every
// other click is the root's (Click).
func (m *Model) onClick(x, y int) tea.Cmd {
	lay := m.layout()
	if s, ok := m.screens[m.st.Screen].(sorter); ok && m.screenHasKeys() {
		if z := hit(lay.zones, x, y); z != nil && z.kind == zoneSort {
			s.sortBy(z.val)
			m.dirty = true
			return nil
		}
	}
	return m.onState(Click(m.st, lay.zones, x, y), nil)
}

// onWheel: off a chart, the wheel scrolls the shown screen's own list
// (scroller) or the config panel, as ↑/↓ do; else it is the root's
// (Wheel: zoom, the layers, the help).
func (m *Model) onWheel(x, y int, up bool) tea.Cmd {
	lay := m.layout()
	d := 1
	if up {
		d = -1
	}
	if m.config.state.open && !m.st.Help && !m.st.Confirm {
		m.config.state.scroll(d)
		m.dirty = true
		return nil
	}
	if s, ok := m.screens[m.st.Screen].(scroller); ok && m.screenHasKeys() {
		if z := hit(lay.zones, x, y); z == nil || z.kind != zoneChart {
			s.scroll(d)
			m.dirty = true
			return nil
		}
	}
	return m.onState(Wheel(m.st, lay.zones, x, y, up, lay.bounds), nil)
}

// scroller is a screen with a list of its own (the Events' rows, the
// Grid's pages): the wheel scrolls it.
type scroller interface{ scroll(d int) }

// sorter is a screen whose table a click on a heading sorts (Summary).
type sorter interface{ sortBy(col int) }

// filterer is a screen that shows the text filter (/) and is narrowed by
// it: the filter's keys act there, and a new filter shows its first row
// or page.
type filterer interface{ filterChanged() }

// seekMsg is a screen's request to seek the replay to step (until variant
// has reached it, ≥ 0) and pause there: enter on an event.
type seekMsg struct{ step, variant int }

func seekCmd(step, variant int) tea.Cmd {
	return func() tea.Msg { return seekMsg{step, variant} }
}

// onState applies the state a root key or the mouse produced, and the
// Cmd the key asked for (tea.Quit): a seek, resume.
func (m *Model) onState(next State, cmd tea.Cmd) tea.Cmd {
	wasPaused := m.st.Paused
	m.st = next
	m.dirty = true
	if cmd != nil {
		return cmd
	}
	if m.replay != nil && m.st.SeekTo >= 0 {
		target := m.st.SeekTo
		m.st.SeekTo = -1
		return m.replay.SeekFor(target, -1)
	}
	if wasPaused && !m.st.Paused {
		cmd, news := m.driver().Resume(m.playback())
		m.apply(news)
		return cmd
	}
	return nil
}

// landOnSummary switches to the Summary screen once, when the run ends
// (the live feed closes, or a replay reads to the end of a finished run),
// from the Overview only: a screen the user chose stays put (the end can
// come just after the key that chose it).
func (m *Model) landOnSummary() {
	if m.landed || m.st.Help || m.st.Screen != ScreenOverview {
		return
	}
	m.landed = true
	m.st.Screen = ScreenSummary
}

// newScreens builds the eight screens over the root's common context.
func newScreens(c *common) [numScreens]screen {
	return [numScreens]screen{
		ScreenOverview:  &overviewScreen{page: page{common: c}},
		ScreenLayers:    &layersScreen{page: page{common: c}},
		ScreenCompare:   &compareScreen{page: page{common: c}},
		ScreenSpectrum:  &spectrumScreen{page: page{common: c}},
		ScreenGradients: &gradientsScreen{page: page{common: c}},
		ScreenEvents:    newEventsScreen(c),
		ScreenSummary:   &summaryScreen{page: page{common: c}},
		ScreenGrid:      &gridScreen{page: page{common: c}},
	}
}

// driver is the dashboard's driver, replay or live.
func (m *Model) driver() driver {
	if m.replay != nil {
		return m.replay
	}
	return m.live
}

func (m *Model) playback() playback {
	return playback{paused: m.st.Paused, speed: m.st.Speed}
}

// apply takes a driver's news.
func (m *Model) apply(n driverNews) {
	if n.redraw {
		m.dirty = true
	}
	if n.end {
		m.landOnSummary()
	}
}
