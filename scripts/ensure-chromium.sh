#!/usr/bin/env bash
# ensure-chromium.sh: make sure a headless-capable Chromium is installed, for the
# browser check of the HTML report (reports/browser_test.go).
#
# Installs Debian's `chromium` package through apt (root or sudo). Idempotent and
# quiet: prints nothing when Chromium is already there.
set -euo pipefail
SAY_AS=ensure-chromium
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

have() { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; }
have && exit 0


apt_install Chromium chromium fonts-liberation || { say "or set VBENCH_SKIP_BROWSER=1 to skip the browser check"; exit 1; }
have || { say "installed chromium but it is still not on PATH"; exit 1; }
say "$(chromium --version 2>/dev/null || true)"
