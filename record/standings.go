package record

import "github.com/normtop/normtop/probes"

// ReadStandings folds every Frame of the run file, once each, and then its
// end record's divergences into the run's probes.Standings: where each
// variant stood when the file ends, as the exports' summaries print it.
func ReadStandings(r *Reader) (*probes.Standings, error) { return readStandingsWith(r, nil) }

// readStandingsWith is ReadStandings that also hands each Frame to also
// (nil: nothing), for an export that needs more of the frames in the same
// pass.
func readStandingsWith(r *Reader, also func(*probes.Frame)) (*probes.Standings, error) {
	s := probes.NewStandings(r.Meta())
	err := forEachFrame(r, func(f *probes.Frame) error {
		s.Fold(f)
		if also != nil {
			also(f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if end, ok := r.End(); ok {
		s.FoldEnd(end.Diverged)
	}
	return s, nil
}
