package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	toolchain := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	settings := func(kv ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{}
		for i := 0; i+1 < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "normtop " + Version + " (" + toolchain + ")"},
		{"no VCS stamp (go run, tests)", settings("-compiler", "gc"), "normtop " + Version + " (" + toolchain + ")"},
		{"clean commit", settings("vcs", "git", "vcs.revision", rev, "vcs.modified", "false"),
			"normtop " + Version + " (0123456789ab; " + toolchain + ")"},
		{"uncommitted changes", settings("vcs.revision", rev, "vcs.modified", "true"),
			"normtop " + Version + " (0123456789ab, modified; " + toolchain + ")"},
		{"short revision kept whole", settings("vcs.revision", "abc1234"),
			"normtop " + Version + " (abc1234; " + toolchain + ")"},
		{"modified without a revision says nothing of either", settings("vcs.modified", "true"),
			"normtop " + Version + " (" + toolchain + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionLine(tc.bi); got != tc.want {
				t.Errorf("versionLine = %q, want %q", got, tc.want)
			}
		})
	}
}

// The constant is a semantic version that CHANGELOG.md names, so a release
// cannot print one number and document another.
func TestVersionIsInChangelog(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?$`).MatchString(Version) {
		t.Fatalf("Version %q is not a semantic version", Version)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	release := strings.TrimSuffix(Version, "-dev")
	if !strings.Contains(string(b), release) {
		t.Errorf("CHANGELOG.md has no entry for %s", release)
	}
}

// `normtop version` and `normtop --version` print the same one line; a
// stray argument is a usage error.
func TestVersionCommand(t *testing.T) {
	want := versionLine(buildInfo()) + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		st, out := versionStreams(t)
		if err := run(args, st); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if got := out(); got != want {
			t.Errorf("%q printed %q, want %q", args, got, want)
		}
	}
	st, _ := versionStreams(t)
	err := run([]string{"version", "extra"}, st)
	if err == nil || exitCode(err) != 2 || !strings.Contains(errorLine(err), `"extra"`) {
		t.Errorf("version extra: %v (exit %d), want a usage error naming the argument", err, exitCode(err))
	}
}

func versionStreams(t *testing.T) (streams, func() string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return streams{in: os.Stdin, out: &outStream{File: f}, err: os.Stderr}, func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}
