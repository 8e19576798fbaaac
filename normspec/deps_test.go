package normspec

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// The consumers of a run read Frames and variant specs only; gorgonia (about
// a dozen packages and a cgo-free but large link) belongs to the trainer.
// This test fails when an import drags it back in, e.g. through package norm.
func TestConsumersLinkNoGorgonia(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	consumers := []string{"normspec", "probes", "record", "headless", "tui", "report", "findings"}
	for _, c := range consumers {
		t.Run(c, func(t *testing.T) {
			pkg := "github.com/normtop/normtop/" + c
			deps := listDeps(t, pkg)
			if len(deps) == 0 {
				t.Fatalf("go list found no dependencies of %s", pkg)
			}
			for _, d := range deps {
				if strings.HasPrefix(d, "gorgonia.org/") || d == "github.com/normtop/normtop/norm" {
					t.Errorf("%s depends on %s", pkg, d)
				}
			}
		})
	}
}

// listDeps returns the import paths `go list -deps -json` reports for pkg.
func listDeps(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath", pkg)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list %s: %v\n%s", pkg, err, ee.Stderr)
		}
		t.Skipf("go list unavailable: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var paths []string
	for {
		var p struct{ ImportPath string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		paths = append(paths, p.ImportPath)
	}
	return paths
}
