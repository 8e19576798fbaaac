// Package findings is `normtop findings`: the training runs that the claims
// of docs/findings.md need, trained one after another into a directory and
// judged by the report.
//
//	plan.go     the plan: one table, each claim with its runs (name and the
//	            exact `normtop train` arguments) and the runs its report reads
//	runs.go     which run files are complete, and keeping an interrupted one
//	orchestrate.go  training what is missing (progress, resume), then the reports
//	output.go   writing the reports into the directory (never over a file
//	            that is not normtop's own)
//
// The trainer is a function the caller injects (cmd/normtop trains in
// process; tests train tiny runs or fakes), so this package does not link
// the trainer. It depends on record and report.
package findings
