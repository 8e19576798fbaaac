// Package tui is normtop's terminal dashboard (Bubble Tea v2, Lip Gloss v2).
// It renders probes.Frames, live from a probes.Feed or replayed from a run
// file, with the same code, on eight screens: overview, layers, compare,
// spectrum, gradients, events, summary (where a finished run lands) and
// the grid of small charts.
//
// Data flows one way: frames are ingested into bounded history series
// (history.go, histories.go; a store per run). Every chart is one braille
// canvas (chart.go, 2×4 dots a cell) with the variants overlaid on one y axis: round 1-2-5 or
// decade ticks (ticks.go), and columns that keep each step range's minimum
// and maximum (downsample.go), so a spike survives any width or zoom.
// View costs time proportional to the screen, never to the run's length,
// and caches its output so that it redraws only when a key, the mouse, a
// resize or new frames (coalesced to at most 20 redraws per second) change
// something. The live dashboard waits on the feed's Ready channel and arms
// a timer only while frames arrive, so an idle dashboard costs no CPU; a
// paused one leaves the feed alone. The replay dashboard reads its source
// in tea.Cmds only, one at a time.
//
// The Model is the root: it routes. Each screen is a component (screen.go:
// SetSize, View, ShortHelp, Guide, Update returning a tea.Cmd) over common,
// what every screen reads (the store, the root's State, the text filter,
// Styles, the size and the frame's layout). A screen with keys of its own
// owns their state (overviewState, eventsState, summaryState, the Grid's
// page) and a keyTable: one entry per key, its binding (keys and help) and
// a pure handler over that state and the facts of the frame's layout; the
// table drives both the screen's dispatch and its help bar, so a new
// screen key is one entry in one table. What a screen cannot do itself it
// asks of the root with a Cmd (enter's seek: seekMsg). The Workspace's list
// follows the same contract, and so do the root's own keys: rootKeys (the
// view's keys: screen, variant or cursor, layer, probe, zoom, scale,
// smoothing; then the run's: list ends, pause, help, quit, esc, the
// replay's speed and seeks) over State and Bounds, helpKeys (the full help
// scrolled) and confirmKeys (the quit question). The full help is drawn
// from the tables (fullHelp), so a key listed is a key handled. Two
// components besides the screens own their state and keys: the text filter
// (/) the Events and Grid screens share (filter.go: textFilter, one pattern
// both apply and show; filterKeys on a screen that shows it, typingKeys
// while it is typed) and the config panel (i; config.go: configState,
// configKeys). The root keeps what is run-wide (State: the screen, variant,
// layer, probe, cursor, zoom, scale, smoothing, pause, replay speed, and
// its own modes, the full help and the quit question), the header and the
// render cache, and one driver that feeds the store: liveDriver (live.go)
// or replayDriver (replay.go), a state machine over replayState (playing,
// seeking, catching up, following, at the end) with its own Update, whose
// transitions are tested as plain function calls. The header reads the
// driver's state; where each variant stands is the store's
// probes.Standings.
//
// Layout, then paint (layout.go): when something shown changed, the root
// computes the frame's layout once — the screen's body with the scale its
// charts chose and the zones it put under the mouse, the tab bar, the
// Bounds the root's keys need — and the header, the body, the help bar,
// the keys and the mouse all read that one result; View paints it.
//
// Model.onKey routes a key to the table that holds it: the full help and
// the quit question hold every key while shown, the text filter while it
// is typed, the config panel its own while shown; else the shown screen's
// table first, then the filter's, the panel's i, and the root's. What is
// left of the root's key handling as one pure function is Navigate(State,
// key, Bounds): the precedence of the root's modes over its tables. Click
// and Wheel are pure functions over State too; the tables' handlers are
// tested as plain functions, without Bubble Tea. Every key is a
// key.Binding (keymap.go and the tables) matched with key.Matches. The
// mouse calls the functions those keys map to (moveLayer, helpScroll,
// zoomIn, zoomOut, the screens' and the panel's scroll), never a key name.
package tui
