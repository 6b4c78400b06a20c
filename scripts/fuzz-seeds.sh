#!/usr/bin/env bash
# scripts/fuzz-seeds.sh: regenerate the fuzzers' seed corpora from real files:
# the benchmarks' suites and the CLI scripts' suites (FuzzParse), results and
# baseline files written by `vbench run` / `baseline update` / `merge` on
# internal/fakework (FuzzDecode in results, FuzzLoad in baseline), and
# profiles the real profiler wrote for the C# test program (FuzzDecode in
# profile). Seeds named seed-*; crashers the fuzzers found (committed as
# regression seeds) keep their hash names and are left alone.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
GO=./scripts/go
make -s build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$GO build -o "$work/bin/fakework" ./internal/fakework
$GO build -buildmode=c-shared -o "$work/bin/libfakeprof.so" ./internal/fakework/fakeprof
$GO build -o "$work/fuzzseed" ./internal/fuzzseed
export PATH="$work/bin:$PATH"
vb="$root/bin/vbench"
seed() { "$work/fuzzseed" -prefix seed- "$@"; }

for d in internal/suite/testdata/fuzz/FuzzParse internal/results/testdata/fuzz/FuzzDecode baseline/testdata/fuzz/FuzzLoad internal/profile/testdata/fuzz/FuzzDecode; do
	mkdir -p "$d"
	rm -f "$d"/seed-*
done

# Suites.
seed internal/suite/testdata/fuzz/FuzzParse benchmarks/*.yaml
seed -txtar .yaml internal/suite/testdata/fuzz/FuzzParse cmd/vbench/cli/testdata/script/*.txtar

# Results and baselines, from real runs of fakework.
mkdir -p "$work/s/bench" "$work/s/out"
cd "$work/s"
cat > bench/mixed.yaml <<'YAML'
name: mixed
runs: 3
warmup: 1
modes: [none, null, tracing]
profiler:
  interval: 5ms
  include: [Fib]
workloads:
  - name: fib
    command: [fakework, -overhead, "null=1.5,tracing=3", -calls, "Fib.Compute=100", -spread, "0.05"]
  - name: exits
    command: [fakework, -exit, "4"]
    modes: [none]
  - name: lies
    command: [fakework, -checksum, wrong]
    checksum: right
    modes: [none]
YAML
cat > bench/clean.yaml <<'YAML'
name: clean
runs: 6
warmup: 0
modes: [none, tracing]
workloads:
  - name: a
    command: [fakework, -spread, "0.02", -overhead, "tracing=2"]
  - name: b
    command: [fakework, -elapsed, "5000000", -spread, "0.02"]
YAML
cat > bench/stuck.yaml <<'YAML'
name: stuck
runs: 3
warmup: 0
modes: [none]
timeout: 10m
workloads:
  - name: good
    command: [fakework]
  - name: stuck
    command: [fakework, -counter, count.txt, -hang-at, "2", -pidfile, pids.txt]
YAML
cat > bench/modes.yaml <<'YAML'
name: modes
runs: 3
warmup: 0
metric: wall
profiler: {include: [Fib]}
modes:
  - none
  - {name: sampling-1ms, engine: sampling, interval: 1ms, env: {FAKEWORK_MODE: s1}}
  - {name: capture, env: {FAKEWORK_MODE: capture, FAKE_OUT: "{rundir}/out.txt"}}
workloads:
  - name: fib
    command: [fakework, -overhead, "s1=1.2,capture=1.1", -touch-env, FAKE_OUT]
  - name: plain
    command: [fakework, -no-vbench]
    metric: cpu
YAML
lib="$work/bin/libfakeprof.so"
"$vb" run bench/modes.yaml --quiet --profiler "$lib" --json out/modes.json >/dev/null
"$vb" run bench/mixed.yaml --quiet --profiler "$lib" --json out/failed-cells.json >/dev/null || [ $? = 3 ]
"$vb" baseline update bench/clean.yaml --quiet --profiler "$lib" >/dev/null 2>&1
"$vb" run bench/clean.yaml --quiet --profiler "$lib" --json out/verdicts.json --runs 8 >/dev/null
"$vb" run bench/clean.yaml --quiet --profiler "$lib" --shard 1/2 --json out/shard1.json >/dev/null
"$vb" run bench/clean.yaml --quiet --profiler "$lib" --shard 2/2 --json out/shard2.json >/dev/null
"$vb" merge out/shard1.json out/shard2.json -o out/merged.json 2>/dev/null
"$vb" run bench/stuck.yaml --quiet --json out/partial.json &
pid=$!
for _ in $(seq 600); do # the workload writes its pids when it starts hanging (cwd: the suite's dir)
	[ -s bench/pids.txt ] && [ "$(wc -w < bench/pids.txt)" = 2 ] && break
	sleep 0.1
done
kill -INT $pid
wait $pid || [ $? = 130 ]
cd "$root"
seed internal/results/testdata/fuzz/FuzzDecode "$work"/s/out/*.json "$work/s/baselines/clean.json"
seed -txtar .json internal/results/testdata/fuzz/FuzzDecode cmd/vbench/cli/testdata/script/*.txtar
seed baseline/testdata/fuzz/FuzzLoad "$work/s/baselines/clean.json" "$work/s/out/verdicts.json" "$work/s/out/partial.json" "$work/s/out/failed-cells.json"

# Profiles the real profiler wrote (small scenarios keep the fuzzer fast).
dll=$(dotnet build profiler/testdata/app -c Release -nologo -v q -t:Build -getProperty:TargetPath)
prof() {
	local name=$1
	shift
	"$vb" profile --out "$work/p/$name" "$@" >/dev/null 2>&1
	cp "$work/p/$name/profile.json" "$work/p/$name.json"
}
prof tracing-recursion --mode tracing -- dotnet "$dll" recursion 8
prof tracing-throw --mode tracing -- dotnet "$dll" throw 3
prof tracing-generic --mode tracing -- dotnet "$dll" generic 20
prof tracing-threads --mode tracing -- dotnet "$dll" threads 50
prof sampling-cpu --mode sampling --interval 5ms -- dotnet "$dll" cpu 300
prof null-loop --mode null -- dotnet "$dll" loop 100
seed internal/profile/testdata/fuzz/FuzzDecode "$work"/p/*.json
ls -l internal/suite/testdata/fuzz/FuzzParse internal/results/testdata/fuzz/FuzzDecode baseline/testdata/fuzz/FuzzLoad internal/profile/testdata/fuzz/FuzzDecode | awk '{print $5, $9}'
