package record

import "github.com/normtop/normtop/probes"

// ReadStandings folds every Frame of the run file, once each, and then its
// end record's divergences into the run's probes.Standings: where each
// variant stood when the file ends, as the exports' summaries print it.
func ReadStandings(r *Reader) (*probes.Standings, error) {
	s := probes.NewStandings(r.Meta())
	err := forEachFrame(r, func(f *probes.Frame) error {
		s.Fold(f)
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
