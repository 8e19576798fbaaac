package tui

import tea "charm.land/bubbletea/v2"

// driver is what feeds the dashboard's store: the live feed (liveDriver)
// or a run file (replayDriver). The dashboard hands it the messages it
// does not handle itself and applies the news it returns.
type driver interface {
	Update(msg tea.Msg, pb playback) (tea.Cmd, driverNews)
	// Resume is called when the user unpauses.
	Resume(pb playback) (tea.Cmd, driverNews)
	// Ended reports whether the run is known to be over; Crashed, that it
	// ended without an end record (killed or crashed).
	Ended() bool
	Crashed() bool
}

// playback is what the dashboard's State tells a driver.
type playback struct {
	paused bool
	speed  float64 // replay speed multiplier
}

// driverNews is what a driver's step tells the dashboard.
type driverNews struct {
	redraw bool // something shown changed
	end    bool // the end of the run was read: land on the Summary screen
}
