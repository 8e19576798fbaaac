package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Workspace is the dashboard over several run files (W&B LEET's workspace):
// a list of the runs, a chart overlaying the variants of the runs selected
// (space) as run·variant on shared axes, and any one run opened whole
// (enter) in the replay dashboard, esc or q back to the list.
type Workspace struct {
	runs    []wsRun
	open    Opener
	opt     Options
	styles  *Styles
	w, h    int
	sel     int          // the row under the cursor
	picked  map[int]bool // the runs overlaid
	loading int          // the next file to load; len(runs): all loaded
	headers int          // headers received
	note    string       // a directory with no run files: the one line said
	child   *Model       // the run opened with enter, nil on the list
	closeFn func()       // closes the child's file
	smooth  int          // the overlay's smoothing level (s)
	polling bool         // the follow clock runs (a file was still being written)
}

// wsListKeys is the workspace list's key map: a keyTable over the
// Workspace, as every screen's, driving both dispatch and the help line
// (in this order). ↓/j moves as ↑/k does; the help line names ↑/k alone.
var wsListKeys = keyTable[Workspace, struct{}]{
	{key: bind([]string{"up", "k"}, "↑/k", "up"), do: func(ws *Workspace, _ struct{}, _ keyName) tea.Cmd {
		ws.sel = max(ws.sel-1, 0)
		return nil
	}},
	{key: bind([]string{"space", " "}, "space", "overlay run"), do: func(ws *Workspace, _ struct{}, _ keyName) tea.Cmd {
		if ws.sel < len(ws.runs) && ws.runs[ws.sel].err == nil {
			ws.picked[ws.sel] = !ws.picked[ws.sel]
		}
		return nil
	}},
	{key: bind([]string{"enter"}, "enter", "open run"), do: func(ws *Workspace, _ struct{}, _ keyName) tea.Cmd {
		return ws.openRun(ws.sel)
	}},
	{key: bind([]string{"s"}, "s", "smoothing"), do: func(ws *Workspace, _ struct{}, _ keyName) tea.Cmd {
		ws.smooth = wrap(ws.smooth+1, len(smoothWeights))
		return nil
	}},
	{key: bind([]string{"q", "ctrl+c"}, "q", "quit"), do: func(*Workspace, struct{}, keyName) tea.Cmd { return tea.Quit }},
	{key: unlisted("down", "j"), do: func(ws *Workspace, _ struct{}, _ keyName) tea.Cmd {
		ws.sel = min(ws.sel+1, max(len(ws.runs)-1, 0))
		return nil
	}},
}

// With a run open: q, or esc when the run has nothing of its own to clear,
// come back to the list (ctrl+c is the run's: it quits). The run's own help
// bar shows these keys.
var wsCloseRun, wsBack = unlisted("q"), unlisted("esc")

// NewWorkspace returns the dashboard over the run files at paths; note,
// when not empty, is the one line shown instead (no run files found).
func NewWorkspace(paths []string, open Opener, opt Options, note string) tea.Model {
	dark := true
	if opt.Dark != nil {
		dark = *opt.Dark
	}
	ws := &Workspace{open: open, opt: opt, styles: NewStyles(dark, opt.NoColor),
		picked: map[int]bool{}, note: note, smooth: defaultSmooth}
	for _, p := range paths {
		ws.runs = append(ws.runs, wsRun{path: p})
	}
	return ws
}

// Init reads every header, then the first file's frames.
func (ws *Workspace) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	for i := range ws.runs {
		cmds = append(cmds, headerCmd(ws.open, i, ws.runs[i].path))
	}
	return tea.Batch(cmds...)
}

// Update handles the list's keys and the loading; with a run open,
// everything goes to it but esc and q, which come back to the list.
func (ws *Workspace) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		ws.w, ws.h = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		ws.styles = NewStyles(msg.IsDark(), ws.opt.NoColor)
	case wsHeaderMsg:
		return ws, ws.onHeader(msg)
	case wsLoadedMsg:
		return ws, ws.onLoaded(msg)
	case wsPollMsg:
		return ws, ws.poll()
	case wsAppendedMsg:
		return ws, ws.onAppended(msg)
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if ws.child != nil {
			return ws, ws.childKey(msg)
		}
		return ws, ws.onKey(msg)
	}
	if ws.child != nil {
		_, cmd := ws.child.Update(msg)
		return ws, cmd
	}
	return ws, nil
}

