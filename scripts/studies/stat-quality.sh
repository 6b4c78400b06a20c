#!/usr/bin/env bash
# stat-quality.sh: how trustworthy are vbench's verdicts on this machine?
# Repeats each experiment with the same build on both sides (A/A: false
# alarms) and with a 5% slower B side (A/B: detection): within one run and
# across invocations against a stored baseline, B being the workload's work
# scaled by 1.05; and within one run `vbench run --against` under tracing, B
# being the slow profiler (make slow-profiler). Prints one line per experiment:
#
#   <experiment>: A/A false alarms X/N; A/B detected Y/N
#
# and the run-level experiment (the whole of benchmarks/quick.yaml --against
# the same build, and --against with the slow build as NEW), a line:
#
#   suite A/A (--against the same build): runs with a false regression X/N; suite A/B (--against, B = libvbenchprof-slow.so): runs that caught it Y/N
#
# then a Markdown table for docs/notebook/statistical-quality.md, the machine's load and the
# harness's bookkeeping per run. Real runs of a real workload at the suite's
# settings; a measurement, not a test.
#
#   scripts/studies/stat-quality.sh [SUITE] [WORKLOAD] [statquality flags...]
#   scripts/studies/stat-quality.sh benchmarks/suite.yaml fibonacci -reps 20
#   scripts/studies/stat-quality.sh benchmarks/suite.yaml fibonacci -only against
#   scripts/studies/stat-quality.sh benchmarks/suite.yaml fibonacci -only suite   # the run-level experiment alone
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
suite=${1:-benchmarks/suite.yaml}
workload=${2:-fibonacci}
shift $(( $# > 2 ? 2 : $# ))
make -s build slow-profiler
exec scripts/go run -tags vbenchstudy ./scripts/studies/statquality -vbench bin/vbench -slow bin/libvbenchprof-slow.so -run-level benchmarks/quick.yaml -suite "$suite" -workload "$workload" "$@"
