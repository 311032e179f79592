#!/usr/bin/env bash
# Installs what the proxy's integration tests need beyond npm:
#  - rsyslog with omelasticsearch (Debian rsyslog-elasticsearch); the test starts
#    its own rsyslogd with its own config, so the package's daemon is not started;
#  - a Python venv at .neardup/venv with the official Python clients
#    (elasticsearch8, opensearch-py) for the helpers.streaming_bulk tests.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v rsyslogd >/dev/null 2>&1 || ! ls /usr/lib/*/rsyslog/omelasticsearch.so >/dev/null 2>&1 \
  || ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv --help >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  # Keep the package scripts from starting a system rsyslog daemon.
  created_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    created_policy=1
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends rsyslog rsyslog-elasticsearch python3 python3-venv >/dev/null
  if [ "$created_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
fi
rsyslogd -v | head -1 || true

venv=.neardup/venv
if [ ! -x "$venv/bin/python" ]; then
  mkdir -p .neardup
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check 'elasticsearch8==8.19.*' 'opensearch-py==3.*'
"$venv/bin/python" -c 'import elasticsearch8, opensearchpy; print("python clients:", elasticsearch8.__versionstr__, opensearchpy.__versionstr__)'