func (ws *Workspace) onHeader(msg wsHeaderMsg) tea.Cmd {
	r := &ws.runs[msg.i]
	r.meta, r.err = msg.meta, msg.err
	ws.headers++
	if ws.headers < len(ws.runs) {
		return nil
	}
	return ws.loadNext()
}

// loadNext reads the next readable file's frames, one file at a time.
func (ws *Workspace) loadNext() tea.Cmd {
	for ws.loading < len(ws.runs) && ws.runs[ws.loading].err != nil {
		ws.loading++
	}
	if ws.loading >= len(ws.runs) {
		return nil
	}
	i := ws.loading
	ws.loading++
	return loadCmd(ws.open, i, ws.runs[i].path)
}

func (ws *Workspace) onLoaded(msg wsLoadedMsg) tea.Cmd {
	r := &ws.runs[msg.i]
	r.data, r.err, r.note, r.loaded = msg.data, msg.err, msg.note, msg.err == nil
	r.src, r.closer, r.live = msg.src, msg.closer, msg.src != nil
	next := ws.loadNext()
	if r.live && !ws.polling {
		// The first live file starts the follow clock.
		ws.polling = true
		return tea.Batch(next, tea.Tick(wsFollowPoll, func(time.Time) tea.Msg { return wsPollMsg{} }))
	}
	return next
}

// poll reads the live files' appended frames, unless the previous poll
// is still reading.
func (ws *Workspace) poll() tea.Cmd {
	srcs := map[int]ReplaySource{}
	for i := range ws.runs {
		if ws.runs[i].live {
			srcs[i] = ws.runs[i].src
		}
	}
	if len(srcs) == 0 {
		ws.polling = false
		return nil
	}
	return pollCmd(srcs)
}

// onAppended ingests the appended frames; a file whose run ended is
// closed and followed no more.
func (ws *Workspace) onAppended(msg wsAppendedMsg) tea.Cmd {
	for i, fs := range msg.frames {
		r := &ws.runs[i]
		for k := range fs {
			r.data.add(&fs[k])
		}
	}
	for i := range msg.ended {
		r := &ws.runs[i]
		r.live = false
		r.closer()
	}
	return tea.Tick(wsFollowPoll, func(time.Time) tea.Msg { return wsPollMsg{} })
}

func (ws *Workspace) onKey(msg tea.KeyPressMsg) tea.Cmd {
	cmd, _ := wsListKeys.handle(ws, struct{}{}, keyName(msg.String()), false)
	return cmd
}

func (ws *Workspace) openRun(i int) tea.Cmd {
	if i >= len(ws.runs) || ws.runs[i].err != nil {
		return nil
	}
	src, closer, err := ws.open(ws.runs[i].path)
	if err != nil {
		ws.runs[i].err = err
		return nil
	}
	opt := ws.opt
	opt.RunPath, opt.From = ws.runs[i].path, 1<<62 // to the end at once: it is there to be looked at
	if ws.runs[i].live {
		opt.From, opt.Follow = 0, true // a run still being written is followed
	}
	ws.child = NewReplay(src, opt).(*Model)
	ws.child.Update(tea.WindowSizeMsg{Width: ws.w, Height: ws.h})
	ws.closeFn = closer
	return ws.child.Init()
}

// childKey: esc (with nothing of the run's own to clear) and q come back
// to the list; every other key is the run's.
func (ws *Workspace) childKey(msg tea.KeyPressMsg) tea.Cmd {
	c := ws.child
	idle := c.st.Cursor < 0 && !c.config.state.open && !c.filter.typing && c.filter.pattern == "" && !c.st.Help
	if key.Matches(msg, wsCloseRun) || (key.Matches(msg, wsBack) && idle) {
		ws.child = nil
		if ws.closeFn != nil {
			ws.closeFn()
			ws.closeFn = nil
		}
		return nil
	}
	_, cmd := ws.child.Update(msg)
	return cmd
}

// View draws the list and the overlay, or the run opened.
func (ws *Workspace) View() tea.View {
	var content string
	if ws.child != nil {
		content = ws.child.View().Content
	} else {
		content = ws.render()
	}
	v := tea.NewView(content)
	v.AltScreen = true
	v.WindowTitle = "normtop"
	return v
}

