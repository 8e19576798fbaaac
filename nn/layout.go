package nn

// Layout is how the rows of a token batch split into sequences: Rows
// sequences of T rows each, row-major from row 0; every row from Rows·T on
// is padding. A fixed batch has one Layout for good; a token-budget batch
// (--max-tokens) has a new one every step, which the trainer writes before
// the graph runs, as it writes the tokens. Ops that work per sequence
// (attention, mean pooling) read it when they run, so one graph of
// MaxTokens rows serves every batch shape.
type Layout struct{ Rows, T int }

// Positions writes each row's position in its sequence into pos (0 on the
// padding rows past the layout).
func (l Layout) Positions(pos []int32) {
	for i := range pos {
		pos[i] = 0
		if i < l.Rows*l.T {
			pos[i] = int32(i % l.T)
		}
	}
}
