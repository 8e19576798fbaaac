package datasets

import (
	"encoding/base64"
	"html"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"strings"
	"unicode/utf8"
)

// Bounds on one message: how deep MIME parts nest, and how much of a part is
// read (spam carries megabyte attachments that hold no words).
const (
	maxMIMEDepth = 4
	maxPartBytes = 1 << 20
)

// mailText turns a raw RFC 822 message into the text a classifier reads:
// the Subject header (MIME encoded words decoded), a blank line, and the
// body's text. Every other header is dropped. The body is decoded from
// quoted-printable or base64; multipart messages contribute their text
// parts (of a multipart/alternative, the text/plain one when it has words,
// else the HTML one), nested messages are read the same way, and
// attachments of other types are skipped. HTML (declared, or text holding
// an <html> or <body> tag) loses its tags, scripts, styles and comments, and
// its entities are decoded. Bytes that are not
// UTF-8 are read as Latin-1, the charset most of this corpus's 8-bit mail
// uses. Malformed structure never fails: what cannot be parsed as MIME is
// read as plain text.
func mailText(raw string) string {
	h, body := splitMail(raw)
	subject := decodeSubject(h["subject"])
	return subject + "\n\n" + partText(h, body, 0)
}

// mailHeader maps lower-case header names to their unfolded values (the
// first occurrence of each).
type mailHeader map[string]string

// splitMail separates the header block from the body at the first empty
// line. Continuation lines (starting with a space or tab) are unfolded;
// lines that are not "Name: value" (such as mbox's "From " line) are
// ignored.
func splitMail(raw string) (mailHeader, string) {
	h := make(mailHeader)
	last := ""
	rest := raw
	for rest != "" {
		line, after, found := strings.Cut(rest, "\n")
		if !found {
			after = ""
		}
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			return h, after
		}
		rest = after
		if line[0] == ' ' || line[0] == '\t' {
			if last != "" {
				h[last] += " " + strings.TrimSpace(line)
			}
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			last = ""
			continue
		}
		name = strings.ToLower(name)
		if _, seen := h[name]; seen {
			last = ""
			continue
		}
		h[name] = strings.TrimSpace(value)
		last = name
	}
	return h, ""
}

var wordDecoder = &mime.WordDecoder{CharsetReader: charsetReader}

// charsetReader decodes the charsets mime does not know natively as
// Latin-1, which is right for ISO-8859-1 and close for its relatives.
func charsetReader(_ string, input io.Reader) (io.Reader, error) {
	b, err := io.ReadAll(io.LimitReader(input, maxPartBytes))
	if err != nil {
		return nil, err
	}
	return strings.NewReader(latin1ToUTF8(b)), nil
}

func decodeSubject(s string) string {
	if d, err := wordDecoder.DecodeHeader(s); err == nil {
		s = d
	}
	return toUTF8([]byte(s))
}

// partText returns the text of one MIME entity with header h.
func partText(h mailHeader, body string, depth int) string {
	media, params, err := mime.ParseMediaType(h["content-type"])
	if err != nil || media == "" {
		media = "text/plain"
	}
	if len(body) > maxPartBytes {
		body = body[:maxPartBytes]
	}
	switch {
	case strings.HasPrefix(media, "multipart/") && params["boundary"] != "" && depth < maxMIMEDepth:
		if t, ok := multipartText(body, params["boundary"], media == "multipart/alternative", depth); ok {
			return t
		}
		return plainText(body) // not MIME after all: read what is there
	case media == "message/rfc822" && depth < maxMIMEDepth:
		inner, innerBody := splitMail(decodeTransfer(h, body))
		return decodeSubject(inner["subject"]) + "\n\n" + partText(inner, innerBody, depth+1)
	case media == "text/html":
		return htmlText(toUTF8([]byte(decodeTransfer(h, body))))
	case strings.HasPrefix(media, "text/"):
		t := decodeTransfer(h, body)
		if looksLikeHTML(t) {
			return htmlText(toUTF8([]byte(t)))
		}
		return plainText(t)
	}
	return "" // images, applications and the like
}

