package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A stream (docs/formats.md) written by another trainer is opened by
// content, whatever its name: replay and export read it like a run file,
// and its mistakes get one clear line.
func TestReplayAndExportStream(t *testing.T) {
	dir := t.TempDir()
	stream := `{"normtop_stream":1,"meta":{"RunID":"py","Model":"pytorch:Net","Metric":"accuracy","Variants":[{"Name":"layernorm","Spec":"layernorm"}],"Layers":["enc.norm"]}}
{"variant":"layernorm","step":1,"train_loss":2.5,"layers":{"enc.norm":{"g_mu":0.25,"dist_mu":null}}}
{"variant":"layernorm","step":2,"train_loss":2.25,"status":"done","eval":[{"split":"val","loss":2.4,"metric":0.5}]}
{"end":{"status":"completed"}}
`
	path := filepath.Join(dir, "run.ntr") // the name says run file; the content decides
	if err := os.WriteFile(path, []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	res := normtop(t, dir, "replay", path, "--headless")
	if res.code != 0 || res.stderr != "" || !strings.Contains(res.stdout, "done at step 2") {
		t.Fatalf("replay: exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
	res = normtop(t, dir, "export", path, "--format", "csv")
	if res.code != 0 || !strings.Contains(res.stdout, "layernorm,1,0,enc.norm,g_mu,0.25") {
		t.Fatalf("export: exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
	if strings.Contains(res.stdout, "dist_mu") {
		t.Errorf("a null (unmeasured) probe was exported:\n%s", res.stdout)
	}
	res = normtop(t, dir, "export", path, "--format", "md")
	if res.code != 0 || !strings.Contains(res.stdout, "| layernorm | 2 | 50.00 |") {
		t.Fatalf("export md: exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}

	// What `export --format jsonl` writes has no header line: not a stream.
	bare := filepath.Join(dir, "frames.jsonl")
	if err := os.WriteFile(bare, []byte(`{"variant":"layernorm","step":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = normtop(t, dir, "replay", bare, "--headless")
	checkOneLine(t, "replay of header-less JSON Lines", res, res.code, bare, "not a normtop stream")
	if res.code == 0 {
		t.Error("replay of header-less JSON Lines exited 0")
	}
}
