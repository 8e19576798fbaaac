// Package consistency holds no code: its test runs the same Frames through
// every consumer of a run (the dashboard, the headless log, the exports and
// the report) and checks that each label and number they print is the same
// string, drawn from probes' one vocabulary (labels, metric formats, mean ±
// sd, the missing-value glyph). It sits apart because only a package above
// them all may import them all.
package consistency