func plainText(s string) string { return toUTF8([]byte(s)) }

// looksLikeHTML catches HTML sent without its content type, common in
// spam: an <html> or <body> tag anywhere.
func looksLikeHTML(s string) bool {
	return indexFold(s, "<html") >= 0 || indexFold(s, "<body") >= 0
}

// multipartText joins the texts of the parts; ok is false when not a single
// part could be read.
func multipartText(body, boundary string, alternative bool, depth int) (string, bool) {
	mr := multipart.NewReader(strings.NewReader(body), boundary)
	var texts []string
	var plain, htmlPart string
	parts := 0
	for {
		p, err := mr.NextRawPart()
		if err != nil {
			break
		}
		b, err := io.ReadAll(io.LimitReader(p, maxPartBytes))
		if err != nil && len(b) == 0 {
			break
		}
		parts++
		h := make(mailHeader)
		for k, v := range p.Header {
			if len(v) > 0 {
				h[strings.ToLower(k)] = v[0]
			}
		}
		t := partText(h, string(b), depth+1)
		if alternative {
			if strings.TrimSpace(t) == "" {
				continue
			}
			media, _, _ := mime.ParseMediaType(h["content-type"])
			switch {
			case media == "" || media == "text/plain":
				if plain == "" {
					plain = t
				}
			case htmlPart == "":
				htmlPart = t
			}
			continue
		}
		texts = append(texts, t)
	}
	if alternative {
		if plain != "" {
			return plain, parts > 0
		}
		return htmlPart, parts > 0
	}
	return strings.Join(texts, "\n\n"), parts > 0
}

// decodeTransfer undoes the Content-Transfer-Encoding. A broken encoding
// keeps what decoded before the error (quoted-printable) or gives nothing
// (base64: the rest would be noise).
func decodeTransfer(h mailHeader, body string) string {
	switch strings.ToLower(strings.TrimSpace(h["content-transfer-encoding"])) {
	case "quoted-printable":
		b, _ := io.ReadAll(quotedprintable.NewReader(strings.NewReader(body)))
		return string(b)
	case "base64":
		clean := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, body)
		b, err := base64.StdEncoding.DecodeString(clean)
		if err != nil {
			b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(clean, "="))
		}
		if err != nil {
			return ""
		}
		return string(b)
	}
	return body
}

// toUTF8 returns b as text: unchanged when it is UTF-8, else as Latin-1.
func toUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return latin1ToUTF8(b)
}

func latin1ToUTF8(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/8)
	for _, c := range b {
		sb.WriteRune(rune(c))
	}
	return sb.String()
}

// htmlText strips markup: comments, script and style elements, tags; then
// decodes entities. Tags become spaces so that words on either side stay
// apart.
func htmlText(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			sb.WriteString(s[i:])
			break
		}
		sb.WriteString(s[i : i+lt])
		sb.WriteByte(' ')
		i += lt
		end := ">"
		switch {
		case strings.HasPrefix(s[i:], "<!--"):
			end = "-->"
		case hasPrefixFold(s[i:], "<script"):
			end = "</script"
		case hasPrefixFold(s[i:], "<style"):
			end = "</style"
		}
		j := indexFold(s[i+1:], end)
		if j < 0 {
			break
		}
		i += 1 + j + len(end)
		if end != ">" && end != "-->" {
			// Skip the rest of the closing tag.
			if gt := strings.IndexByte(s[i:], '>'); gt >= 0 {
				i += gt + 1
			} else {
				i = len(s)
			}
		}
	}
	return html.UnescapeString(sb.String())
}

// hasPrefixFold is strings.HasPrefix ignoring ASCII case; prefix is ASCII.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// indexFold is strings.Index ignoring ASCII case; sub is ASCII and starts
// with a non-letter, which is searched for as is.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := strings.IndexByte(s[i:], sub[0])
		if j < 0 {
			return -1
		}
		i += j
		if hasPrefixFold(s[i:], sub) {
			return i
		}
	}
	return -1
}
