// Package tui is normtop's terminal dashboard (Bubble Tea v2, Lip Gloss v2,
// asciigraph). It renders probes.Frames, live from a probes.Feed or replayed
// from a run file, with the same code, on six screens: overview, layers,
// compare, spectrum, gradients and events.
//
// Data flows one way: frames are ingested into bounded, downsampled
// probes.History series (a store per run); View draws from History.View in
// time proportional to the screen width, never to the run's length, and
// caches its output so that it redraws only when a key, a resize or new
// frames (coalesced to at most 20 redraws per second) change something.
// The live dashboard waits on the feed's Ready channel and arms a timer only
// while frames arrive, so an idle dashboard costs no CPU. The replay
// dashboard reads its source in tea.Cmds only, one at a time.
//
// Key handling is the pure function Navigate(State, key, Bounds) State.
// It depends on probes only.
package tui
