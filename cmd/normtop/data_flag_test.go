package main

import "testing"

// TestDataFlag: --data and --model choose the preset the other flags start
// from (its step count tells which) and the source datasets resolves.
// datasets.TestParseSource covers every kind of value; this checks the
// wiring.
func TestDataFlag(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		data, dataPath string
		steps          int
	}{
		{nil, "sotu", "", 4500},
		{[]string{"--data", "text"}, "text", "", 1500},
		{[]string{"--data", "words:corpus.txt"}, "words", "corpus.txt", 4500},
		{[]string{"--data", "book.txt"}, "text", "book.txt", 1500},
		// A package's .tgz is words, on the character preset the path picks.
		{[]string{"--data", "pkg.tgz"}, "words", "pkg.tgz", 1500},
		{[]string{"--model", "lstm"}, "sotu", "", 1200},
		{[]string{"--model", "lstm", "--data", "book.txt"}, "text", "book.txt", 1000},
		{[]string{"--model", "lstm", "--data", "words:corpus.txt"}, "words", "corpus.txt", 1200},
		{[]string{"--model", "classifier", "--data", "mail"}, "docs", "mail", 0},
		{[]string{"--model", "mlp", "--data", "fashion"}, "mnist", "fashion", 0},
		{[]string{"--model", "cnn"}, "mnist", "", 0},
	} {
		o, _, err := parseTrain(tc.args)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if c := o.cfg; c.Data != tc.data || c.DataPath != tc.dataPath || c.Steps != tc.steps {
			t.Errorf("%q: data %q, path %q, steps %d; want %q, %q, %d", tc.args, c.Data, c.DataPath, c.Steps, tc.data, tc.dataPath, tc.steps)
		}
	}
}
