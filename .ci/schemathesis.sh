#!/usr/bin/env bash
# Creates the Python venv the API fuzz test uses (test/integration/fuzz.test.ts):
# schemathesis from PyPI, pinned. Idempotent: a venv that already has this
# version is kept. Location: .neardup/schemathesis-venv (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION="4.32.5"
VENV=".neardup/schemathesis-venv"
if [ -x "$VENV/bin/st" ] && "$VENV/bin/st" --version 2>/dev/null | grep -q "$VERSION"; then
  echo "schemathesis $VERSION already in $VENV"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then
  # Debian ships venv (and ensurepip) in python3-venv.
  apt-get update -qq && apt-get install -y -qq python3 python3-venv
fi
mkdir -p .neardup
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION"
"$VENV/bin/st" --version
