#!/usr/bin/env bash
# Tests of the Python package (python/: normtop's probes as a PyTorch hook).
#
# Uses Debian's python3-torch and python3-pytest (installed with apt-get when
# missing and this runs as root). When torch cannot be had, it prints one
# "skipped: ..." line and exits 0, so CI on a machine without it still passes
# the Go checks. The cross-check tests build Go programs of this repository
# (python/tests/gocheck, cmd/normtop), so Go must be on PATH.
# Then (without pytest args, when tmux is there) scripts/e2e-python-tmux.sh:
# the example trains while `normtop replay --follow` shows it in tmux.
# Usage (from anywhere): bash scripts/python-tests.sh [pytest args]
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="/usr/local/go/bin:$PATH"
PY=/usr/bin/python3

have() { "$PY" -c 'import torch, pytest' >/dev/null 2>&1; }

if ! have; then
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		echo "installing python3-torch python3-pytest (apt)"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >/dev/null 2>&1 || true
		apt-get install -y -qq python3-torch python3-pytest >/tmp/normtop-apt.log 2>&1 ||
			echo "apt-get install failed; see /tmp/normtop-apt.log"
	fi
	if ! have; then
		echo "skipped: python tests need Debian's python3-torch and python3-pytest for $PY, which are not installed and could not be installed here"
		exit 0
	fi
fi

"$PY" -c 'import torch; print("torch", torch.__version__)'
"$PY" -m pytest -q -p no:cacheprovider python/tests "$@"
rc=$?
case $rc in
0) ;;
5)
	# pytest: no tests were collected (e.g. a -k filter matched none).
	echo "skipped: pytest collected no tests under python/tests"
	rc=0
	;;
*) echo "python tests failed (pytest exit $rc)" ;;
esac
if [[ $rc -eq 0 && $# -eq 0 ]]; then
	# The Debian install recipe of docs/python.md, as written, into a throw-away venv,
	# and the wheel CI keeps (PYTHON_DIST, default ci-artifacts/python).
	bash scripts/python-install-check.sh || rc=1
fi
if [[ $rc -eq 0 && $# -eq 0 ]]; then
	if command -v tmux >/dev/null; then
		bash scripts/e2e-python-tmux.sh || rc=1
	else
		echo "skipped: the live-dashboard test of the PyTorch example needs tmux"
	fi
fi
exit $rc
