package report

import (
	"bufio"
	"html"
	"io"
	"strings"
)

// WriteHTML writes the report as one self-contained page: inline CSS and
// inline SVG figures, no script and no URL, readable light or dark
// (prefers-color-scheme) and printable. The output is also well-formed
// XML (every element closed, attributes quoted), so a strict XML parser
// can check it. Order: the run files, the findings (each with its claim,
// its figure, its numbers and the verdict under them), the loss curves per
// model beside the variants table, then the other tables.
func (r *Report) WriteHTML(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n" +
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n" +
		"<meta name=\"color-scheme\" content=\"light dark\"/>\n<title>" + esc(r.pageTitle()) + "</title>\n<style>\n" + pageCSS + "</style>\n</head>\n<body>\n")
	bw.WriteString("<h1>normtop report</h1>\n")
	secs := r.sections()
	r.htmlContents(bw, secs)
	if len(secs) > 0 {
		writeHTMLSection(bw, secs[0], "runs")
	}
	if err := r.htmlFindings(bw); err != nil {
		return err
	}
	for i, s := range secs[1:] {
		writeHTMLSection(bw, s, "s"+itoa(i+1))
		if s.title == "Variants" {
			for _, m := range r.Models() {
				if err := writeHTMLFigure(bw, r.LossFigure(m, r.ModelGroups(m)), "loss-"+m); err != nil {
					return err
				}
			}
		}
	}
	bw.WriteString("</body>\n</html>\n")
	return bw.Flush()
}

