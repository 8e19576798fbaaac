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
//     terminators and closing quotes or brackets written right after it,
//     unless such a closer is followed by a word that starts with a
//     lower-case letter (`"Stop!" he said`); at a blank line (two line
//     breaks with only spaces between); and at the end of the text.
//
// Words holding ’ are rewritten with '.
func Tokenize(text string) [][]string {
	var t tokenizer
	t.run(text)
	return t.sents
}

type tokenizer struct {
	sents    [][]string
	cur      []string
	pending  bool // the current sentence has seen its terminator
	closed   bool // and a closing quote or bracket after it
	adjacent bool // no separator since the last token
}

func (t *tokenizer) endSentence() {
	if len(t.cur) > 0 {
		t.sents = append(t.sents, t.cur)
		t.cur = nil
	}
	t.pending, t.closed = false, false
}

// emit adds a token. After a terminator the sentence goes on with further
// terminators and closers written right after it and, once a closer came,
// with a word that starts with a lower-case letter (`"Stop!" he said`).
// Without a closer a terminator ends the sentence whatever follows, so that
// lower-cased text ("the cat sat. the dog ran.") still splits.
func (t *tokenizer) emit(tok string, terminator, lowerWord bool) {
	if t.pending {
		switch {
		case t.adjacent && (isTerminator(tok) || isCloser(tok)):
			t.closed = t.closed || isCloser(tok)
			terminator = false // still the same sentence end
		case lowerWord && t.closed:
			t.pending, t.closed = false, false
		default:
			t.endSentence()
		}
	}
	t.cur = append(t.cur, tok)
	if terminator {
		t.pending, t.closed = true, false
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
			t.emit(tok, false, unicode.IsLower(r))
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
				t.emit(".", true, false)
			} else {
				t.emit("...", false, false)
			}
			i = j
		case r != utf8.RuneError && (unicode.IsPunct(r) || unicode.IsSymbol(r)):
			tok := s[i : i+size]
			t.emit(tok, r == '!' || r == '?', false)
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
// rune) lowercased, with the bytes consumed, a trailing abbreviation period
// included.
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
	tok = strings.ToLower(s[:n]) // no allocation when already lower case
	if n < len(s) && s[n] == '.' {
		if m := initialism(s); m > 0 {
			return strings.ToLower(s[:m]), m
		}
		if titleAbbrevs[tok] {
			tok, n = tok+".", n+1
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
	if n == 2 && (s[0] == 'i' || s[0] == 'I') {
		return 0
	}
	return n
}
