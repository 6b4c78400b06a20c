#!/usr/bin/env bash
# ensure-perf.sh: make sure Linux perf is installed (Debian package
# linux-perf): the kernel's own sampler, which benchmarks/peers.yaml measures
# beside vbench's (its perf modes run the workload under
# scripts/perf-record.sh), and which runner's perf test runs.
#
# Idempotent and quiet: prints nothing when perf is already there and runs.
set -euo pipefail
SAY_AS=ensure-perf
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

perf --version >/dev/null 2>&1 && exit 0

if ! command -v apt-get >/dev/null; then
	say "perf is missing and this is not a Debian-like system; install perf and put it on PATH."
	exit 1
fi

say "installing linux-perf"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -qq --no-install-recommends linux-perf; } >"$log" 2>&1; then
	cat "$log" >&2
	say "apt-get failed; install linux-perf by hand"
	exit 1
fi
hash -r
perf --version >/dev/null 2>&1 || { say "installed linux-perf but perf does not run"; exit 1; }
