#!/bin/sh
# Creates <repo>/.venv-bumble with Google Bumble for the virtual-controller tests.
# Idempotent: a venv that already imports the pinned bumble is left alone.
# Needs Python >= 3.11 (Bumble's minimum) and pip access to PyPI.
set -eu
BUMBLE_VERSION=0.0.236
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
venv="$repo/.venv-bumble"

if [ -x "$venv/bin/python" ] &&
    "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('bumble') != '$BUMBLE_VERSION')" 2>/dev/null; then
    exit 0
fi

# The first interpreter that is at least 3.11.
py=""
for c in "${PYTHON:-}" python3 python3.13 python3.12 python3.11; do
    [ -n "$c" ] || continue
    if command -v "$c" >/dev/null 2>&1 &&
        "$c" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        py=$c
        break
    fi
done
if [ -z "$py" ]; then
    echo "setup.sh: Bumble needs Python >= 3.11; none found (set PYTHON=...)" >&2
    exit 69
fi

"$py" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "bumble==$BUMBLE_VERSION"
"$venv/bin/python" -c "import bumble.controller, bumble.link, bumble.transport.tcp_server"
echo "setup.sh: $venv ready (bumble $BUMBLE_VERSION)" >&2
