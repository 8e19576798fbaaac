package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// eventRow is one line of the events screen: an alert, or a run of
// outliers of one probe at one layer of one variant folded together.
type eventRow struct {
	event            // the latest alert of the row
	first, count int // step of the first alert of the row, and how many
}

// eventRows filters the events (step order) by kind and variant (-1: all)
// and folds repeated outliers of one (variant, layer, probe) into the row
// of their first occurrence, which keeps the latest value and a count.
func eventRows(evs []event, kind, variant int) []eventRow {
	type key struct {
		v, l int
		p    probes.Probe
	}
	at := map[key]int{}
	var rows []eventRow
	for _, e := range evs {
		if (kind >= 0 && int(e.Kind) != kind) || (variant >= 0 && e.variant != variant) {
			continue
		}
		if e.Kind == probes.AlertOutlier {
			k := key{e.variant, e.Layer, e.Probe}
			if i, ok := at[k]; ok {
				rows[i].event = e
				rows[i].count++
				continue
			}
			at[k] = len(rows)
		}
		rows = append(rows, eventRow{event: e, first: e.Step, count: 1})
	}
	return rows
}

// eventRows are the rows the Events screen lists under its filters (f, F
// and the text filter /).
func (m *eventsScreen) eventRows() []eventRow {
	rows := eventRows(m.data.events, m.state.kind, m.state.variant)
	if m.filter.pattern == "" {
		return rows
	}
	out := rows[:0]
	for _, r := range rows {
		if m.eventMatches(&r.event) {
			out = append(out, r)
		}
	}
	return out
}

// matchedEvents counts the events (not rows: outliers fold) the filters
// let through.
func (m *eventsScreen) matchedEvents() int {
	n := 0
	for i := range m.data.events {
		e := &m.data.events[i]
		if (m.state.kind >= 0 && int(e.Kind) != m.state.kind) || (m.state.variant >= 0 && e.variant != m.state.variant) {
			continue
		}
		if m.eventMatches(e) {
			n++
		}
	}
	return n
}

// eventMatches applies the text filter to an event: its variant, layer,
// kind, probe and message, case-insensitive, glob patterns allowed.
func (m *eventsScreen) eventMatches(e *event) bool {
	if m.filter.pattern == "" {
		return true
	}
	var parts []string
	if e.variant < len(m.data.variants) {
		parts = append(parts, m.data.variants[e.variant].label)
	}
	if e.Layer >= 0 && e.Layer < len(m.data.meta.Layers) {
		parts = append(parts, m.data.meta.Layers[e.Layer])
	}
	parts = append(parts, e.Kind.String(), e.Msg)
	if e.Probe < probes.NumProbes {
		parts = append(parts, e.Probe.String())
	}
	return matchAny(m.filter.pattern, parts...)
}

// kindCounts counts the events of each kind.
func kindCounts(evs []event) [probes.NumAlertKinds]int {
	var n [probes.NumAlertKinds]int
	for _, e := range evs {
		if e.Kind < probes.NumAlertKinds {
			n[e.Kind]++
		}
	}
	return n
}

// rowVariants are the variants of the rows (enter waits for that one).
func rowVariants(rows []eventRow) []int {
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = r.variant
	}
	return out
}

// rowSteps are the steps enter seeks to, one per row: the row's latest
// alert.
func rowSteps(rows []eventRow) []int {
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = r.Step
	}
	return out
}

// eventsScreen lists alerts in step order with step, variant and layer,
// counts per kind in the title; f and F filter. In replay, enter seeks to
// the selected row's step and pauses there. It owns its state (the
// selected row, the filters) and its keys (eventsKeys).
type eventsScreen struct {
	page
	state eventsState
	facts eventsFacts // the rows laid out last, for the keys
}

func newEventsScreen(c *common) *eventsScreen {
	return &eventsScreen{page: page{common: c}, state: eventsState{kind: -1, variant: -1}}
}

func (m *eventsScreen) View() []string { return m.eventsView(m.w, m.h) }

// Update takes the screen's keys.
func (m *eventsScreen) Update(msg tea.Msg) (tea.Cmd, bool) {
	if k, ok := keyMsg(msg); ok {
		return eventsKeys.handle(&m.state, m.facts, k, m.st.Replay)
	}
	return nil, false
}

