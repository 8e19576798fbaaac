# shellcheck shell=bash
# snapshot NAME: the tmux pane with its colours → HTML (aha) → PNG
# (headless Chromium) in $E2E_PNG_DIR; skipped, said so, when a tool is
# missing. Sourced by an e2e script that defines tmx (tmux on its socket),
# SESSION, log and fail (scripts/e2e-tmux.sh and scripts/e2e-python-tmux.sh).
snapshot() {
	local name=$1 chrome
	chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
	if ! command -v aha >/dev/null || [[ -z "$chrome" ]]; then
		log "no PNG of $name: needs aha and chromium (apt-get install aha chromium)"
		return 0
	fi
	mkdir -p "$E2E_PNG_DIR"
	local html="$E2E_PNG_DIR/$name.html"
	tmx capture-pane -e -p -t "$SESSION" | aha --black --title "normtop $name" >"$html" ||
		fail "aha failed on the $name screen"
	# Monospace with box drawing, blocks and braille one column wide each
	# (a font's braille glyphs are not always as wide as its letters).
	sed -i 's|<pre>|<style>.c{display:inline-block;width:1ch;text-align:center}</style><pre style="font-family: DejaVu Sans Mono, monospace; font-size: 14px; line-height: 1.15">|' "$html"
	if command -v perl >/dev/null; then
		perl -CSD -i -pe 's/([\x{2500}-\x{259f}\x{2800}-\x{28ff}\x{2022}\x{2605}])/<span class="c">$1<\/span>/g' "$html"
	fi
	local cols rows
	cols=$(tmx display-message -p -t "$SESSION" '#{pane_width}')
	rows=$(tmx display-message -p -t "$SESSION" '#{pane_height}')
	"$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=$((cols * 9 + 20)),$((rows * 17 + 20)) \
		--screenshot="$E2E_PNG_DIR/$name.png" "file://$html" >/dev/null 2>&1 ||
		fail "chromium could not render $html"
	[[ -s "$E2E_PNG_DIR/$name.png" ]] || fail "no PNG written for $name"
	log "saved $E2E_PNG_DIR/$name.png"
}
