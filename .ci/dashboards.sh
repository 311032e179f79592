#!/usr/bin/env bash
# What the dashboard page test (test/integration/dashboards-page.test.ts) needs
# besides npm packages: Debian's Chromium, driven headless by puppeteer-core,
# and a CJK font so the page's screenshots show Chinese text.
set -euo pipefail
echo "== dashboards: chromium"
missing=()
dpkg -s chromium >/dev/null 2>&1 || missing+=(chromium)
dpkg -s fonts-wqy-zenhei >/dev/null 2>&1 || missing+=(fonts-wqy-zenhei)
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
chromium --version 2>/dev/null || { echo "FAIL: chromium did not install" >&2; exit 1; }
