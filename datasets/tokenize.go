package datasets

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// titleAbbrevs are the words whose trailing period belongs to the word and
// never ends a sentence ("Mr. Lincoln", "St. Louis", "No. 5"). The list is
// short on purpose: a missing entry splits one sentence in two, a wrong one
// merges two, and both are rare at corpus scale. Single letters ("J. Q.
// Adams") and dotted initialisms ("U.S.", "a.m.") are handled by shape.
var titleAbbrevs = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "messrs": true, "dr": true, "st": true,
	"gen": true, "col": true, "maj": true, "capt": true, "lt": true, "sgt": true,
	"adm": true, "gov": true, "sen": true, "rep": true, "rev": true, "hon": true,
	"prof": true, "pres": true, "jr": true, "sr": true, "mt": true, "ft": true,
	"vs": true, "co": true, "corp": true, "inc": true, "ltd": true, "bros": true,
	"dept": true, "esq": true, "viz": true, "cf": true, "vol": true, "nos": true,
	"jan": true, "feb": true, "aug": true, "sept": true, "oct": true, "nov": true, "dec": true,
}

// Sentence terminators and the closers that may follow one inside the same
// sentence (`."`, `?)`).
func isTerminator(tok string) bool { return tok == "." || tok == "!" || tok == "?" }

func isCloser(tok string) bool {
	switch tok {
	case `"`, "'", "”", "’", ")", "]", "}", "»":
		return true
	}
	return false
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

// Tokenize lowercases text and splits it into sentences of word and
// punctuation tokens:
//
//   - a word is a run of Unicode letters, digits and combining marks; an
//     apostrophe (' or ’, stored as ') between two word characters stays
//     inside it ("don't", "nation's"), and so does a '.' or ',' between two
//     digits ("3.5", "1,000");
//   - a title or abbreviation from a short list ("mr.", "st.", "no.") keeps
//     its period, as do single letters and dotted initialisms ("j.", "u.s.",
//     "a.m."); such a period never ends a sentence;
//   - two or more periods (or '…') are one token "..." that does not end a
//     sentence;
//   - every other punctuation or symbol character is a token of its own;
//     other characters (spaces, controls) separate tokens;
//   - a sentence ends after '.', '!' or '?' together with any further
//     terminators and closing quotes or brackets written right after it, at a
//     blank line (two line breaks with only spaces between), and at the end
//     of the text.
//
// The returned tokens are substrings of the lowercased text, except words
// holding ’, which are rewritten with '.
func Tokenize(text string) [][]string {
	var t tokenizer
	t.run(strings.ToLower(text))
	return t.sents
}

type tokenizer struct {
	sents    [][]string
	cur      []string
	pending  bool // the current sentence has seen its terminator
	adjacent bool // no separator since the last token
}

func (t *tokenizer) endSentence() {
	if len(t.cur) > 0 {
		t.sents = append(t.sents, t.cur)
		t.cur = nil
	}
	t.pending = false
}

func (t *tokenizer) emit(tok string, terminator bool) {
	if t.pending && !(t.adjacent && (isTerminator(tok) || isCloser(tok))) {
		t.endSentence()
	}
	t.cur = append(t.cur, tok)
	if terminator {
		t.pending = true
	}
	t.adjacent = true
}

func (t *tokenizer) run(s string) {
	newlines := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			newlines++
			if newlines >= 2 {
				t.endSentence()
			}
			t.adjacent = false
			i += size
			continue
		case unicode.IsSpace(r):
			t.adjacent = false
			i += size
			continue
		}
		newlines = 0
		switch {
		case isWordRune(r):
			// An abbreviation's period is part of the word and ends nothing.
			tok, n := scanWord(s[i:])
			t.emit(tok, false)
			i += n
		case r == '.' || r == '…':
			j := i + size
			for j < len(s) && (s[j] == '.' || strings.HasPrefix(s[j:], "…")) {
				if s[j] == '.' {
					j++
				} else {
					j += len("…")
				}
			}
			if r == '.' && j == i+1 {
				t.emit(".", true)
			} else {
				t.emit("...", false)
			}
			i = j
		case r != utf8.RuneError && (unicode.IsPunct(r) || unicode.IsSymbol(r)):
			tok := s[i : i+size]
			t.emit(tok, r == '!' || r == '?')
			i += size
		default:
			// Controls, format characters, U+FFFD and the like separate tokens.
			t.adjacent = false
			i += size
		}
	}
	t.endSentence()
}

// scanWord reads the word at the start of s (which begins with a word
// rune) and returns it with the bytes consumed, a trailing abbreviation
// period included.
func scanWord(s string) (tok string, n int) {
	curly := false
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if isWordRune(r) {
			n += size
			continue
		}
		if n > 0 && n+size < len(s) {
			next, _ := utf8.DecodeRuneInString(s[n+size:])
			prev, _ := utf8.DecodeLastRuneInString(s[:n])
			if isApostrophe(r) && isWordRune(next) {
				curly = curly || r == '’'
				n += size
				continue
			}
			if (r == '.' || r == ',') && unicode.IsDigit(prev) && unicode.IsDigit(next) {
				n += size
				continue
			}
		}
		break
	}
	tok = s[:n]
	if n < len(s) && s[n] == '.' {
		if m := initialism(s); m > 0 {
			return s[:m], m
		}
		if titleAbbrevs[tok] {
			tok, n = s[:n+1], n+1
		}
	}
	if curly {
		tok = strings.ReplaceAll(tok, "’", "'")
	}
	return tok, n
}

// initialism returns the length of a run of single letters each followed by
// a period at the start of s ("j.", "u.s.", "a.m."), or 0. A lone "i." is
// the pronoun ending a sentence far more often than an initial.
func initialism(s string) int {
	n := 0
	for {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !unicode.IsLetter(r) || n+size >= len(s) || s[n+size] != '.' {
			break
		}
		// The letter must stand alone: nothing word-like right after its period.
		n += size + 1
		if n < len(s) {
			next, _ := utf8.DecodeRuneInString(s[n:])
			if unicode.IsDigit(next) {
				return 0
			}
		}
	}
	if n == 2 && s[0] == 'i' {
		return 0
	}
	return n
}
