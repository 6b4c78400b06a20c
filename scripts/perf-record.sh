#!/bin/sh
# perf-record.sh DIR FREQ COMMAND...: runs COMMAND under Linux perf's sampler
# (`perf record -F FREQ -g`: every thread, FREQ samples a second of its CPU
# time, frame-pointer call stacks) and leaves DIR/perf.txt, the samples as
# `perf script` text, which vbench reads (profile format perf-script). It is
# the wrapper of the perf modes in benchmarks/peers.yaml: the kernel's own
# sampler measured beside vbench's as any other mode.
#
# The runtime names its JIT-compiled code for perf in /tmp/perf-PID.map when
# the mode sets DOTNET_PerfMapEnabled=3; perf reads that map only for code
# not in a file mapping, so the mode also sets DOTNET_EnableWriteXorExecute=0
# (with W^X on, JIT code runs from a memfd's double mapping and every managed
# frame is "[unknown]"). The maps are removed here after perf script read
# them: a run leaves nothing in /tmp.
#
# Exits with COMMAND's status (perf record passes it on; a signal that killed
# COMMAND arrives as 128+signal). Stopped by SIGTERM or SIGINT (vbench stops a
# service's server with SIGTERM to its whole process group: perf and COMMAND
# get it too), it outlives them to write DIR/perf.txt, then ends by that same
# signal, so whoever stopped it sees what it would have seen without it.
set -u
dir=$1 freq=$2
shift 2
command -v perf >/dev/null || { echo "perf-record.sh: perf is not installed (scripts/ensure-perf.sh installs it)" >&2; exit 127; }
# cpu-clock, named: perf's default (cycles) is a hardware counter where there
# is one, an NMI rather than the timer a CPU-time sampler such as vbench's
# uses; this VM has none and fell back to cpu-clock anyway. A user that
# perf_event_paranoid keeps out of the kernel samples user space only.
event=cpu-clock
if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)" -ge 2 ]; then
	event=cpu-clock:u
fi
stopped_by=
trap 'stopped_by=TERM' TERM
trap 'stopped_by=INT' INT
perf record -q -e "$event" -F "$freq" -g -o "$dir/perf.data" -- "$@"
status=$?
if [ -s "$dir/perf.data" ]; then
	if ! perf script -i "$dir/perf.data" -F comm,pid,tid,time,period,event,ip,sym,dso > "$dir/perf.txt" 2> "$dir/perf-script.err"; then
		echo "perf-record.sh: perf script failed:" >&2
		cat "$dir/perf-script.err" >&2
		# A failure to report: not hidden behind the program's status 0,
		# nor behind the stop it was asked for.
		if [ "$status" -eq 0 ] || [ -n "$stopped_by" ]; then
			status=1
		fi
		stopped_by=
	fi
	# The processes sampled, from the headers' "pid/tid" (one decoding of
	# perf.data, not two: a server's stop waits for this).
	for pid in $(awk '!/^[ \t]/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) { sub(/\/.*/, "", $i); print $i; break } }' "$dir/perf.txt" | sort -u); do
		rm -f "/tmp/perf-$pid.map" "/tmp/perfinfo-$pid.map"
	done
	rm -f "$dir/perf.data"
fi
if [ -n "$stopped_by" ]; then
	trap - "$stopped_by"
	kill -s "$stopped_by" $$
fi
exit "$status"
