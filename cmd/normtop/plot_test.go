package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noFilesBut fails when dir holds anything besides the names given: a
// refused command leaves no partial or temporary file behind.
func noFilesBut(t *testing.T, what, dir string, keep ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		ok := false
		for _, k := range keep {
			ok = ok || e.Name() == k
		}
		if !ok {
			t.Errorf("%s left %s behind", what, e.Name())
		}
	}
}

func TestPlotCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ntr")
	writeRun(t, path, 30, false)
	for _, ext := range []string{"svg", "png", "pdf", "SVG"} {
		out := filepath.Join(dir, "fig."+ext)
		res := normtop(t, dir, "plot", path, "--probe", "dist_mu", "--log", "--smooth", "3", "--out", out)
		if res.code != 0 || res.stderr != "" {
			t.Fatalf("plot %s: exit %d, %s", ext, res.code, res.stderr)
		}
		if st, err := os.Stat(out); err != nil || st.Size() < 500 {
			t.Errorf("plot %s: %v", ext, err)
		}
		os.Remove(out)
	}
	res := normtop(t, dir, "report", path, "--format", "html", "--out", filepath.Join(dir, "r.html"))
	b, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if res.code != 0 || err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") || !strings.Contains(string(b), "<svg") {
		t.Errorf("report --format html: exit %d, %v, %.60q", res.code, err, b)
	}
	os.Remove(filepath.Join(dir, "r.html"))
	noFilesBut(t, "plot", dir, "run.ntr")
}

// Bad input: one line, exit 2, nothing written.
func TestPlotBadInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ntr")
	writeRun(t, path, 20, false)
	tf := writeTransformerRun(t, dir)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	out := filepath.Join(dir, "f.svg")
	for _, tc := range []struct {
		what string
		args []string
		want []string
	}{
		{"unknown probe", []string{path, "--probe", "rdist", "--out", out}, []string{`"rdist"`, "rdist_var", "train_loss"}},
		{"unknown layer", []string{path, "--probe", "dist_mu", "--layer", "fc9", "--out", out}, []string{`"fc9"`, "fc1.norm, fc2.norm"}},
		{"unknown variant", []string{path, "--probe", "dist_mu", "--variants", "rmsnorm", "--out", out}, []string{`"rmsnorm"`, "layernorm, powernorm"}},
		{"extension", []string{path, "--probe", "dist_mu", "--out", filepath.Join(dir, "f.jpg")}, []string{".jpg", ".svg, .png or .pdf"}},
		{"no extension", []string{path, "--probe", "dist_mu", "--out", filepath.Join(dir, "f")}, []string{".svg, .png or .pdf"}},
		{"directory", []string{path, "--probe", "dist_mu", "--out", sub + ".svg"}, nil},
		{"incompatible models", []string{path, tf, "--probe", "dist_mu", "--out", out}, []string{"mlp", "transformer"}},
		{"no --out", []string{path, "--probe", "dist_mu"}, []string{"--out"}},
		{"no values", []string{path, "--probe", "g_psi2", "--out", out}, []string{"no values", "recorded there"}},
	} {
		if tc.what == "directory" {
			os.Mkdir(sub+".svg", 0o755)
			tc.want = []string{"directory"}
		}
		res := normtop(t, dir, append([]string{"plot"}, tc.args...)...)
		checkOneLine(t, "plot "+tc.what, res, exitUsage, tc.want...)
	}
	noFilesBut(t, "refused plots", dir, "run.ntr", "tf.ntr", "sub", "sub.svg")
	res := normtop(t, dir, "plot", filepath.Join(dir, "missing.ntr"), "--probe", "dist_mu", "--out", out)
	checkOneLine(t, "plot of a missing file", res, exitData, "missing.ntr")
}

// A FIFO as --out is written in place, not replaced by a rename.
func TestPlotToFIFO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ntr")
	writeRun(t, path, 20, false)
	fifo := filepath.Join(dir, "fig.svg")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFO here:", err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	res := normtop(t, dir, "plot", path, "--probe", "train_loss", "--out", fifo)
	b := <-got
	if res.code != 0 || !strings.Contains(string(b), "</svg>") {
		t.Fatalf("plot to a FIFO: exit %d %s, read %d bytes", res.code, res.stderr, len(b))
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
}
