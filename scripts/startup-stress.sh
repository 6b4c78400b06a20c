#!/usr/bin/env bash
# startup-stress.sh [N]: the proof that the signal-driven engines survive a
# service's start-up. Starts the web service (benchmarks/web) N times
# (default 20) under each of STARTUP_MODES, waits for its /health to answer,
# stops it with SIGTERM, and checks that it exited 0 and wrote its profile.
# Start-up is where the runtime makes most of its threads, installs its
# signal handlers and JIT-compiles most of its code while the sampler's
# signals arrive: a crash there once failed TestServiceUnderEachMode
# (issue 48). A crash is counted with its signal, and its core (core dumps
# are switched on; the kernel's core_pattern must write them into the
# process's directory, the default "core") is read with gdb, when there is
# one, for the crashing thread's stack. Prints a summary; exits 1 on any
# failure.
#
#   scripts/startup-stress.sh 300
#   STARTUP_MODES=sampling@1ms STARTUP_BUSY=2 scripts/startup-stress.sh 50
#
# Environment: STARTUP_MODES (default "sampling@1ms sampling@10ms
# suspend-sampling@10ms": engine@interval), STARTUP_BUSY (busy loops run
# beside it for the whole loop, default 1: a loaded machine),
# STARTUP_KEEP (a directory that keeps each failed start-up's files; default
# none), STARTUP_HOOK (vbench's startup hook, VbenchStartupHook.dll, given
# to each start-up as vbench run does; default none), STARTUP_ENV (more
# VAR=VALUE words for each start-up, e.g. VBENCH_CPU_DIRECTED=1), VBENCH_LIB (the profiler library; default: built with make),
# VBENCH_WEB (Web.dll; default: built here).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

n=${1:-20}
[[ $n =~ ^[0-9]+$ ]] || { echo "startup-stress: N must be a whole number, not '$n'" >&2; exit 2; }
modes=${STARTUP_MODES:-sampling@1ms sampling@10ms suspend-sampling@10ms}
busy=${STARTUP_BUSY:-1}
clsid='{8C2F5D8A-6C1E-4B7A-9A57-3F0E2B1D7C41}'

lib=${VBENCH_LIB:-}
if [ -z "$lib" ]; then
	make -C "$root" --no-print-directory build >&2 || exit 2
	lib=$root/bin/libvbenchprof.so
fi
# Absolute: each start-up runs in its own directory (make stress passes bin/...).
lib=$(readlink -f "$lib")
web=${VBENCH_WEB:-}
if [ -z "$web" ]; then
	proj=$root/benchmarks/web/Web.csproj
	mkdir -p "$root/benchmarks/web/obj"
	# The lock the tests' builds take (internal/testbin).
	web=$(cd "$root/benchmarks/web" && flock obj/.vbench-build.lock dotnet build "$proj" -c Release -nologo -t:Build -getProperty:TargetPath) || exit 2
fi
[ -f "$web" ] || { echo "startup-stress: no web app at '$web'" >&2; exit 2; }
dotnet=$(readlink -f "$(command -v dotnet)")

# Nothing from the caller's environment may load another profiler.
for v in $(env | sed -n 's/^\(CORECLR_[A-Z_0-9]*\|DOTNET_[A-Z_]*PROFIL[A-Z_0-9]*\|VBENCH_[A-Z_]*\)=.*/\1/p'); do
	unset "$v"
done

