package tui

import (
	"strings"
	"unicode"

	"github.com/normtop/normtop/probes"
)

// This file draws where each variant stands from the run's
// probes.Standings (fed by the store), grouped by spec over seeds
// (probes.GroupStanding), for the ranking (Overview), the Summary and the
// Compare screens. It keeps no bookkeeping and computes no statistic of
// its own: mean ± sd, the ranking and the 2·SE rule are probes'.

// standing is one variant's (or one group of seeds') result so far: the
// group's probes.GroupStanding as probes computed it (the screens read its
// fields as they are), and its outlier alerts per layer group.
type standing struct {
	probes.GroupStanding
	alerts []int // outlier alerts per layer group (layerGroups order)
}

// layerGroup names the kind of site a layer is, its block index dropped:
// "block3.ln1" → "ln1", "fc2" → "fc". Alerts are counted per group.
func layerGroup(name string) string {
	if _, rest, ok := strings.Cut(name, "."); ok {
		return rest
	}
	return strings.TrimRightFunc(name, unicode.IsDigit)
}

// layerGroups lists the groups of the run's layers in first-seen order and
// maps each layer to its group.
func layerGroups(layers []string) (names []string, of []int) {
	idx := map[string]int{}
	of = make([]int, len(layers))
	for l, n := range layers {
		g := layerGroup(n)
		i, ok := idx[g]
		if !ok {
			i = len(names)
			idx[g] = i
			names = append(names, g)
		}
		of[l] = i
	}
	return names, of
}

// standings groups the variants by spec (probes.Standings.Groups) and
// counts each group's outlier alerts per layer group.
func (s *store) standings() []standing {
	gnames, gof := layerGroups(s.meta.Layers)
	gs := s.tally.Groups(s.meta)
	out := make([]standing, len(gs))
	for j, g := range gs {
		out[j] = standing{GroupStanding: g, alerts: make([]int, len(gnames))}
		for l, n := range g.Outliers {
			out[j].alerts[gof[l]] += n
		}
	}
	return out
}

// rank orders standings best first (probes.Rank).
func rank(st []standing, metric string) []int {
	gs := make([]probes.GroupStanding, len(st))
	for i := range st {
		gs[i] = st[i].GroupStanding
	}
	return probes.Rank(gs, probes.Metric(metric))
}

// noiseVerdict says whether standing a's final val metric differs from
// b's beyond seed noise (probes.NoiseOf: 2·SE, ≥ 3 seeds a side); "" when
// it cannot be judged.
func noiseVerdict(a, b *standing) string { return probes.NoiseOf(a.Metric, b.Metric).String() }
