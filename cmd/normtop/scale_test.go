package main

import (
	"strings"
	"testing"

	"github.com/normtop/normtop/train"
)

// TestScaleFlags: --scale paper starts from train.PaperConfig, whose
// fields other flags still override; --ffn sets the FFN width.
func TestScaleFlags(t *testing.T) {
	o, _, err := parseTrain([]string{"--scale", "paper", "--steps", "10"})
	if err != nil {
		t.Fatal(err)
	}
	want := train.PaperConfig("sotu")
	c := o.cfg
	if c.DModel != 512 || c.Layers != 6 || c.FFN != 1024 || c.MaxTokens != 4096 || c.Dropout != 0.3 ||
		c.Warmup != 8000 || c.Clip != 0 || c.Heads != want.Heads || c.LR != want.LR || c.Steps != 10 {
		t.Errorf("--scale paper --steps 10: %+v", c)
	}
	if o, _, err = parseTrain([]string{"--ffn", "48"}); err != nil || o.cfg.FFN != 48 || o.cfg.DModel != 64 {
		t.Errorf("--ffn 48: FFN %d, d %d, %v", o.cfg.FFN, o.cfg.DModel, err)
	}
}

// TestScaleBadInput: a scale that is not a size of the word LM is a usage
// error of one line; a paper-size run larger than the machine's memory is
// refused with its estimate before any data is loaded (the data named here
// does not exist: loading it first would be a data error, exit 3).
func TestScaleBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"train", "--scale", "big"}, []string{`--scale "big"`, "the only scale is paper"}},
		{[]string{"train", "--scale", "paper", "--model", "lstm"}, []string{"--scale paper", "not of model lstm"}},
		{[]string{"train", "--scale", "paper", "--data", "text"}, []string{"--scale paper", "--data text is not word-level data"}},
		{[]string{"train", "--ffn", "-1"}, []string{"ffn -1"}},
		{[]string{"findings", "--scale", "huge", "--plan"}, []string{`--scale "huge"`}},
	} {
		checkOneLine(t, strings.Join(tc.args, " "), normtop(t, dir, tc.args...), exitUsage, tc.want...)
	}
	res := normtop(t, dir, "train", "--scale", "paper", "--d-model", "20000", "--heads", "4", "--data", "words:"+dir+"/no-such-file.txt")
	lines := strings.Split(strings.TrimRight(res.stderr, "\n"), "\n")
	if res.code != exitUsage || len(lines) != 2 || !strings.Contains(lines[0], "--scale paper: 4 trainings") ||
		!strings.Contains(lines[0], "CPU-hours") || !strings.Contains(lines[1], "the run would need about") ||
		!strings.Contains(lines[1], "TiB") {
		t.Errorf("a paper run of d 20000: exit %d, stderr:\n%s", res.code, res.stderr)
	}
}

// TestFindingsPaperPlan: findings --scale paper --plan lists the paper
// runs' commands (train --scale paper, three seeds) and their cost in
// CPU-hours, the cost model's estimate.
func TestFindingsPaperPlan(t *testing.T) {
	res := normtop(t, t.TempDir(), "findings", "--scale", "paper", "--plan", "--out", "f")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	for _, want := range []string{"3 claim(s), 4 run(s)", "paper-wordlm-s1", "paper-wordlm-s3",
		"normtop train --scale paper --data sotu --variants batchnorm:groups=1,pn-v:groups=1,alpha=0.95,layernorm,powernorm --seeds 2",
		"CPU-hours", "days on 2 cores"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("plan does not contain %q:\n%s", want, res.stdout)
		}
	}
}
