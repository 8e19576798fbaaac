#!/usr/bin/env bash
# Checks the Debian install recipe of docs/python.md for the Python package as
# written (a venv that sees Debian's python3-torch, pip without build
# isolation: no download), imports the installed package outside the
# checkout, and builds the wheel CI keeps as an artefact.
# Usage (from anywhere): bash scripts/python-install-check.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
PY=/usr/bin/python3
DIST=${PYTHON_DIST:-$ROOT/ci-artifacts/python}

if ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/tmp/normtop-apt-venv.log 2>&1 || true
	fi
fi
if ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
	echo "skipped: the install check needs Debian's python3-venv"
	exit 0
fi

V=$(mktemp -d)
trap 'rm -rf "$V"' EXIT
"$PY" -m venv --system-site-packages "$V/normtop"
"$V/normtop/bin/pip" install -q --no-build-isolation ./python
(cd "$V" && "$V/normtop/bin/python" -c '
import normtop, torch
assert "/site-packages/normtop/" in normtop.__file__, normtop.__file__
print("installed:", normtop.__file__, "with torch", torch.__version__)')

mkdir -p "$DIST"
"$PY" -m pip wheel -q --no-deps --no-build-isolation ./python -w "$DIST"
ls -l "$DIST"