func (ws *Workspace) render() string {
	if ws.w == 0 || ws.h == 0 {
		return "normtop: waiting for the terminal size…"
	}
	if ws.w < minW || ws.h < minH {
		return fmt.Sprintf("terminal too small (need %d×%d, have %d×%d)", minW, minH, ws.w, ws.h)
	}
	s := ws.styles
	out := []string{joinLR(s.Title.Render("normtop")+" "+s.Header.Render(fmt.Sprintf("workspace · %d run files", len(ws.runs))),
		s.ActiveTab.Render(" workspace "), ws.w)}
	if ws.note != "" {
		out = append(out, "", s.Bad.Render(ws.note))
	} else {
		listH := min(len(ws.runs)+1, max((ws.h-3)/3, 4))
		out = append(out, ws.list(listH)...)
		out = append(out, ws.rowNote())
		out = append(out, ws.overlay(ws.h-len(out)-1)...)
	}
	var b strings.Builder
	for i := range ws.h - 1 {
		line := ""
		if i < len(out) {
			line = out[i]
		}
		b.WriteString(fit(line, ws.w))
		b.WriteByte('\n')
	}
	h := ws.help()
	b.WriteString(fit(h, ws.w))
	return b.String()
}

func (ws *Workspace) help() string {
	var parts []string
	for _, k := range wsListKeys.help(false) {
		parts = append(parts, ws.styles.Help.ShortKey.Render(k.Help().Key)+" "+ws.styles.Help.ShortDesc.Render(k.Help().Desc))
	}
	return strings.Join(parts, ws.styles.Help.ShortSeparator.Render(" • "))
}

// rowNote is the line under the list about the row under the cursor: its
// file, and what is wrong with it (unreadable, damage skipped, no end
// record), in one line.
func (ws *Workspace) rowNote() string {
	if ws.sel >= len(ws.runs) {
		return ""
	}
	r := &ws.runs[ws.sel]
	switch {
	case r.err != nil:
		return ws.styles.Bad.Render(r.path + ": " + r.err.Error())
	case r.note != "":
		return ws.styles.Warn.Render(r.note)
	}
	return ws.styles.Dim.Render(r.path)
}

// list is the table of run files, h lines with its heading.
func (ws *Workspace) list(h int) []string {
	s := ws.styles
	cols := []column{
		{head: " ", w: 1},
		{head: "run", w: 34},
		{head: "model", w: 11},
		{head: "data", w: 14, drop: 4},
		{head: "variants", w: 30, drop: 3},
		{head: "seeds", w: 5, right: true, drop: 5},
		{head: "status", w: 10},
		{head: "steps", w: 11, right: true, drop: 1},
		{head: "best", w: 12, drop: 2},
		{head: "started", w: 16, drop: 6},
	}
	keep := fitColumns(cols, ws.w)
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.head
	}
	out := []string{s.Heading.Render(tableLine(cols, keep, heads))}
	rows := max(h-1, 1)
	first := window(ws.sel, rows, len(ws.runs))
	for i := first; i < min(first+rows, len(ws.runs)); i++ {
		r := &ws.runs[i]
		mark := " "
		if ws.picked[i] {
			mark = "✓"
		}
		id := r.meta.RunID
		if id == "" {
			id = shortenPath(r.path, 34)
		}
		var cells []string
		if r.err != nil {
			cells = []string{mark, shortenPath(r.path, 34), "", "", r.err.Error(), "", "unreadable", "", "", ""}
		} else {
			labels := make([]string, len(r.meta.Variants))
			for j := range labels {
				labels[j] = r.meta.VariantLabel(j)
			}
			started := ""
			if !r.meta.Start.IsZero() {
				started = r.meta.Start.UTC().Format("2006-01-02 15:04")
			}
			cells = []string{mark, id, r.meta.Model, r.meta.Data, strings.Join(labels, ","), fmt.Sprint(seedCount(r.meta)),
				r.status(), r.steps(), r.best(), started}
		}
		line := tableLine(cols, keep, cells)
		switch {
		case i == ws.sel:
			line = s.Selected.Render(fit(line, ws.w))
		case r.err != nil:
			line = s.Bad.Render(line)
		}
		out = append(out, line)
	}
	return out
}
