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

apt_install perf linux-perf || exit 1
perf --version >/dev/null 2>&1 || { say "installed linux-perf but perf does not run"; exit 1; }
