package report

import (
	"strconv"
	"strings"

	"github.com/normtop/normtop/probes"
)

// A run's setup is the part of its configuration that the placement
// findings (vi) vary between run files of one model: where the norms sit,
// how many blocks there are, and the learning-rate warm-up. Runs of one
// model that differ in it are kept apart (their variants are separate
// groups, labelled by the keys that differ); runs that share it are
// replicates of each other as before.
var setupKeys = []string{"placement", "layers", "warmup"}

// placementOf is the run's placement: the header's "placement", "post" for
// files that recorded post_ln=true before placements existed, else "pre"
// for a model with blocks and "" for one without.
func placementOf(m probes.RunMeta) string {
	if p := m.Config["placement"]; p != "" {
		return p
	}
	if m.Config["post_ln"] == "true" {
		return "post"
	}
	if m.Config["layers"] != "" {
		return "pre"
	}
	return ""
}

// setupValue is one setup key of a run's header.
func setupValue(m probes.RunMeta, key string) string {
	if key == "placement" {
		return placementOf(m)
	}
	return m.Config[key]
}

// configInt is an integer of the run's header, or -1 when it has none.
func configInt(m probes.RunMeta, key string) int {
	n, err := strconv.Atoi(m.Config[key])
	if err != nil {
		return -1
	}
	return n
}

// varyingSetup lists, per model, the setup keys whose values differ between
// the runs of that model.
func varyingSetup(runs []*Run) map[string][]string {
	seen := map[string]map[string]string{} // model → key → first value
	out := map[string][]string{}
	for _, r := range runs {
		m := r.Meta
		first, ok := seen[m.Model]
		if !ok {
			first = map[string]string{}
			for _, k := range setupKeys {
				first[k] = setupValue(m, k)
			}
			seen[m.Model] = first
			continue
		}
		for _, k := range setupKeys {
			if setupValue(m, k) != first[k] && !contains(out[m.Model], k) {
				out[m.Model] = append(out[m.Model], k)
			}
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// setupLabel names a run's setup by the keys that vary, in setupKeys
// order, e.g. "post, 6 blocks, warmup 0"; "" when none varies.
func setupLabel(m probes.RunMeta, varying []string) string {
	var parts []string
	for _, k := range setupKeys {
		if !contains(varying, k) {
			continue
		}
		v := setupValue(m, k)
		switch k {
		case "layers":
			v += " blocks"
		case "warmup":
			v = "warmup " + v
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, ", ")
}

// sameBlocks reports whether two runs have the same placement and number
// of blocks: only then must their norm sites be the same.
func sameBlocks(a, b probes.RunMeta) bool {
	return placementOf(a) == placementOf(b) && a.Config["layers"] == b.Config["layers"]
}
