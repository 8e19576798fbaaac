package main

import (
	"path/filepath"
	"testing"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// The end record's status and the "every variant diverged" exit code follow
// from the variants' last statuses.
func TestRecorderEnd(t *testing.T) {
	const (
		R = probes.Running
		D = probes.Diverged
		F = probes.Done
		S = probes.Stopped
	)
	for _, tc := range []struct {
		name        string
		last        []probes.Status // each variant's last status
		seen        []bool          // false: the variant sent no frame
		want        string
		allDiverged bool
	}{
		{"all done", []probes.Status{F, F}, []bool{true, true}, record.StatusCompleted, false},
		{"one diverged", []probes.Status{F, D}, []bool{true, true}, record.StatusCompleted, false},
		{"all diverged", []probes.Status{D, D}, []bool{true, true}, record.StatusDiverged, true},
		{"stopped by a signal", []probes.Status{S, S}, []bool{true, true}, record.StatusInterrupted, false},
		{"diverged and stopped", []probes.Status{D, S}, []bool{true, true}, record.StatusInterrupted, false},
		{"still running (dashboard quit)", []probes.Status{R, F}, []bool{true, true}, record.StatusInterrupted, false},
		{"a variant never reported", []probes.Status{F, F}, []bool{true, false}, record.StatusInterrupted, false},
	} {
		meta := probes.RunMeta{RunID: "t", Variants: make([]probes.VariantMeta, len(tc.last))}
		for v := range meta.Variants {
			meta.Variants[v].Name = "layernorm"
		}
		w, err := record.Create(filepath.Join(t.TempDir(), "run.ntr"), meta)
		if err != nil {
			t.Fatal(err)
		}
		var r *recorder
		r = newRecorder(w, func() { t.Errorf("%s: write failed: %v", tc.name, r.err) })
		for v, s := range tc.last {
			if tc.seen[v] {
				r.write(probes.Frame{Variant: v, Step: 7, Status: s})
			}
		}
		end := r.end()
		if end.Status != tc.want || r.allDiverged() != tc.allDiverged {
			t.Errorf("%s: status %q, allDiverged %v; want %q, %v", tc.name, end.Status, r.allDiverged(), tc.want, tc.allDiverged)
		}
		for v, s := range tc.last {
			if _, ok := end.Diverged[v]; ok != (s == D && tc.seen[v]) {
				t.Errorf("%s: Diverged %v", tc.name, end.Diverged)
			}
		}
		if err := w.Close(end); err != nil {
			t.Fatal(err)
		}
	}
}
