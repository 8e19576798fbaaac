package datasets

import (
	"strings"
	"testing"
)

// norm collapses white space so that cases compare text, not layout.
func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestMailText(t *testing.T) {
	for _, c := range []struct{ name, raw, want string }{
		{"headers dropped, subject kept",
			"From someone@example.com  Thu Aug 22 13:17:22 2002\nReturn-Path: <a@b.c>\nSubject: Hello there\nX-Spam: yes\n\nBody text.\n",
			"Hello there Body text."},
		{"folded subject", "Subject: one\n two\nTo: x\n\nbody", "one two body"},
		{"CRLF", "Subject: s\r\nTo: x\r\n\r\nbody\r\n", "s body"},
		{"no body", "Subject: only a subject\n", "only a subject"},
		{"encoded-word subject", "Subject: =?iso-8859-1?q?caf=E9?= and =?utf-8?b?w6l0w6k=?=\n\nx", "café and été x"},
		{"quoted-printable", "Content-Transfer-Encoding: quoted-printable\n\nso=\nft line=2C caf=E9\n", "soft line, café"},
		{"base64", "Content-Transfer-Encoding: base64\n\naGVsbG8g\nd29ybGQ=\n", "hello world"},
		{"broken base64 gives nothing", "Subject: s\nContent-Transfer-Encoding: base64\n\n!!!not base64!!!\n", "s"},
		{"latin-1 body", "\n\ncaf\xe9", "café"},
		{"html", "Content-Type: text/html\n\n<html><head><style>p {color: red}</style><script>var x = 1 < 2;</script></head><body><!-- hidden --><p>Buy&nbsp;now &amp; save</p><br>Cheap<b>pills</b></body></html>",
			"Buy now & save Cheap pills"},
		{"html unclosed tag", "Content-Type: text/html\n\nword <a href='x", "word"},
		{"alternative prefers plain",
			"Content-Type: multipart/alternative; boundary=\"XX\"\n\n--XX\nContent-Type: text/plain\n\nplain words\n--XX\nContent-Type: text/html\n\n<p>html words</p>\n--XX--\n",
			"plain words"},
		{"alternative falls back to html",
			"Content-Type: multipart/alternative; boundary=XX\n\n--XX\nContent-Type: text/plain\n\n \n--XX\nContent-Type: text/html\n\n<p>html words</p>\n--XX--\n",
			"html words"},
		{"mixed skips attachments",
			"Subject: s\nContent-Type: multipart/mixed; boundary=B\n\npreamble\n--B\nContent-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\nfirst=20part\n--B\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\nAAECAw==\n--B\nContent-Type: text/plain\n\nsecond part\n--B--\n",
			"s first part second part"},
		{"nested message",
			"Content-Type: message/rfc822\n\nSubject: inner\nFrom: x\n\ninner body\n",
			"inner inner body"},
		{"missing boundary reads as text", "Content-Type: multipart/mixed; boundary=NOPE\n\njust text here\n", "just text here"},
		{"bad content type is plain", "Content-Type: ;;;\n\nplain", "plain"},
		{"undeclared html", "Subject: s\n\n<HTML><BODY bgColor=#C0C0C0><FONT size=4>Thank you</FONT><BR>\nfor&nbsp;it</BODY></HTML>", "s Thank you for it"},
		{"a lone tag is not html", "\n\nuse <b> for bold", "use <b> for bold"},
		{"image only", "Subject: pic\nContent-Type: image/gif\n\nGIF89a", "pic"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := norm(mailText(c.raw)); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestHTMLText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a<b>c</b>d", "a c d"},
		{"<SCRIPT>x</SCRIPT>y", "y"},
		{"<Style type=x>p{}</STYLE >z", "z"},
		{"<!-- a -- b -->c", "c"},
		{"<!-- never closed", ""},
		{"&lt;tag&gt; &#65;", "<tag> A"},
		{"x<script>never closed", "x"},
		{"İ<b>ok</b>", "İ ok"},
	} {
		if got := norm(htmlText(c.in)); got != c.want {
			t.Errorf("htmlText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
