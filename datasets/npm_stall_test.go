package datasets

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHangingRegistry (issue 34, case 9): a registry that accepts the
// request and then sends nothing (before the headers, or in the middle of
// the body) fails after stallTimeout with one line that says so, not
// after fetchTimeout's minutes of silence.
func TestHangingRegistry(t *testing.T) {
	old := stallTimeout
	stallTimeout = 300 * time.Millisecond
	defer func() { stallTimeout = old }()
	tgz := buildTgz(t, tinySOTU(5))
	pkg := tinyPackage(tgz, 5)
	release := make(chan struct{})
	defer close(release)
	for _, c := range []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"no headers", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}},
		{"half a body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100000")
			w.Write(tgz[:min(len(tgz), 100)])
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			f := npmFetcher{registry: srv.URL, cacheDir: func(p *npmPackage) string { return filepath.Join(t.TempDir(), p.base()) },
				client: &http.Client{Timeout: time.Minute}}
			start := time.Now()
			_, err := pkg.load(context.Background(), f)
			if err == nil || !strings.Contains(err.Error(), "sent nothing for 300ms") {
				t.Fatalf("load = %v, want a stall error", err)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("gave up after %v", d)
			}
		})
	}
}
