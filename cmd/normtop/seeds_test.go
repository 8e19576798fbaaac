package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSeeds(t *testing.T) {
	cases := []struct {
		in      string
		want    []int64
		wantErr string
	}{
		{"1,2,3", []int64{1, 2, 3}, ""},
		{" 7 , -2 ", []int64{7, -2}, ""},
		{"5", []int64{5}, ""},
		{"", nil, "empty"},
		{"1,,2", nil, `"" is not an integer`},
		{"1,x", nil, `"x" is not an integer`},
		{"1,2,1", nil, "seed 1 given twice"},
		{"99999999999999999999", nil, "not an integer"},
	}
	for _, c := range cases {
		got, err := parseSeeds(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("parseSeeds(%q) error = %v, want one containing %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseSeeds(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestTrainSeedsFlag(t *testing.T) {
	o, _, err := parseTrain([]string{"--seeds", "1,2,3"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o.cfg.Seeds, []int64{1, 2, 3}) {
		t.Errorf("Seeds = %v", o.cfg.Seeds)
	}
	o, _, err = parseTrain([]string{"--seeds", "4"})
	if err != nil || o.cfg.Seed != 4 || o.cfg.Seeds != nil {
		t.Errorf("--seeds 4: seed %d seeds %v err %v", o.cfg.Seed, o.cfg.Seeds, err)
	}
	if _, _, err := parseTrain([]string{"--seed", "2", "--seeds", "1,3"}); err == nil {
		t.Error("--seed with --seeds accepted")
	}
	if _, _, err := parseTrain([]string{"--seeds", "1,1"}); err == nil {
		t.Error("repeated seed accepted")
	}
}
