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
// SetSize, View, ShortHelp, Guide, the facts its keys need (bounds), the
// messages it takes (Update)) over common, what every screen reads
// (the store, the view State, Styles, the size and the mouse zones being
// recorded); a screen with keys of its own (Events, Summary) has its
// key map, a pure update function over State and its part of State
// (EventsState, SummaryState), and one whose list is not the layers
// (Events, Grid) its scroll. The root keeps the help, the config panel
// (i), the header and the render cache, and one driver that feeds the store: liveDriver (live.go)
// or replayDriver (replay.go), a state machine over replayState (playing,
// seeking, catching up, following, at the end) with its own Update, whose
// transitions are tested as plain function calls. The header reads the
// driver's state; where each variant stands is the store's probes.Standings.
//
// Key and mouse handling are the pure functions Navigate(State, key,
// Bounds), Click and Wheel over State, tested without Bubble Tea. Every key
// is a key.Binding (keymap.go and the screens' maps) that Navigate
// dispatches on with key.Matches and the help lists, so a key shown is a
// key handled. The mouse calls the functions those keys map to (scroll,
// zoomIn, zoomOut), never a key name. The screens record the clickable
// zones they draw.
package tui
