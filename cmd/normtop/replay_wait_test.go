package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReplayFollowWaitsForTheFile: `replay --follow` started before the
// script that writes the stream waits for it (--wait), says so once, and
// reads it once it appears; without --follow, or at the deadline, a
// missing file is exit 3 as before.
func TestReplayFollowWaitsForTheFile(t *testing.T) {
	dir := t.TempDir()
	stream := `{"normtop_stream":1,"meta":{"RunID":"py","Model":"pytorch:Net","Variants":[{"Name":"layernorm","Spec":"layernorm"}],"Layers":["enc.norm"]}}
{"variant":"layernorm","step":1,"train_loss":2.5,"status":"done"}
{"end":{"status":"completed"}}
`
	path := filepath.Join(dir, "later.jsonl")
	buildNormtop(t) // built before the clock starts
	go func() {
		time.Sleep(time.Second)
		os.WriteFile(path+".tmp", []byte(stream), 0o644)
		os.Rename(path+".tmp", path)
	}()
	res := normtop(t, dir, "replay", "--follow", "--headless", "--wait", "30s", path)
	if res.code != 0 || !strings.Contains(res.stderr, "does not exist yet: waiting up to 30s") || !strings.Contains(res.stdout, "# end") {
		t.Errorf("replay --follow of a file made later: exit %d\nstderr %s\nstdout %s", res.code, res.stderr, res.stdout)
	}
	res = normtop(t, dir, "replay", "--follow", "--headless", "--wait", "300ms", filepath.Join(dir, "never.jsonl"))
	if res.code != exitData || strings.Count(res.stderr, "\n") != 2 {
		t.Errorf("a file that never appears: exit %d (want %d), stderr %q", res.code, exitData, res.stderr)
	}
	res = normtop(t, dir, "replay", "--follow", "--wait", "-1s", path)
	if res.code != exitUsage {
		t.Errorf("--wait -1s: exit %d, want %d", res.code, exitUsage)
	}
}
