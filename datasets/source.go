package datasets

import "strings"

// Reader is the kind of data a model reads. It decides what a path given as
// the data means: an IDX directory, a text file, a directory of labelled
// documents.
type Reader int

const (
	// ImageReader: an IDX directory of MNIST's file names (mlp, cnn, resnet).
	ImageReader Reader = iota
	// TokenReader: a language model; a path is a UTF-8 text file read as
	// characters, or an npm data package's .tgz read as words.
	TokenReader
	// DocumentReader: a classifier; a path is a directory of class
	// subdirectories, or a package's .tgz or unpacked directory.
	DocumentReader
)

// wordsPrefix marks a user's word corpus: words:FILE.
const wordsPrefix = "words:"

// Source is the data set a --data value names: Set says which loader reads
// it, Path is the user's file or directory ("" for a built-in set, and for
// the default file or directory of mnist and text).
type Source struct {
	// Set is "mnist" (IDX images), "text" (characters), a built-in word
	// set ("sotu", "moby-dick", "spam"), "words" (the user's corpus) or
	// "docs" (the user's labelled documents).
	Set  string
	Path string
}

// ParseSource resolves a --data value for a model that reads r: a set's name
// (mnist, text, sotu, moby-dick, spam, words, docs) names that set; words:FILE
// is the user's word corpus; anything else is a path, read as r reads paths.
// Names win over files: a file called sotu is ./sotu.
func ParseSource(data string, r Reader) Source {
	switch {
	case data == "mnist" || data == "text" || IsWordSet(data):
		return Source{Set: data}
	case strings.HasPrefix(data, wordsPrefix):
		return Source{Set: "words", Path: strings.TrimPrefix(data, wordsPrefix)}
	}
	s := Source{Path: data}
	switch r {
	case TokenReader:
		s.Set = "text"
		if strings.HasSuffix(data, ".tgz") {
			s.Set = "words" // an npm data package: a word corpus, not characters
		}
	case DocumentReader:
		s.Set = "docs"
	default:
		s.Set = "mnist"
	}
	return s
}

// IsWordSet reports whether name is a word-level set: a built-in package
// (sentence batches for the transformer, labelled documents for the
// classifier), or "words" and "docs", the user's corpus and documents.
func IsWordSet(name string) bool {
	return packageByName(name) != nil || name == "words" || name == "docs"
}

// WordSet is the word-level set a --data value names by its name alone: the
// value itself when it is one (IsWordSet), "words" for words:FILE, else ""
// (images, characters, or a path whose meaning the model decides).
func WordSet(data string) string {
	switch {
	case IsWordSet(data):
		return data
	case strings.HasPrefix(data, wordsPrefix):
		return "words"
	}
	return ""
}
