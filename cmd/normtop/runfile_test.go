package main

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

func testMeta() probes.RunMeta {
	return probes.RunMeta{
		RunID: "test-run", Model: "mlp", Data: "synthetic", Metric: "accuracy",
		Variants: []probes.VariantMeta{{Name: "layernorm", Spec: "layernorm"}, {Name: "powernorm", Spec: "powernorm"}},
		Layers:   []string{"fc1.norm", "fc2.norm"},
		Start:    time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC),
		Config:   map[string]string{"steps": "40"},
	}
}

// testFrame is step s of variant v: a falling loss, probe values on both
// layers, a validation result every 10 steps.
func testFrame(v, s int) probes.Frame {
	f := probes.Frame{Variant: v, Step: s, Epoch: float64(s) / 100, TrainLoss: 2 / float64(s+v),
		StepsPerSec: 50, Elapsed: time.Duration(s) * 20 * time.Millisecond}
	for range 2 {
		lv := probes.EmptyLayerValues()
		lv[probes.DistMu] = 0.1 / float64(s)
		lv[probes.InStd] = 1
		f.Layers = append(f.Layers, lv)
	}
	if s%10 == 0 {
		f.Eval = []probes.Eval{{Split: "val", Loss: 1 / float64(s), Metric: 0.9 + float64(v)/100}}
	}
	return f
}

// writeTransformerRun writes dir/tf.ntr: 5 steps of testMeta's variants
// as a transformer's run, which a report cannot compare with mlp's.
func writeTransformerRun(t *testing.T, dir string) string {
	t.Helper()
	m := testMeta()
	m.Model = "transformer"
	tf := filepath.Join(dir, "tf.ntr")
	w, err := record.Create(tf, m)
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 5; s++ {
		w.Write(testFrame(0, s))
		w.Write(testFrame(1, s))
	}
	w.Close(record.End{Status: record.StatusCompleted})
	return tf
}

// writeRun writes steps frames per variant to path; closed unless open is
// set, in which case the returned writer is still writing.
func writeRun(t *testing.T, path string, steps int, open bool) *record.Writer {
	t.Helper()
	w, err := record.Create(path, testMeta())
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= steps; s++ {
		for v := range 2 {
			f := testFrame(v, s)
			if s == steps && !open {
				f.Status = probes.Done
			}
			if err := w.Write(f); err != nil {
				t.Fatal(err)
			}
		}
		if s%20 == 0 { // as a live run does now and then: seals a record
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if open {
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close(record.End{Status: record.StatusInterrupted}) })
		return w
	}
	if err := w.Close(record.End{Status: record.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	return nil
}

func TestReplayAndExportGoodRunFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "good.ntr")
	writeRun(t, path, 40, false)

	res := normtop(t, dir, "replay", path, "--headless", "--log-every", "10")
	if res.code != 0 || res.stderr != "" {
		t.Fatalf("replay: exit %d, stderr %q", res.code, res.stderr)
	}
	if n := strings.Count(res.stdout, "\nstep "); n != 4 {
		t.Errorf("replay printed %d step lines, want 4 (steps 10..40):\n%s", n, res.stdout)
	}
	if !strings.Contains(res.stdout, "# end layernorm: done at step 40") {
		t.Errorf("replay lacks the end line:\n%s", res.stdout)
	}
	res = normtop(t, dir, "replay", path, "--from", "30", "--log-every", "10")
	if strings.Contains(res.stdout, "step     10") || !strings.Contains(res.stdout, "step     40") {
		t.Errorf("replay --from 30:\n%s", res.stdout)
	}
	res = normtop(t, dir, "replay", path, "--log-format", "json", "--log-every", "20")
	if res.code != 0 || !strings.HasPrefix(res.stdout, `{"type":"start"`) {
		t.Errorf("replay --log-format json: exit %d\n%s", res.code, res.stdout)
	}
	for _, format := range []string{"csv", "jsonl", "md"} {
		res := normtop(t, dir, "export", path, "--format", format)
		if res.code != 0 || res.stderr != "" || len(res.stdout) == 0 {
			t.Errorf("export --format %s: exit %d, stderr %q, %d bytes", format, res.code, res.stderr, len(res.stdout))
		}
		out := filepath.Join(dir, "out."+format)
		res = normtop(t, dir, "export", path, "--format", format, "--out", out)
		b, err := os.ReadFile(out)
		if res.code != 0 || err != nil || len(b) == 0 {
			t.Errorf("export --format %s --out: exit %d, %v, %d bytes", format, res.code, err, len(b))
		}
	}
	if res := normtop(t, dir, "export", path, "--format", "md"); !strings.Contains(res.stdout, "layernorm") {
		t.Errorf("markdown export lacks the variants:\n%s", res.stdout)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".out.*")); len(left) > 0 {
		t.Errorf("export left temporary files: %v", left)
	}
}

