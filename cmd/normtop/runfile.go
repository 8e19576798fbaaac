package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// runsDir is where runs are recorded by default, relative to the working
// directory; runsDir/latest links to the newest run recorded there.
const runsDir = "runs"

// defaultRunPath names a new run file runs/<timestamp>-<model>.ntr, adding
// -2, -3, ... when a run started in the same second already took the name.
func defaultRunPath(now time.Time, model string) string {
	base := filepath.Join(runsDir, now.Format("20060102-150405")+"-"+model)
	path := base + ".ntr"
	for i := 2; fileExists(path); i++ {
		path = fmt.Sprintf("%s-%d.ntr", base, i)
	}
	return path
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// linkLatest points runs/latest at path when path lives in runs/. The link is
// made under a temporary name and renamed over the old one, so a reader
// never sees it missing or half made. Errors are returned for a warning only:
// the run goes on without the link.
func linkLatest(path string) error {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	runs, err := filepath.Abs(runsDir)
	if err != nil || dir != runs {
		return err
	}
	// Only a symlink (normtop's own) is replaced: a regular file or a
	// directory named latest is the user's, and stays.
	if fi, err := os.Lstat(filepath.Join(runsDir, "latest")); err == nil && fi.Mode()&os.ModeSymlink == 0 {
		return fmt.Errorf("%s is not a symlink (normtop replaces only its own link); remove or rename it", filepath.Join(runsDir, "latest"))
	}
	tmp := filepath.Join(runsDir, fmt.Sprintf(".latest-%d", os.Getpid()))
	os.Remove(tmp)
	if err := os.Symlink(filepath.Base(path), tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(runsDir, "latest")); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