// scroll: the wheel moves the selected row.
func (m *eventsScreen) scroll(d int) { m.state.scroll(d, m.facts) }

// filterChanged: a new text filter selects its first row.
func (m *eventsScreen) filterChanged() { m.state.sel = 0 }

func (m *eventsScreen) ShortHelp(replay bool) []key.Binding { return eventsKeys.help(replay) }

func (m *eventsScreen) Guide() string {
	return "Events: divergence, outliers, ν growth (PowerNorm Γ > 2/(1−α_b)), AdaNorm φ ≤ 0, over-fitting, in step " +
		"order; repeated outliers of one probe fold into one row (×count). f filters by kind, F by variant; " +
		"in replay, enter seeks to the selected event's step and pauses there."
}

func (m *eventsScreen) eventsView(w, h int) []string {
	s := m.styles
	out := m.eventsTitle()
	rows := m.eventRows()
	m.facts = eventsFacts{steps: rowSteps(rows), variants: rowVariants(rows), nVariants: len(m.data.variants), page: listPage(h)}
	if len(rows) == 0 {
		if len(m.data.events) == 0 {
			return append(out, "", s.Dim.Render("no alerts so far (divergence, outliers, ν growth, AdaNorm φ ≤ 0, over-fitting)"))
		}
		return append(out, "", s.Dim.Render("no alert matches the filter"))
	}
	vw := 18
	if w < 100 {
		vw = 12
	}
	out = append(out, s.Heading.Render(fmt.Sprintf("%13s  %-*s %-*s %-11s %s", "step", vw, "variant", eventLayerW, "layer", "kind", "message")))
	n := h - len(out)
	sel := clamp(m.state.sel, 0, len(rows)-1)
	first := max(0, min(sel-n/2, len(rows)-n))
	last := min(first+n, len(rows))
	if hint := pageHint("rows", first, last, len(rows), "↑/↓"); hint != "" {
		out[1] = withHint(out[1], s.Dim.Render(hint), w)
	}
	for i := first; i < last; i++ {
		r := &rows[i]
		line := m.eventLine(r, vw)
		switch {
		case i == sel:
			line = s.Selected.Render(fit(line, w))
		case r.Kind == probes.AlertDivergence:
			line = s.Bad.Render(line)
		default:
			line = s.Warn.Render(line)
		}
		out = append(out, line)
	}
	return out
}

// eventLayerW is the width of the Events table's layer column.
const eventLayerW = 11

// eventsTitle is the Events screen's first two lines: the counts (per kind,
// and of what the filters let through) and the filters in force.
func (m *eventsScreen) eventsTitle() []string {
	s := m.styles
	evs := m.data.events
	counts := kindCounts(evs)
	var parts []string
	for k, n := range counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", probes.AlertKind(k), n))
		}
	}
	// Under a filter the count is of what it lets through, then of all.
	title := s.Heading.Render(fmt.Sprintf("events %d", len(evs)))
	if m.state.kind >= 0 || m.state.variant >= 0 || m.filter.pattern != "" {
		title = s.Heading.Render(fmt.Sprintf("events %d of %d", m.matchedEvents(), len(evs)))
	}
	if len(parts) > 0 {
		title += s.Dim.Render(" (" + strings.Join(parts, " · ") + ")")
	}
	if m.data.dropped > 0 {
		title += s.Dim.Render(fmt.Sprintf(" · %d older dropped", m.data.dropped))
	}
	filter := "all kinds"
	if m.state.kind >= 0 {
		filter = probes.AlertKind(m.state.kind).String()
	}
	if m.state.variant >= 0 && m.state.variant < len(m.data.variants) {
		filter += " · " + m.data.variants[m.state.variant].label
	} else {
		filter += " · all variants"
	}
	switch {
	case m.filter.typing:
		filter += " · /" + m.filter.pattern + "▏"
	case m.filter.pattern != "":
		filter += " · /" + m.filter.pattern
	}
	out := []string{title, s.Dim.Render("showing " + filter + " (f: kind, F: variant, /: text)")}
	if m.st.Replay {
		out[1] += s.Dim.Render(" · enter: jump to the step and pause")
	}
	return out
}

