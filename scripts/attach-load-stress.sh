#!/usr/bin/env bash
# attach-load-stress.sh [N]: the proof that a first attach survives a
# service under load. N times (default 8): the test web app
# (internal/testbin/webapp) under hey, one `vbench profile --pid` (sampling,
# 1 ms, 1 s), then the server must still be alive. The first attach loads
# the library, and Go's runtime changes the process's signal handlers inside
# that dlopen (SA_ONSTACK on CoreCLR's activation signal, its own fault
# handlers): until the profiler undid it, a GC's activation signal ran on the
# 16 KiB alternate stack and overflowed it (SIGSEGV, 1 of 3 suite runs).
# The library is a test-hooks build whose first Initialize waits
# ATTACH_STRESS_DELAY_MS (default 2000; VBENCH_DEBUG_INIT_DELAY_MS) as a busy
# machine may: before the fix 3 of 6 servers died, after it none.
# Exits 1 on any death.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-8}
[[ $n =~ ^[0-9]+$ ]] || { echo "attach-load-stress: N must be a whole number, not '$n'" >&2; exit 2; }
delay=${ATTACH_STRESS_DELAY_MS:-2000}
command -v hey >/dev/null || { echo "attach-load-stress: needs hey (scripts/ensure-loadgen.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -C "$root" --no-print-directory build >&2 || exit 2
(cd "$root" && scripts/go build -tags vbenchtest -buildmode=c-shared -o "$work/lib.so" ./profiler) || exit 2
dll=$(cd "$root/internal/testbin/webapp" && dotnet build TestWeb.csproj -c Release -nologo -t:Build -getProperty:TargetPath) || exit 2
ulimit -c unlimited
dead=0
for k in $(seq "$n"); do
	port=$((20000 + RANDOM % 10000))
	VBENCH_DEBUG_INIT_DELAY_MS=$delay dotnet "$dll" --urls=http://127.0.0.1:$port >"$work/web.out" 2>&1 &
	web=$!
	for _ in $(seq 150); do curl -sf http://127.0.0.1:$port/ready >/dev/null && break; sleep 0.2; done
	hey -z 30s -c 16 http://127.0.0.1:$port/ping >/dev/null 2>&1 &
	hey=$!
	sleep 1
	"$root/bin/vbench" profile --profiler "$work/lib.so" --pid $web --mode sampling --interval 1ms --duration 1s --top 1 --out "$work/p.$k" >"$work/attach.$k.log" 2>&1
	rc=$?
	sleep 0.5
	if kill -0 $web 2>/dev/null; then state=alive; kill $web; else state=DEAD; dead=$((dead + 1)); fi
	wait $web; st=$?
	kill $hey 2>/dev/null; wait $hey 2>/dev/null
	echo "round $k: attach exit $rc, server $state (status $st), load $(cut -d' ' -f1 /proc/loadavg)"
done
echo "attach-load-stress: $dead of $n servers died"
[ "$dead" -eq 0 ]
