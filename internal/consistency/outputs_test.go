package consistency

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/normtop/normtop/headless"
	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
	"github.com/normtop/normtop/report"
	"github.com/normtop/normtop/tui"
)

// outputs is what each consumer printed for one run.
type outputs struct {
	path     string // the run file
	headless string // the text log
	markdown string // record.ExportMarkdown
	report   string // report.WriteText over the run file
	summary  string // the dashboard's Summary screen
}

// consume writes frames to a run file and runs them through every consumer,
// wired as a live run wires them (cmd/normtop's train command): the writer
// folds each Frame once, and the headless printer and the dashboard (through
// the feed) draw on its standings; the export and the report read the file.
func consume(t *testing.T, meta probes.RunMeta, frames []probes.Frame) outputs {
	t.Helper()
	o := outputs{path: filepath.Join(t.TempDir(), "run.ntr")}
	w, err := record.Create(o.path, meta)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	p := headless.New(&log, meta, headless.Options{Every: 20, Standings: w.Standings()})
	feed := probes.NewFeed(len(frames) + 1)
	for _, f := range frames {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
		if err := p.Frame(f); err != nil {
			t.Fatal(err)
		}
		feed.PushFolded(f, w.Standings())
	}
	feed.Close()
	if err := w.Close(record.End{Status: w.Standings().EndStatus()}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	// A line too long for 80 columns goes on indented continuation lines:
	// joined back here, so that a variant's values are on one line.
	o.headless = regexp.MustCompile(`\n#?\s{5,}`).ReplaceAllString(log.String(), " ")
	o.markdown = exportMarkdown(t, o.path)
	o.report = reportText(t, o.path)
	o.summary = dashboardSummary(t, meta, feed)
	return o
}

func exportMarkdown(t *testing.T, path string) string {
	t.Helper()
	r, err := record.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := record.ExportMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func reportText(t *testing.T, path string) string {
	t.Helper()
	rep, err := report.Build([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// dashboardSummary runs a live dashboard on a real, closed probes.Feed and
// returns its Summary screen once every frame is in.
func dashboardSummary(t *testing.T, meta probes.RunMeta, feed *probes.Feed) string {
	t.Helper()
	tm := teatest.NewTestModel(t, tui.NewLive(meta, feed, tui.Options{NoColor: true}),
		teatest.WithInitialTermSize(200, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
	tm.Send(tea.KeyPressMsg{Code: '7', Text: "7"})
	// The Summary's title shows before the feed is drained (every row
	// "waiting"): wait for the rows too (the runs end "done"), not just
	// the title, or a loaded machine quits on an empty table.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("ranked by final val")) && bytes.Contains(b, []byte(" done"))
	}, teatest.WithDuration(60*time.Second))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	return tm.FinalModel(t, teatest.WithFinalTimeout(60*time.Second)).View().Content
}

// line is the first line of s that holds every one of parts, "" when none.
func line(s string, parts ...string) string {
	for _, l := range strings.Split(s, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return l
		}
	}
	return ""
}
