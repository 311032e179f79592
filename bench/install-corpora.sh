#!/usr/bin/env bash
# Installs the Debian text corpora the core benchmarks read (bench/corpus.ts):
# fortunes-zh (modern Chinese). Needs root (as in CI) or sudo; idempotent.
set -euo pipefail
if [ -f /usr/share/games/fortunes/chinese ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends fortunes-zh
