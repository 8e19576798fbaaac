// Package headless prints a run as plain lines, for SSH sessions, batch jobs
// and CI logs: one line per log interval (the step, then for every variant its
// train loss, latest validation loss and metric, steps/s and the alerts raised
// since its previous line), a header line first and one summary line per
// variant at the end. The JSON Lines format carries the same facts as objects.
//
// It reads probes.Frames only, so a live run and a replayed run file print the
// same lines. It depends on probes and nothing else in normtop.
package headless
