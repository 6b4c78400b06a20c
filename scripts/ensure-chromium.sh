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


if ! command -v apt-get >/dev/null; then
	say "Chromium is missing and this is not a Debian-like system; install Chromium and put it on PATH."
	exit 1
fi

say "installing chromium"
# apt's chatter goes to a log that is shown only when something fails.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -qq --no-install-recommends chromium fonts-liberation; } >"$log" 2>&1; then
	cat "$log" >&2
	say "apt-get failed; install Chromium by hand, or set VBENCH_SKIP_BROWSER=1 to skip the browser check"
	exit 1
fi
hash -r
have || { say "installed chromium but it is still not on PATH"; exit 1; }
say "$(chromium --version 2>/dev/null || true)"
