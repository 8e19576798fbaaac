package datasets

import (
	"strings"
	"testing"
)

// sents renders Tokenize's output as sentences of space-joined tokens
// separated by " | ".
func sents(text string) string {
	var out []string
	for _, s := range Tokenize(text) {
		out = append(out, strings.Join(s, " "))
	}
	return strings.Join(out, " | ")
}

func TestTokenize(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"words and punctuation", "Hello, World!", "hello , world !"},
		{"lowercase unicode", "ÉTÉ À Paris.", "été à paris ."},
		{"apostrophes inside words", "Don't stop the nation's work.", "don't stop the nation's work ."},
		{"curly apostrophe normalised", "It’s here.", "it's here ."},
		{"leading and trailing quotes", "'Tis the 'end'.", "' tis the ' end ' ."},
		{"decimal number", "Growth was 3.5 percent.", "growth was 3.5 percent ."},
		{"thousands", "It cost $1,000,000.", "it cost $ 1,000,000 ."},
		{"number ends sentence", "I counted 12. Then I stopped.", "i counted 12 . | then i stopped ."},
		{"title abbreviation", "Mr. Smith met Dr. Jones.", "mr. smith met dr. jones ."},
		{"initials", "J. Q. Adams spoke.", "j. q. adams spoke ."},
		{"dotted initialism", "The U.S. Army left at 5 a.m. sharp.", "the u.s. army left at 5 a.m. sharp ."},
		{"pronoun I ends a sentence", "So said I. Then we left.", "so said i . | then we left ."},
		{"two sentences", "It rained. We stayed.", "it rained . | we stayed ."},
		{"question and exclamation", "Why? Because! Fine.", "why ? | because ! | fine ."},
		{"terminator run", "What?! No.", "what ? ! | no ."},
		{"closing quote stays", `He said "stop." Then left.`, `he said " stop . " | then left .`},
		{"closing bracket stays", "(It ended.) Next.", "( it ended . ) | next ."},
		{"opening quote starts next", `Done. "Next," he said.`, `done . | " next , " he said .`},
		{"ellipsis does not end", "Well... maybe. Yes.", "well ... maybe . | yes ."},
		{"unicode ellipsis", "Well… maybe.", "well ... maybe ."},
		{"dashes", "Some years ago—never mind—I sailed.", "some years ago — never mind — i sailed ."},
		{"hyphen separate", "Fellow-Citizens", "fellow - citizens"},
		{"blank line ends sentence", "CHAPTER 1\n\nCall me Ishmael.", "chapter 1 | call me ishmael ."},
		{"blank line with spaces", "a heading\n  \t\nbody text", "a heading | body text"},
		{"single newline does not", "one line\nand the next.", "one line and the next ."},
		{"no terminator at end", "trailing words", "trailing words"},
		{"empty", "", ""},
		{"only spaces", " \n\n\t ", ""},
		{"controls separate", "a\x00b\u200bc", "a b c"},
		{"replacement char separates", "a\ufffdb", "a b"},
		{"digits and letters", "4th of July, 1776.", "4th of july , 1776 ."},
		{"combining mark in word", "cafe\u0301 ok", "cafe\u0301 ok"},
		{"apostrophe at end", "the boys' toys.", "the boys ' toys ."},
		{"number comma not between digits", "1, 2, 3.", "1 , 2 , 3 ."},
		{"cjk letters", "東京は大きい。", "東京は大きい 。"},
		{"lower-case word continues", `"Stop!" he said. Then he left.`, `" stop ! " he said . | then he left .`},
		{"lower-cased text still splits", "the cat sat. the dog ran! a bird?", "the cat sat . | the dog ran ! | a bird ?"},
		{"closing bracket then lower case", "(It ended.) and so on.", "( it ended . ) and so on ."},
		{"closer then capital splits", `"Stop!" He left.`, `" stop ! " | he left .`},
		{"closer then digit splits", `"Stop." 5 left.`, `" stop . " | 5 left .`},
		{"lower case after a blank line still splits", "the end.\n\nand more.", "the end . | and more ."},
		{"capital I initial", "I. Newton wrote it.", "i . | newton wrote it ."},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := sents(c.in); got != c.want {
				t.Errorf("Tokenize(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

func TestTokenizeNeverEmpty(t *testing.T) {
	for _, in := range []string{". . .", "!!! ??? ...", "\n\n\n.\n\n", `"."`, "a. b. c."} {
		for i, s := range Tokenize(in) {
			if len(s) == 0 {
				t.Errorf("Tokenize(%q): sentence %d is empty", in, i)
			}
			for _, tok := range s {
				if tok == "" || strings.ContainsAny(tok, " \t\n") {
					t.Errorf("Tokenize(%q): bad token %q", in, tok)
				}
			}
		}
	}
}