// eventLine is one row of the Events table, unstyled; a folded row of
// repeated outliers gives its step range, count and latest value.
func (m *eventsScreen) eventLine(r *eventRow, vw int) string {
	layer := probes.Missing
	if r.Layer >= 0 && r.Layer < len(m.data.meta.Layers) {
		layer = m.data.meta.Layers[r.Layer]
	}
	vname := "?"
	if r.variant < len(m.data.variants) {
		vname = m.data.variants[r.variant].label
	}
	step := fmt.Sprint(r.Step)
	msg := probes.SafeText(r.Msg)
	if r.count > 1 {
		step = fmt.Sprintf("%d–%d", r.first, r.Step)
		msg = fmt.Sprintf("×%d %s: latest %s (threshold %s)", r.count, r.Probe, probes.FormatValue(r.Value), probes.FormatValue(r.Threshold))
	} else if r.Kind == probes.AlertOutlier {
		msg = fmt.Sprintf("%s %s (threshold %s)", r.Probe, probes.FormatValue(r.Value), probes.FormatValue(r.Threshold))
	}
	return fmt.Sprintf("%13s  %-*s %-*s %-11s %s", step, vw, truncName(vname, vw), eventLayerW, truncName(layer, eventLayerW), r.Kind, msg)
}

// eventsState is the Events screen's own state: the selected row and the
// filters (the text filter, /, is the root's: the Grid shares it).
type eventsState struct {
	sel     int // the selected row
	kind    int // events shown: -1 every kind, else a probes.AlertKind (f)
	variant int // events shown: -1 every variant, else one (F)
}

// eventsFacts are what the Events keys need from the frame's layout.
type eventsFacts struct {
	steps, variants []int // each row's step (enter seeks to it) and variant
	nVariants       int
	page            int // rows PgUp/PgDn move
}

// eventsFilter is the help entry of f (kind) and F (variant).
var eventsFilter = bind([]string{"f", "F"}, "f/F", "filter kind/variant")

// eventsKeys is the Events screen's key map: its rows move with ↑/↓,
// PgUp/PgDn and Home/End, f and F step the filters, / is the root's text
// filter, and in replay enter jumps to an event.
var eventsKeys = keyTable[eventsState, eventsFacts]{
	{key: keymap.layer, do: func(s *eventsState, f eventsFacts, k keyName) tea.Cmd {
		s.scroll(upDown(k), f)
		return nil
	}},
	{key: eventsFilter, do: func(s *eventsState, f eventsFacts, k keyName) tea.Cmd {
		if k == "F" {
			s.variant++
			if s.variant >= f.nVariants {
				s.variant = -1
			}
		} else {
			s.kind++
			if s.kind >= int(probes.NumAlertKinds) {
				s.kind = -1
			}
		}
		s.sel = 0
		return nil
	}},
	{key: keymap.text},
	{key: keymap.page, do: func(s *eventsState, f eventsFacts, k keyName) tea.Cmd {
		s.scroll(upDown(k)*max(f.page, 1), f)
		return nil
	}},
	{key: keymap.listEnds, do: func(s *eventsState, f eventsFacts, k keyName) tea.Cmd {
		s.sel = 0
		if key.Matches(k, keymap.end) {
			s.sel = max(len(f.steps)-1, 0)
		}
		return nil
	}},
	{key: keymap.jump, replay: true, do: func(s *eventsState, f eventsFacts, _ keyName) tea.Cmd {
		if s.sel < 0 || s.sel >= len(f.steps) {
			return nil
		}
		// The seek reads until the alert's variant has reached the
		// event's step (the others, each at its own pace, may be a
		// little past it), and the replay stops there to be looked at.
		v := -1
		if s.sel < len(f.variants) {
			v = f.variants[s.sel]
		}
		return seekCmd(f.steps[s.sel], v)
	}},
}

// scroll moves the selected row by d (↑/↓, PgUp/PgDn, the wheel).
func (s *eventsState) scroll(d int, f eventsFacts) {
	s.sel = clamp(s.sel+d, 0, len(f.steps)-1)
}
