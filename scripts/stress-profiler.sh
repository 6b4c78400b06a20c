#!/usr/bin/env bash
# stress-profiler.sh [N]: the proof that the profiler survives CoreCLR's
# thread suspension. Runs a multi-threaded, allocation-heavy C# program with
# induced GCs and exceptions (the "stress" scenario of profiler/testdata/app)
# N times (default 30) under each mode: none, null, tracing,
# instrumentation, sampling, suspend-sampling, cpu-directed (the samplers at
# 1ms, to maximise suspensions and signals; cpu-directed is sampling with
# every thread's ticks sent by the drain thread, VBENCH_CPU_DIRECTED=1,
# where sampling directs only the threads it finds busy). Each run must exit 0, print the same checksum as
# an unprofiled run, and (when profiled) write its profile.json (into its
# own <pid>/ directory of VBENCH_PROFILE_DIR). Prints a summary
# and exits non-zero on any failure.
#
#   scripts/stress-profiler.sh 30
#   STRESS_KEEP_ONSTACK=1 scripts/stress-profiler.sh 10   # SA_ONSTACK left on SIGRTMIN
#
# Environment: VBENCH_LIB (profiler library; default: built with make),
# VBENCH_APP (VbTestApp.dll; default: built here), STRESS_MODES (default
# "none null tracing instrumentation sampling suspend-sampling cpu-directed allocations allocation-sampling"), STRESS_THREADS (default 8),
# STRESS_KEEP_ONSTACK=1 (builds the library with -tags vbenchtest and sets
# VBENCH_DEBUG_KEEP_ONSTACK=1: SIGRTMIN keeps the SA_ONSTACK Go gave it,
# everything else is fixed: to demonstrate that crash), STRESS_TIMELINE=1
# (VBENCH_TIMELINE=1: the timeline's paths too; only with STRESS_MODES
# whose engines write one: tracing, the samplers, the allocation engines).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# one_profile DIR: the one process profiled into DIR wrote a non-empty
# profile.json (each process writes into DIR/<pid>/).
one_profile() {
	local p=("$1"/*/profile.json)
	[ ${#p[@]} -eq 1 ] && [ -s "${p[0]}" ]
}
n=${1:-30}
modes=${STRESS_MODES:-none null tracing instrumentation sampling suspend-sampling cpu-directed allocations allocation-sampling}
threads=${STRESS_THREADS:-8}
clsid='{8C2F5D8A-6C1E-4B7A-9A57-3F0E2B1D7C41}'

lib=${VBENCH_LIB:-}
if [ "${STRESS_KEEP_ONSTACK:-0}" = 1 ]; then
	# The switch exists only in a library built with the test hooks.
	lib=$root/bin/libvbenchprof-testhooks.so
	(cd "$root" && scripts/go build -tags vbenchtest -buildmode=c-shared -o "$lib" ./profiler && rm -f "${lib%.so}.h") >&2 || exit 2
elif [ -z "$lib" ]; then
	make -C "$root" --no-print-directory build >&2 || exit 2
	lib=$root/bin/libvbenchprof.so
fi
app=${VBENCH_APP:-}
if [ -z "$app" ]; then
	# Where and under the lock the tests build it (internal/testbin.Workload).
	mkdir -p "$root/profiler/testdata/app/obj"
	app=$(flock "$root/profiler/testdata/app/obj/.vbench-build.lock" dotnet build "$root/profiler/testdata/app/App.csproj" -c Release -nologo -t:Build -getProperty:TargetPath) || exit 2
fi

# Nothing from the caller's environment may load another profiler.
for v in $(env | sed -n 's/^\(CORECLR_[A-Z_0-9]*\|DOTNET_[A-Z_]*PROFIL[A-Z_0-9]*\|VBENCH_[A-Z_]*\)=.*/\1/p'); do
	[ "$v" = VBENCH_LIB ] || [ "$v" = VBENCH_APP ] || unset "$v"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
want=$(dotnet "$app" stress "$threads" 2>/dev/null | grep checksum)
[ -n "$want" ] || { echo "stress-profiler: the unprofiled reference run failed" >&2; exit 2; }

declare -A ok fail
failures=0
for ((i = 1; i <= n; i++)); do
	for mode in $modes; do
		dir=$work/$mode-$i
		mkdir -p "$dir"
		env=()
		if [ "$mode" != none ]; then
			env=(CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER="$clsid" CORECLR_PROFILER_PATH="$lib"
				VBENCH_MODE="$mode" VBENCH_PROFILE_DIR="$dir" VBENCH_INTERVAL=1ms)
			[ "$mode" = cpu-directed ] && env+=(VBENCH_MODE=sampling VBENCH_CPU_DIRECTED=1)
			[ "${STRESS_KEEP_ONSTACK:-0}" = 1 ] && env+=(VBENCH_DEBUG_KEEP_ONSTACK=1)
			[ "${STRESS_TIMELINE:-0}" = 1 ] && env+=(VBENCH_TIMELINE=1)
		fi
		env "${env[@]}" timeout 120 dotnet "$app" stress "$threads" >"$dir/out" 2>"$dir/err"
		rc=$?
		why=""
		if [ $rc -ne 0 ]; then
			why="exit $rc"
			[ $rc -gt 128 ] && why="killed by signal $((rc - 128))"
		elif ! grep -qxF "$want" "$dir/out"; then
			why="wrong result: $(head -c 200 "$dir/out")"
		elif [ "$mode" != none ] && ! one_profile "$dir"; then
			why="no profile.json (want one, in $dir/<pid>/)"
		fi
		if [ -n "$why" ]; then
			fail[$mode]=$((${fail[$mode]:-0} + 1))
			failures=$((failures + 1))
			echo "run $i $mode: FAILED ($why); stderr: $(tail -c 300 "$dir/err" | tr '\n' ' ')"
		else
			ok[$mode]=$((${ok[$mode]:-0} + 1))
		fi
	done
done

echo
printf '%-16s %6s %6s\n' mode ok failed
for mode in $modes; do printf '%-16s %6d %6d\n' "$mode" "${ok[$mode]:-0}" "${fail[$mode]:-0}"; done
[ "${STRESS_KEEP_ONSTACK:-0}" = 1 ] && echo "(SA_ONSTACK left on SIGRTMIN: VBENCH_DEBUG_KEEP_ONSTACK=1)"
if [ $failures -gt 0 ]; then
	echo "stress-profiler: $failures failed runs"
	exit 1
fi
echo "stress-profiler: all $((n * $(wc -w <<<"$modes"))) runs passed"
