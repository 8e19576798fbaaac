package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// announcer is a stderr that closes said once want has been written.
type announcer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	said chan struct{}
	once sync.Once
}

func (a *announcer) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.buf.Write(p)
	if strings.Contains(a.buf.String(), a.want) {
		a.once.Do(func() { close(a.said) })
	}
	return len(p), nil
}

func (a *announcer) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.buf.String()
}

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
	// The file appears once normtop says it waits for it (not after a
	// fixed sleep, which a loaded machine can outlast before normtop starts).
	cmd := exec.Command(buildNormtop(t), "replay", "--follow", "--headless", "--wait", "30s", path)
	cmd.Dir = dir
	var out bytes.Buffer
	errb := &announcer{want: "does not exist yet: waiting up to 30s", said: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-errb.said:
		os.WriteFile(path+".tmp", []byte(stream), 0o644)
		os.Rename(path+".tmp", path)
	case <-time.After(time.Minute):
		cmd.Process.Kill()
	}
	err := cmd.Wait()
	if err != nil || !strings.Contains(errb.String(), errb.want) || !strings.Contains(out.String(), "# end") {
		t.Errorf("replay --follow of a file made later: %v\nstderr %s\nstdout %s", err, errb.String(), out.String())
	}
	res := normtop(t, dir, "replay", "--follow", "--headless", "--wait", "300ms", filepath.Join(dir, "never.jsonl"))
	if res.code != exitData || strings.Count(res.stderr, "\n") != 2 {
		t.Errorf("a file that never appears: exit %d (want %d), stderr %q", res.code, exitData, res.stderr)
	}
	res = normtop(t, dir, "replay", "--follow", "--wait", "-1s", path)
	if res.code != exitUsage {
		t.Errorf("--wait -1s: exit %d, want %d", res.code, exitUsage)
	}
}
