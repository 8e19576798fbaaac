package tui

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// fixtureModel is a live dashboard holding the whole fixture run. The
// frames are ingested before the program starts so that the screen does not
// depend on goroutine timing; its feed never fires.
func fixtureModel(nv, nl, steps int, opt Options) *Model {
	meta := fixtureMeta(nv, nl, steps)
	m := newLive(meta, newFakeFeed(), opt)
	for _, f := range fixtureFrames(meta, steps) {
		m.data.add(&f)
	}
	return m
}

// pinned renders content through a colour-profile writer, the way the
// program writes it to a terminal of that profile.
func pinned(t *testing.T, content string, p colorprofile.Profile) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: p}
	if _, err := w.WriteString(content); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// teaTimeout bounds how long a teatest program may take to finish: a guard
// against a hang, not a speed check, so it is generous (CI runs these under
// -race on a loaded 2-core machine, where 5 s was not always enough).
const teaTimeout = 60 * time.Second

// runScreen drives the dashboard through a real tea.Program (teatest) at
// the given size, presses keys, quits, and returns the final screen.
func runScreen(t *testing.T, m *Model, w, h int, keys ...string) string {
	t.Helper()
	tm := teatest.NewTestModel(t, m,
		teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
	for _, k := range keys {
		tm.Send(keyPress(k))
	}
	// The fixture is a live run still going, where q asks first: end the
	// program directly so that the screen is the keys' result.
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(teaTimeout))
	return fm.View().Content
}

// keyPress builds the message a terminal key produces: named keys by their
// Bubble Tea names, anything else as typed text.
func keyPress(k string) tea.KeyPressMsg {
	named := map[string]rune{"left": tea.KeyLeft, "right": tea.KeyRight, "up": tea.KeyUp, "down": tea.KeyDown,
		"tab": tea.KeyTab, "enter": tea.KeyEnter, "space": tea.KeySpace}
	if c, ok := named[k]; ok {
		msg := tea.KeyPressMsg{Code: c}
		if c == tea.KeySpace {
			msg.Text = " "
		}
		return msg
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// TestGoldenScreens: every screen at 80×24 and 160×48 from the fixture,
// colour profile pinned to ASCII (attributes kept, colours dropped). Update
// with: go test ./tui -run TestGolden -update
func TestGoldenScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		for s := range numScreens {
			name := fmt.Sprintf("%s_%dx%d", Screen(s).Title(), size[0], size[1])
			t.Run(name, func(t *testing.T) {
				m := fixtureModel(4, 6, 200, Options{RunPath: "runs/fixture.ntr"})
				out := runScreen(t, m, size[0], size[1], fmt.Sprint(int(s)+1))
				if !bytes.Contains([]byte(out), []byte(Screen(s).Title())) {
					t.Fatalf("screen %s not shown:\n%s", Screen(s).Title(), out)
				}
				golden.RequireEqual(t, pinned(t, out, colorprofile.ASCII))
			})
		}
	}
}

// TestGoldenTrueColor pins the colours too, on a dark and a light background.
func TestGoldenTrueColor(t *testing.T) {
	for _, dark := range []bool{true, false} {
		t.Run(fmt.Sprintf("dark=%v", dark), func(t *testing.T) {
			m := fixtureModel(4, 6, 200, Options{RunPath: "runs/fixture.ntr", Dark: &dark})
			out := runScreen(t, m, 80, 24, "2")
			golden.RequireEqual(t, pinned(t, out, colorprofile.TrueColor))
		})
	}
}

// TestGoldenNoColor: monochrome styles (NO_COLOR), 8 variants, selections
// moved with keys, full help.
func TestGoldenNoColor(t *testing.T) {
	cases := []struct {
		name string
		keys []string
	}{
		{"overview_paged", []string{"right", "right", "right", "right"}},
		{"layers_probe_log", []string{"2", "p", "p", "l", "down", "down"}},
		{"compare_layer_scrolled", []string{"3", "p", "down", "down", "down", "down", "down", "down", "down", "down", "down", "down"}},
		{"events_selected", []string{"6", "down"}},
		{"help", []string{"?"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := fixtureModel(8, 12, 200, Options{NoColor: true})
			out := runScreen(t, m, 100, 30, tc.keys...)
			golden.RequireEqual(t, pinned(t, out, colorprofile.TrueColor))
		})
	}
}

// TestGoldenOverlaySummary: the overlay chart (Overview, with the cursor
// and a zoom too) and the Summary screen at 80×24 and 160×48 in the
// monochrome styles of NO_COLOR.
func TestGoldenOverlaySummary(t *testing.T) {
	cases := []struct {
		name string
		keys []string
	}{
		{"overview", nil},
		{"overview_cursor_zoom", []string{"c", "left", "left", "left", "left", "z"}},
		{"compare_overlay", []string{"3"}},
		{"summary", []string{"7"}},
		{"summary_sorted_train", []string{"7", "o", "o", "o", "o", "o", "o"}},
		{"events_filtered", []string{"6", "f", "f"}},
	}
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				m := fixtureModel(4, 6, 200, Options{NoColor: true, RunPath: "runs/fixture.ntr"})
				out := runScreen(t, m, size[0], size[1], tc.keys...)
				golden.RequireEqual(t, pinned(t, out, colorprofile.TrueColor))
			})
		}
	}
}

// TestNoColorEnv: NO_COLOR in the environment selects the monochrome styles
// even without Options.NoColor: no colour escape reaches the screen.
func TestNoColorEnv(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	m := fixtureModel(4, 6, 200, Options{})
	if !m.styles.NoColor {
		t.Fatal("NO_COLOR ignored")
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for s := range numScreens {
		m.st.Screen = s
		m.dirty = true
		out := m.View().Content
		if c := colourSGR(out); c != "" {
			t.Fatalf("%s screen has a colour escape %q", s.Title(), c)
		}
	}
	// The check itself can fail: a coloured screen trips it.
	m = fixtureModel(4, 6, 200, Options{})
	m.styles = NewStyles(true, false)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if colourSGR(m.View().Content) == "" {
		t.Fatal("colourSGR found no colour in a coloured screen")
	}
}

var sgrRE = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

// colourSGR returns the first SGR sequence that sets a colour, or "".
func colourSGR(s string) string {
	for _, m := range sgrRE.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(p)
			if (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107) {
				return m[0]
			}
		}
	}
	return ""
}

func TestTooSmall(t *testing.T) {
	for _, size := range [][2]int{{79, 24}, {80, 23}, {40, 10}} {
		m := fixtureModel(2, 2, 20, Options{})
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		got := m.View().Content
		want := fmt.Sprintf("terminal too small (need 80×24, have %d×%d)", size[0], size[1])
		if got != want {
			t.Errorf("%v: got %q", size, got)
		}
	}
	// And back: a resize to a usable size redraws the dashboard.
	m := fixtureModel(2, 2, 20, Options{})
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 10})
	_ = m.View()
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if v := m.View().Content; !bytes.Contains([]byte(v), []byte("Overview")) {
		t.Fatalf("no redraw after resize:\n%s", v)
	}
}
