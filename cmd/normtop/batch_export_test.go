package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// wordCorpus writes a small word-level text of sentences of 2 to 10 words
// and returns its path.
func wordCorpus(t *testing.T, dir string) string {
	t.Helper()
	words := strings.Fields("the a cat dog sat ran on under mat hill red blue big small quickly slowly")
	var b strings.Builder
	k := 0
	for d := 0; d < 20; d++ {
		for s := 0; s < 12; s++ {
			for i := 0; i < 2+(s*7+d)%9; i++ {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[k%len(words)])
				k += 1 + (i*d)%3
			}
			b.WriteString(". ")
		}
		b.WriteString("\n\n")
	}
	p := filepath.Join(dir, "words.txt")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// batchRows is an export's batch series: step → [rows, width, tokens].
type batchRows map[int][3]int

// TestExportBatchSeries: `normtop export` of a recorded run has every
// step's batch. A token-budget run's batches fill at most the budget, their
// widths vary and their tokens fit them; an image run's are the batch size,
// 1 wide. csv's batch_* rows and jsonl's "batch" key say the same.
func TestExportBatchSeries(t *testing.T) {
	dir := t.TempDir()
	const steps = 8
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, b batchRows)
	}{
		{"token budget", []string{"--model", "transformer", "--data", "words:" + wordCorpus(t, dir), "--max-tokens", "64", "--seq-len", "12",
			"--layers", "1", "--d-model", "16", "--heads", "2", "--vocab", "0"}, func(t *testing.T, b batchRows) {
			widths := map[int]bool{}
			for s, r := range b {
				if r[0] < 1 || r[0]*r[1] > 64 || r[1] > 12 || r[2] < r[0] || r[2] > r[0]*r[1] {
					t.Errorf("step %d: batch %v does not fit a budget of 64 at seq-len 12", s, r)
				}
				widths[r[1]] = true
			}
			if len(widths) < 2 {
				t.Errorf("every batch has one width %v: not length-grouped token budgets", widths)
			}
		}},
		{"images", []string{"--model", "mlp", "--data", "mnist", "--batch", "8"}, func(t *testing.T, b batchRows) {
			for s, r := range b {
				if r != [3]int{8, 1, 8} {
					t.Errorf("step %d: batch %v, want 8 rows 1 wide, 8 tokens", s, r)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".ntr")
			args := append([]string{"train", "--steps", strconv.Itoa(steps), "--eval-every", "4", "--eval-size", "8", "--variants", "layernorm", "--record", run}, tc.args...)
			if res := normtop(t, dir, args...); res.code != 0 {
				t.Fatalf("train: exit %d\n%s", res.code, res.stderr)
			}
			fromCSV, fromJSONL := exportCSVBatches(t, dir, run), exportJSONLBatches(t, dir, run)
			if len(fromCSV) != steps {
				t.Fatalf("csv has the batch of %d steps, want %d: %v", len(fromCSV), steps, fromCSV)
			}
			for s, r := range fromCSV {
				if fromJSONL[s] != r {
					t.Errorf("step %d: csv %v, jsonl %v", s, r, fromJSONL[s])
				}
			}
			tc.check(t, fromCSV)
		})
	}
}

func exportCSVBatches(t *testing.T, dir, run string) batchRows {
	t.Helper()
	res := normtop(t, dir, "export", run, "--format", "csv")
	if res.code != 0 {
		t.Fatalf("export csv: exit %d\n%s", res.code, res.stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(res.stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := batchRows{}
	for _, r := range recs[1:] { // variant,step,epoch,layer,series,value,text
		i := map[string]int{"batch_rows": 0, "batch_width": 1, "batch_tokens": 2}
		k, ok := i[r[4]]
		if !ok {
			continue
		}
		step, err1 := strconv.Atoi(r[1])
		v, err2 := strconv.Atoi(r[5])
		if err1 != nil || err2 != nil {
			t.Fatalf("csv row %v", r)
		}
		x := out[step]
		x[k] = v
		out[step] = x
	}
	return out
}

func exportJSONLBatches(t *testing.T, dir, run string) batchRows {
	t.Helper()
	res := normtop(t, dir, "export", run, "--format", "jsonl")
	if res.code != 0 {
		t.Fatalf("export jsonl: exit %d\n%s", res.code, res.stderr)
	}
	out := batchRows{}
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		var l struct {
			Step  int             `json:"step"`
			Batch *map[string]int `json:"batch"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l.Batch != nil {
			b := *l.Batch
			out[l.Step] = [3]int{b["rows"], b["width"], b["tokens"]}
		}
	}
	return out
}