// pageTitle names the runs: "normtop report: RUNID, RUNID".
func (r *Report) pageTitle() string {
	ids := make([]string, 0, len(r.Runs))
	for _, run := range r.Runs {
		ids = append(ids, run.Meta.RunID)
	}
	return "normtop report: " + strings.Join(ids, ", ")
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// esc escapes text for HTML (and XML): &, <, >, " and '.
func esc(s string) string { return html.EscapeString(s) }

// htmlContents lists the findings with their verdicts and the sections.
func (r *Report) htmlContents(bw *bufio.Writer, secs []section) {
	bw.WriteString("<nav>\n<ul class=\"toc\">\n")
	for _, f := range r.Findings {
		bw.WriteString("<li><a href=\"#finding-" + esc(f.ID) + "\">(" + esc(f.ID) + ")</a> " + verdictBadge(f.Verdict) + " " + esc(shortClaim(f.Claim)) + "</li>\n")
	}
	bw.WriteString("</ul>\n<ul class=\"toc\">\n<li><a href=\"#runs\">Run files</a></li>\n")
	for i, s := range secs[1:] {
		bw.WriteString("<li><a href=\"#s" + itoa(i+1) + "\">" + esc(s.title) + "</a></li>\n")
	}
	bw.WriteString("</ul>\n</nav>\n")
}

// shortClaim is a claim's text up to its source's colon: "Xu et al. 2019, Table 2".
func shortClaim(c string) string {
	if i := strings.Index(c, ": "); i > 0 {
		return c[:i]
	}
	return c
}

// verdictBadge is a verdict as a coloured label (its class names it).
func verdictBadge(v string) string {
	return "<span class=\"verdict " + verdictClass(v) + "\">" + esc(v) + "</span>"
}

func verdictClass(v string) string {
	switch v {
	case Supported, Holds:
		return "yes"
	case NotSupported, DoesNotHold:
		return "no"
	case WithinNoise:
		return "noise"
	}
	return "na"
}

// htmlFindings writes each finding: claim, figure, numbers, verdict.
func (r *Report) htmlFindings(bw *bufio.Writer) error {
	bw.WriteString("<section id=\"findings\">\n<h2>Findings</h2>\n<p>Each claim as docs/findings.md states it, its figure drawn from these runs, the numbers the rules compute and the verdict.</p>\n")
	for _, f := range r.Findings {
		bw.WriteString("<article class=\"finding\" id=\"finding-" + esc(f.ID) + "\">\n<h3>(" + esc(f.ID) + ") " + esc(f.Claim) + "</h3>\n")
		if f.Model != "" {
			bw.WriteString("<p class=\"judged\">judged on: " + esc(f.Model) + "</p>\n")
		}
		if err := writeHTMLFigure(bw, r.FindingFigure(f), "fig-"+f.ID); err != nil {
			return err
		}
		bw.WriteString("<ul class=\"numbers\">\n")
		open := false
		for i, n := range f.Numbers {
			if rest, ok := strings.CutPrefix(n, "  "); ok { // a sub-claim's number
				if !open {
					bw.WriteString("<ul>\n")
					open = true
				}
				bw.WriteString("<li>" + esc(rest) + "</li>\n")
				continue
			}
			if open {
				bw.WriteString("</ul></li>\n")
				open = false
			}
			// An item stays open: a sub-claim's numbers nest under it.
			bw.WriteString("<li>" + esc(n))
			if i+1 >= len(f.Numbers) || !strings.HasPrefix(f.Numbers[i+1], "  ") {
				bw.WriteString("</li>")
			}
			bw.WriteString("\n")
		}
		if open {
			bw.WriteString("</ul></li>\n")
		}
		bw.WriteString("</ul>\n<p class=\"verdict-line\">verdict: " + verdictBadge(f.Verdict) + " " + esc(f.Reason) + "</p>\n</article>\n")
	}
	bw.WriteString("</section>\n")
	return nil
}

// writeHTMLFigure writes a figure: the inline SVG and its caption, or why
// there is none.
func writeHTMLFigure(bw *bufio.Writer, f *Figure, id string) error {
	bw.WriteString("<figure id=\"" + esc(id) + "\">\n")
	if len(f.Panels) == 0 {
		bw.WriteString("<p class=\"nofig\">No figure: " + esc(f.Empty) + ".</p>\n</figure>\n")
		return nil
	} else {
		svg, err := f.SVG()
		if err != nil {
			return err
		}
		bw.WriteString("<div class=\"svg\">" + svg + "</div>\n")
	}
	bw.WriteString("<figcaption><b>" + esc(f.Title) + ".</b> " + esc(f.Caption) + "</figcaption>\n</figure>\n")
	return nil
}

// writeHTMLSection writes one of the report's sections as a heading, its
// paragraphs and its tables.
func writeHTMLSection(bw *bufio.Writer, s section, id string) {
	bw.WriteString("<section id=\"" + id + "\">\n<h2>" + esc(s.title) + "</h2>\n")
	for _, l := range s.lines {
		bw.WriteString("<p>" + esc(l) + "</p>\n")
	}
	for _, t := range s.tables {
		bw.WriteString("<div class=\"table\"><table>\n")
		if t.caption != "" {
			bw.WriteString("<caption>" + esc(t.caption) + "</caption>\n")
		}
		bw.WriteString("<thead><tr>")
		for i, h := range t.head {
			bw.WriteString("<th" + numClass(t, i) + ">" + esc(h) + "</th>")
		}
		bw.WriteString("</tr></thead>\n<tbody>\n")
		for _, row := range t.rows {
			bw.WriteString("<tr>")
			for i, c := range row {
				bw.WriteString("<td" + numClass(t, i) + ">" + esc(c) + "</td>")
			}
			bw.WriteString("</tr>\n")
		}
		bw.WriteString("</tbody>\n</table></div>\n")
	}
	bw.WriteString("</section>\n")
}

func numClass(t table, i int) string {
	if i < len(t.right) && t.right[i] {
		return " class=\"num\""
	}
	return ""
}

// pageCSS: light by default, dark under prefers-color-scheme; figures sit
// on a white card in both (they are drawn for paper); print drops the
// colours and keeps figures and findings whole on a page.
const pageCSS = `:root { --bg: #ffffff; --fg: #1b1b1b; --muted: #5a5a5a; --rule: #d0d0d0; --card: #ffffff; --zebra: #f5f5f5;
  --yes: #1a7f37; --no: #c62828; --noise: #8a6d00; --na: #5a5a5a; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #15171a; --fg: #e6e6e6; --muted: #a8a8a8; --rule: #3a3d42; --card: #f4f4f4; --zebra: #1d2024;
    --yes: #57c26a; --no: #ff7a70; --noise: #e0c040; --na: #a8a8a8; }
}
html { background: var(--bg); color: var(--fg); }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "Liberation Sans", sans-serif; max-width: 1180px; margin: 0 auto; padding: 1em 1.5em 3em; }
h1 { font-size: 1.6em; margin: 0.3em 0; }
h2 { font-size: 1.3em; border-bottom: 1px solid var(--rule); padding-bottom: 0.2em; margin-top: 1.8em; }
h3 { font-size: 1.05em; }
a { color: inherit; }
p, li { max-width: 80em; }
.toc { columns: 2; padding-left: 1.2em; margin: 0.4em 0; }
.judged, figcaption, .nofig { color: var(--muted); font-size: 0.92em; }
figure { margin: 1em 0; }
.svg { background: var(--card); border: 1px solid var(--rule); border-radius: 4px; padding: 4px; }
.svg svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
.finding { border-left: 3px solid var(--rule); padding-left: 1em; margin: 1.5em 0 2.2em; }
.numbers { font-size: 0.9em; font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; }
.numbers li { margin: 0.15em 0; }
.verdict { font-weight: 600; padding: 0 0.35em; border: 1px solid currentColor; border-radius: 3px; white-space: nowrap; }
.verdict.yes { color: var(--yes); } .verdict.no { color: var(--no); } .verdict.noise { color: var(--noise); } .verdict.na { color: var(--na); }
.verdict-line { font-size: 0.95em; }
.table { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.6em 0; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid var(--rule); text-align: left; white-space: nowrap; }
tbody tr:nth-child(even) { background: var(--zebra); }
.num { text-align: right; font-variant-numeric: tabular-nums; }
@media print {
  :root { --bg: #ffffff; --fg: #000000; --muted: #333333; --rule: #999999; --card: #ffffff; --zebra: #ffffff; }
  body { max-width: none; padding: 0; font-size: 10pt; }
  nav { display: none; }
  figure, .finding h3, tr { break-inside: avoid; }
  .svg { border: none; padding: 0; }
  .table { overflow: visible; }
  th, td { white-space: normal; }
}
`
