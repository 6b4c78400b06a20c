#!/usr/bin/env bash
# neighbour.sh: load the machine the way a shared CI runner's neighbour does,
# reproducibly: one core busy in random bursts (a single busy thread, so on
# 2 cores it takes one of them while it runs), idle between them, for a
# bounded time, after which it stops by itself. The bursts and gaps are drawn
# from SEED, so two studies with one seed meet the same neighbour (the same
# pattern in time; what it costs a workload still depends on what else runs).
#
#   scripts/neighbour.sh [-s SEED] [-d SECONDS] [-b MIN_MS:MAX_MS] [-i MIN_MS:MAX_MS] [-n]
#     -s SEED    seed of the bursts (default 1)
#     -d SECONDS how long it lasts, at most (default 600); it then exits 0
#     -b         a burst's length, uniform in [MIN_MS, MAX_MS] (default 300:3000)
#     -i         the idle gap after it, uniform likewise (default 300:3000)
#     -n         print the plan, "burst START_MS LENGTH_MS" per line, and exit
#
#   scripts/neighbour.sh -s 7 -d 540 & vbench run benchmarks/quick.yaml --against base.so; wait
#
# SIGTERM or SIGINT stop it at once, its burner included. Used by
# scripts/studies/busy-study.sh and by the runner's test of the verdict rule under
# load (runner/neighbour_test.go).
set -euo pipefail
seed=1 duration=600 burst=300:3000 idle=300:3000 planonly=0
while getopts "s:d:b:i:n" o; do
	case $o in
	s) seed=$OPTARG ;;
	d) duration=$OPTARG ;;
	b) burst=$OPTARG ;;
	i) idle=$OPTARG ;;
	n) planonly=1 ;;
	*) echo "usage: $0 [-s SEED] [-d SECONDS] [-b MIN_MS:MAX_MS] [-i MIN_MS:MAX_MS] [-n]" >&2; exit 2 ;;
	esac
done
for v in "$seed" "$duration" "${burst%:*}" "${burst#*:}" "${idle%:*}" "${idle#*:}"; do
	[[ $v =~ ^[0-9]+$ ]] || { echo "neighbour.sh: '$v' is not a whole number (-s, -d, -b MIN:MAX, -i MIN:MAX)" >&2; exit 2; }
done
(( ${burst%:*} <= ${burst#*:} && ${idle%:*} <= ${idle#*:} )) || { echo "neighbour.sh: -b and -i take MIN:MAX with MIN <= MAX" >&2; exit 2; }

# draw VAR MIN:MAX sets VAR to a uniform whole number of milliseconds from
# the seeded stream (two draws of $RANDOM: 30 bits, no modulo bias to speak
# of). Never in $(…): a subshell reseeds $RANDOM.
RANDOM=$seed
draw() { local lo=${2%:*} hi=${2#*:}; printf -v "$1" %d $(( lo + ((RANDOM << 15 | RANDOM) % (hi - lo + 1)) )); }

# The plan: bursts until the duration is used up, the last one cut short.
total=$(( duration * 1000 )) at=0 plan=()
while (( at < total )); do
	draw len "$burst"
	draw gap "$idle"
	(( at + len > total )) && len=$(( total - at ))
	plan+=("$at $len")
	at=$(( at + len + gap ))
done
if (( planonly )); then
	for p in "${plan[@]}"; do echo "burst $p"; done
	exit 0
fi

burner= sleeper=
stop() {
	local p
	for p in $burner $sleeper; do kill "$p" 2>/dev/null || true; done
	for p in $burner $sleeper; do wait "$p" 2>/dev/null || true; done
	burner= sleeper=
}
trap 'stop; exit 0' TERM INT
trap stop EXIT
ms() { echo $(( $(date +%s%N) / 1000000 )); }
# pause MS sleeps in the background and waits, so that a signal's trap runs
# at once (bash runs traps only between foreground commands).
pause() {
	sleep "$(( $1 / 1000 )).$(printf %03d $(( $1 % 1000 )))" &
	sleeper=$!
	wait "$sleeper" || true
	sleeper=
}
start=$(ms)
for p in "${plan[@]}"; do
	read -r begin len <<<"$p"
	wait=$(( start + begin - $(ms) ))
	(( wait > 0 )) && pause "$wait"
	left=$(( start + total - $(ms) ))
	(( left <= 0 )) && break
	(( len > left )) && len=$left
	( while :; do :; done ) &
	burner=$!
	pause "$len"
	kill "$burner" 2>/dev/null || true
	wait "$burner" 2>/dev/null || true
	burner=
done