// prelude builds a run file's first 16 bytes (docs/formats.md) for a given
// format version.
func prelude(version uint32) []byte {
	b := []byte{0x89, 'N', 'T', 'R', 'U', 'N', '\r', '\n', 0, 0, 0, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[8:12], version)
	binary.LittleEndian.PutUint32(b[12:16], crc32.Checksum(b[:12], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

func TestBadRunFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.ntr")
	writeRun(t, good, 40, false)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	garbage := []byte(strings.Repeat("this is not a run file\n", 50))
	future := append(prelude(99), data[16:]...)
	for _, tc := range []struct {
		name string
		path string
		want []string
	}{
		{"missing", filepath.Join(dir, "nope.ntr"), []string{"nope.ntr"}},
		{"empty", write("empty.ntr", nil), []string{"empty.ntr"}},
		{"truncated in the prelude", write("cut.ntr", data[:10]), []string{"cut.ntr"}},
		{"not a run file", write("garbage.ntr", garbage), []string{"garbage.ntr"}},
		{"future version", write("future.ntr", future), []string{"future.ntr", "99", "1"}},
		{"directory", dir, []string{dir}},
		{"named pipe", fifo(t, filepath.Join(dir, "pipe.ntr")), []string{"pipe.ntr", "named pipe", "regular file"}},
		{"character device", "/dev/zero", []string{"/dev/zero", "character device"}},
	} {
		for _, cmd := range [][]string{{"replay", tc.path, "--headless"}, {"export", tc.path, "--format", "csv"}, {"report", tc.path}, {"report", good, tc.path, "--format", "md"}} {
			res := normtop(t, dir, cmd...)
			checkOneLine(t, tc.name+": "+cmd[0], res, exitData, tc.want...)
		}
	}
}

// A run file cut or damaged after its header still replays: everything
// complete is shown and one line says what was wrong.
func TestDamagedRunFilesReplayWithOneNote(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.ntr")
	writeRun(t, good, 400, false)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.ntr")
	os.WriteFile(cut, data[:len(data)*2/3], 0o644)
	corrupt := append([]byte(nil), data...)
	mid := len(corrupt) / 2
	for i := mid; i < mid+64; i++ {
		corrupt[i] ^= 0x5a
	}
	bad := filepath.Join(dir, "corrupt.ntr")
	os.WriteFile(bad, corrupt, 0o644)
	for _, tc := range []struct {
		path string
		want string
	}{
		{cut, "no end record"},
		{bad, "damaged"},
	} {
		for _, cmd := range [][]string{{"replay", tc.path, "--log-every", "100"}, {"export", tc.path, "--format", "jsonl"},
			{"replay", "--follow", tc.path, "--log-every", "100"}, // no writer: --follow does not wait
			{"report", tc.path}} {
			res := normtop(t, dir, cmd...)
			checkOneLine(t, filepath.Base(tc.path)+" "+cmd[0], res, exitOK, tc.want)
			if len(res.stdout) == 0 {
				t.Errorf("%s %s: nothing on stdout", tc.path, cmd[0])
			}
		}
	}
}

func TestReplayOfARunStillBeingWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "live.ntr")
	w := writeRun(t, path, 20, true)

	res := normtop(t, dir, "replay", path, "--log-every", "10")
	checkOneLine(t, "replay of a growing file", res, exitOK, "still being written", "--follow")
	if !strings.Contains(res.stdout, "step     20") {
		t.Errorf("replay of a growing file did not show what is there:\n%s", res.stdout)
	}

	// --follow shows frames written later and stops at the end record.
	done := make(chan result, 1)
	go func() { done <- normtop(t, dir, "replay", path, "--follow", "--log-every", "10") }()
	time.Sleep(500 * time.Millisecond)
	for s := 21; s <= 30; s++ {
		for v := range 2 {
			f := testFrame(v, s)
			if s == 30 {
				f.Status = probes.Done
			}
			w.Write(f)
		}
	}
	if err := w.Close(record.End{Status: record.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.code != 0 || res.stderr != "" || !strings.Contains(res.stdout, "step     30") {
			t.Errorf("replay --follow: exit %d, stderr %q\n%s", res.code, res.stderr, res.stdout)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("replay --follow did not stop at the end record")
	}
}

// fifo makes a named pipe at path (no writer ever opens it).
func fifo(t *testing.T, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	return path
}
