// Command normtop is "top for normalization layers": it trains one model with
// several normalization variants side by side and shows their per-layer
// statistics live (a Bubble Tea dashboard), as plain log lines (headless, for
// SSH and batch jobs), or from a recorded run file (replay, follow, export).
//
// This package only parses flags, chooses the mode and wires the packages
// together: train produces probes.Frames, record stores every one of them,
// tui and headless show them. Each subcommand has an options file (flags and
// their translation) and a command file (the wiring).
//
// Exit codes (see exitcodes.go): 0 ok, 1 other failure, 2 usage error, 3 data
// error (missing, unreadable or corrupt data or run file), 4 every variant
// diverged, 128+signal when a run was stopped by SIGINT or SIGTERM.
package main
