#!/usr/bin/env bash
# stat-quality.sh: how trustworthy are vbench's verdicts on this machine?
# Runs A/A (same build twice: false regressions), A/B (the workload's work
# scaled by 1.05: detection rate) and measures the harness's bookkeeping per
# run, with real runs of a real workload. Prints a Markdown section for
# docs/harness.md. Nothing here is a timed test; it is a measurement.
#
#   scripts/stat-quality.sh [SUITE] [WORKLOAD] [statquality flags...]
#   scripts/stat-quality.sh benchmarks/quick.yaml fibonacci -reps 20
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
suite=${1:-benchmarks/quick.yaml}
workload=${2:-fibonacci}
shift $(( $# > 2 ? 2 : $# ))
make -s bin/vbench
exec scripts/go run ./cmd/statquality -vbench bin/vbench -suite "$suite" -workload "$workload" "$@"