work=$(mktemp -d)
burners=()
server=
cleanup() {
	local p
	[ -n "$server" ] && kill -KILL "$server" 2>/dev/null
	for p in "${burners[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${burners[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
# Interrupted (a long loop cut short): the summary of what ran, then out.
trap 'interrupted=1' INT TERM
interrupted=0
for ((b = 0; b < busy; b++)); do
	( while :; do :; done ) &
	burners+=($!)
done
ulimit -c unlimited 2>/dev/null || echo "startup-stress: core dumps cannot be switched on (ulimit -c); crashes are counted without their stacks" >&2
# The core file a crash of pid leaves in dir: "core" or "core.<pid>".
core_of() { local c; for c in "$1/core.$2" "$1/core"; do [ -f "$c" ] && { echo "$c"; return; }; done; }

# start_once MODE INTERVAL DIR: one start-up; sets why ("" when it held).
start_once() {
	local mode=$1 ival=$2 dir=$3 port tries rc=0 ready=0 t
	why=
	for tries in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 30000))
		(cd "$dir" && exec env ${STARTUP_HOOK:+DOTNET_STARTUP_HOOKS="$STARTUP_HOOK" VBENCH_HOOK_DIR="$dir"} CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER="$clsid" CORECLR_PROFILER_PATH="$lib" \
			VBENCH_MODE="$mode" VBENCH_INTERVAL="$ival" VBENCH_PROFILE_DIR="$dir/prof" ${STARTUP_ENV:-} \
			"$dotnet" "$web" --urls "http://127.0.0.1:$port") >"$dir/out" 2>"$dir/err" &
		server=$!
		ready=0
		for ((t = 0; t < 1200; t++)); do # 60 s
			if curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$port/health" 2>/dev/null; then
				ready=1
				break
			fi
			kill -0 "$server" 2>/dev/null || break
			sleep 0.05
		done
		[ $ready = 1 ] && kill -TERM "$server" 2>/dev/null
		[ $ready = 0 ] && kill -0 "$server" 2>/dev/null && kill -KILL "$server"
		wait "$server"
		rc=$?
		# Someone else's port: not the program's fault, another port.
		if [ $ready = 0 ] && grep -q 'address already in use' "$dir/err"; then
			rm -rf "$dir/prof" "$dir"/core*
			continue
		fi
		break
	done
	local pid=$server
	server=
	if [ $rc -gt 128 ]; then
		why="killed by signal $((rc - 128))"
		[ $ready = 1 ] && why="$why (after ready)" || why="$why (before ready)"
		local core
		core=$(core_of "$dir" "$pid")
		if [ -n "$core" ] && command -v gdb >/dev/null; then
			gdb -batch -nx -ex 'info threads' -ex 'bt 40' -ex 'info registers rip rsp rbp' "$dotnet" "$core" >"$dir/stack" 2>&1
			why="$why; crashing thread: $(grep -m1 '^\*' "$dir/stack" | tr -s ' ' | cut -c1-160); stack:
$(grep '^#' "$dir/stack" | head -12 | cut -c1-200)"
		elif [ -z "$core" ]; then
			why="$why; no core file (core_pattern: $(cat /proc/sys/kernel/core_pattern))"
		fi
	elif [ $ready = 0 ]; then
		why="never ready (exit $rc)"
	elif [ $rc -ne 0 ]; then
		why="exit $rc after SIGTERM"
	elif ! compgen -G "$dir/prof/*/profile.json" >/dev/null; then
		why="no profile.json in $dir/prof/<pid>/"
	fi
	if [ -n "$why" ]; then
		local cause
		cause=$(cat "$dir"/prof/*/profile.json 2>/dev/null | grep -o '"cause": *"[^"]*"' | head -1)
		[ -n "$cause" ] && why="$why; profile $cause"
		why="$why; stderr: $(tail -c 300 "$dir/err" | tr '\n' ' ')"
		if [ -n "${STARTUP_KEEP:-}" ]; then
			mkdir -p "$STARTUP_KEEP" && cp -r "$dir" "$STARTUP_KEEP/" && why="$why (kept in $STARTUP_KEEP/$(basename "$dir"))"
		fi
	fi
}

declare -A ok fail
failures=0 begun=$(date +%s)
for ((i = 1; i <= n; i++)); do
	for m in $modes; do
		[ $interrupted = 1 ] && break
		mode=${m%@*} ival=${m#*@}
		[ "$ival" = "$m" ] && ival=10ms
		dir=$work/$mode-$ival-$i
		mkdir -p "$dir/prof"
		start_once "$mode" "$ival" "$dir"
		if [ -n "$why" ]; then
			fail[$m]=$((${fail[$m]:-0} + 1))
			failures=$((failures + 1))
			echo "start-up $i $m: FAILED ($why)"
		else
			ok[$m]=$((${ok[$m]:-0} + 1))
		fi
		rm -rf "$dir"
	done
	((i % 25 == 0)) && echo "startup-stress: $i rounds, $failures failed, $(($(date +%s) - begun)) s"
	if [ $interrupted = 1 ]; then
		echo "startup-stress: interrupted after round $i"
		break
	fi
done

echo
printf '%-24s %6s %6s\n' engine ok failed
for m in $modes; do printf '%-24s %6d %6d\n' "$m" "${ok[$m]:-0}" "${fail[$m]:-0}"; done
echo "($busy busy loops beside it, $(($(date +%s) - begun)) s)"
if [ $failures -gt 0 ]; then
	echo "startup-stress: $failures failed start-ups"
	exit 1
fi
[ $interrupted = 1 ] && exit 130
echo "startup-stress: all $((n * $(wc -w <<<"$modes"))) start-ups passed"
