#!/usr/bin/env bash
# noise-study.sh: record the raw samples the verdict rule was chosen with
# (docs/notebook/statistical-quality.md). Real vbench runs of the default
# suite's fibonacci (one thread, heavy right tail) and mandelbrot (two
# threads), unprofiled and under tracing:
#
#   within: WITHIN invocations, each ROUNDS interleaved rounds of
#     A1, A2 (the same build twice), B (--scale 1.05: 5% more work) and,
#     under tracing, the slow profiler (make slow-profiler) as B;
#   across: ACROSS invocations alternating A and B suites, RUNS runs per cell.
#
# Every results file is kept under OUT with `uptime` before and after each
# invocation (uptime.log); `go run -tags vbenchstudy ./scripts/studies/noisestudy record OUT` turns them
# into stats/testdata/noise.json. A measurement, not a test: it takes about an
# hour on a quiet 2-core machine, more on a busy one.
#
#   scripts/studies/noise-study.sh OUT [ROUNDS=40] [WITHIN=3] [ACROSS=16] [RUNS=30]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
rounds=${2:-40} within=${3:-3} across=${4:-16} runs=${5:-30}
cd "$root"
make -s build slow-profiler
dotnet=$(command -v dotnet)
for p in fibonacci/Fibonacci mandelbrot/Mandelbrot; do
	dotnet build -c Release -v q -nologo "benchmarks/$p.csproj" >/dev/null
done
fib=("$dotnet" "$root/benchmarks/fibonacci/bin/Release/net10.0/Fibonacci.dll" --n 30 --iterations 100)
man=("$dotnet" "$root/benchmarks/mandelbrot/bin/Release/net10.0/Mandelbrot.dll" --width 1000 --height 1000 --max-iter 200 --repeat 4)
slow="$root/bin/libvbenchprof-slow.so"

# The tracing B side loads the slow library in place of the one vbench set.
cat >"$out/swaplib.sh" <<'SH'
#!/bin/sh
lib=$1; shift
export CORECLR_PROFILER_PATH="$lib" CORECLR_PROFILER_PATH_64="$lib"
exec "$@"
SH
chmod +x "$out/swaplib.sh"

yamlcmd() { local s="["; local a; for a in "$@"; do s+="\"$a\", "; done; echo "${s%, }]"; }
workload() { # name modes argv...
	local name=$1 modes=$2; shift 2
	printf '  - name: %s\n    modes: [%s]\n    command: %s\n' "$name" "$modes" "$(yamlcmd "$@")"
}
header() { # name runs
	printf 'name: %s\nruns: %s\nwarmup: 1\nmodes: [none, tracing]\ntimeout: 2m\nbaseline: none.json\nworkloads:\n' "$1" "$2"
}
{
	header noise-within "$rounds"
	workload fib-a1 none "${fib[@]}"
	workload fib-a2 none "${fib[@]}"
	workload fib-b none "${fib[@]}" --scale 1.05
	workload fibt-a1 tracing "${fib[@]}"
	workload fibt-a2 tracing "${fib[@]}"
	workload fibt-b tracing "$out/swaplib.sh" "$slow" "${fib[@]}"
	workload man-a1 none "${man[@]}"
	workload man-a2 none "${man[@]}"
	workload man-b none "${man[@]}" --scale 1.05
} >"$out/within.yaml"
{
	header noise-across "$runs"
	workload fib none "${fib[@]}"
	workload fibt tracing "${fib[@]}"
	workload man none "${man[@]}"
} >"$out/across-a.yaml"
{
	header noise-across "$runs"
	workload fib none "${fib[@]}" --scale 1.05
	workload fibt tracing "$out/swaplib.sh" "$slow" "${fib[@]}"
	workload man none "${man[@]}" --scale 1.05
} >"$out/across-b.yaml"

invoke() { # suite results
	echo "$(basename "$2") before: $(uptime)" >>"$out/uptime.log"
	bin/vbench run "$1" --quiet --no-baseline --no-step-summary --json "$2" --format csv >/dev/null
	echo "$(basename "$2") after: $(uptime)" >>"$out/uptime.log"
	echo "noise-study: $(basename "$2") done" >&2
}
for i in $(seq 1 "$within"); do
	invoke "$out/within.yaml" "$out/within-$i.json"
done
for i in $(seq 1 "$across"); do
	side=a; [ $((i % 2)) -eq 0 ] && side=b
	invoke "$out/across-$side.yaml" "$out/across-$(printf %02d "$i")-$side.json"
done
