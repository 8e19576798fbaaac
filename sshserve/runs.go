package sshserve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/normtop/normtop/record"
)

// A served folder is DIR and nothing else: a session names files by their
// bare name in DIR, and only regular files directly in it are opened. A
// symbolic link is never followed (runs/latest names a file listed
// already; a link to /etc/passwd is simply not listed), and a name with a
// separator or "..", which the listing never produces, is refused if it is
// asked for anyway.

// rankStream matches the stream of a distributed run's rank k > 0
// (run.rank1.jsonl): rank 0's stream merges it, so it is not a row of its
// own.
var rankStream = regexp.MustCompile(`\.rank[0-9]+\.jsonl$`)

// servable reports whether a directory entry's name is a run file or a
// stream the workspace lists.
func servable(name string) bool {
	return strings.HasSuffix(name, ".ntr") || strings.HasSuffix(name, ".jsonl") && !rankStream.MatchString(name)
}

// ListRuns returns the names (not paths) of the run files and streams
// directly in dir that are regular files, in name order (run ids start
// with their start time).
func ListRuns(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.Type().IsRegular() || !servable(e.Name()) {
			continue
		}
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out, nil
}

// errOutside is the answer to a name that would leave the folder.
var errOutside = errors.New("not a file directly in the served folder: refused")

// contained returns the path of name inside dir after checking that it is a
// bare name of a regular file (a symbolic link is refused, not followed).
func contained(dir, name string) (string, error) {
	if !filepath.IsLocal(name) || strings.ContainsRune(name, filepath.Separator) || strings.ContainsRune(name, '/') {
		return "", fmt.Errorf("%q: %w", name, errOutside)
	}
	p := filepath.Join(dir, name)
	st, err := os.Lstat(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if st.Mode()&os.ModeSymlink != 0 {
		return "", fmt.Errorf("%s is a symbolic link: not followed by normtop serve", name)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", name)
	}
	return p, nil
}

// checkRankStreams looks at a stream's header for the other ranks' streams
// it names (docs/formats.md "Several ranks"): record opens them beside the
// stream, following links, so each must be a bare name of a regular file
// in dir, or not exist yet. record itself refuses absolute and ".." names;
// this also refuses sub-directories and links, which could leave dir.
//
// What it cannot see is a rank's file created later as a link, between
// this check and record opening it; that needs write access to dir, which
// a session never has.
func checkRankStreams(dir, path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	var h struct {
		Streams []string `json:"streams"`
	}
	// The header is the first JSON value, at most a record long (record's
	// own limit, so every header record accepts is read here too).
	if json.NewDecoder(io.LimitReader(f, record.MaxRecordSize+1)).Decode(&h) != nil {
		return nil // not a header record accepts either: its error says why
	}
	for _, s := range h.Streams {
		if !filepath.IsLocal(s) || strings.ContainsRune(s, '/') || strings.ContainsRune(s, filepath.Separator) {
			return fmt.Errorf("%s: its header names the rank stream %q, which is not a file directly in the served folder: refused", name, s)
		}
		st, err := os.Lstat(filepath.Join(dir, s))
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return fmt.Errorf("%s: rank stream %s: %w", name, s, err)
		case st.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("%s: its rank stream %s is a symbolic link: not followed by normtop serve", name, s)
		case !st.Mode().IsRegular():
			return fmt.Errorf("%s: its rank stream %s is not a regular file", name, s)
		}
	}
	return nil
}
