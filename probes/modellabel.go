package probes

// ModelLabel is the model as a run's header line shows it: the model name
// and, for models built of Transformer blocks, the blocks and where their
// norms sit (the header's "layers" and "placement"; "post" in files that
// recorded post_ln=true before placements existed), e.g.
// "transformer (6 blocks, post)". Without those keys it is the name alone.
func (m RunMeta) ModelLabel() string {
	pl := m.Config["placement"]
	if pl == "" && m.Config["post_ln"] == "true" {
		pl = "post"
	}
	blocks := m.Config["layers"]
	switch {
	case m.Model == "" || (blocks == "" && pl == ""):
		return m.Model
	case blocks == "":
		return m.Model + " (" + pl + ")"
	case pl == "":
		return m.Model + " (" + blocks + " blocks)"
	}
	return m.Model + " (" + blocks + " blocks, " + pl + ")"
}
