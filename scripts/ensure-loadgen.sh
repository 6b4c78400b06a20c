#!/usr/bin/env bash
# ensure-loadgen.sh: make sure the load generator service workloads are driven
# with (hey, Debian package hey) is installed. Why hey and not wrk: hey ends a
# timed load by letting every request in flight finish and reports each one,
# so the requests it completed are the requests the server handled (the
# handler's exact call count); wrk stops with requests in flight that the
# server still serves. docs/harness.md, "Services".
#
# Idempotent and quiet: prints nothing when hey is already there.
set -euo pipefail
SAY_AS=ensure-loadgen
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

command -v hey >/dev/null 2>&1 && exit 0

if ! command -v apt-get >/dev/null; then
	say "the load generator hey is missing and this is not a Debian-like system; install hey and put it on PATH."
	exit 1
fi

say "installing hey"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -qq --no-install-recommends hey; } >"$log" 2>&1; then
	cat "$log" >&2
	say "apt-get failed; install hey by hand"
	exit 1
fi
hash -r
command -v hey >/dev/null 2>&1 || { say "installed hey but it is still not on PATH"; exit 1; }
