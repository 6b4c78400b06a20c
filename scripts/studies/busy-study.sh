#!/usr/bin/env bash
# busy-study.sh: does `vbench run --against` still decide on a busy shared
# runner, in minutes? The issue-40 study: REPS times each, alternating which
# goes first, with scripts/neighbour.sh (seeded by the repetition) keeping one
# core busy in random bursts throughout,
#
#   A/A: SUITE --against a copy of the same build. Passes when it exits 0
#        with no pair regressed or improved and at most 2 inconclusive; a
#        false verdict is any pair regressed or improved.
#   A/B: SUITE with the slow build (make slow-profiler: ~+10% on tracing
#        fibonacci) as NEW --against the build. Caught when it exits 1 with
#        fibonacci/tracing regressed and no cell but tracing ones regressed.
#
# Prints a line per run (exit, wall time, verdicts, why the pairs stopped)
# and the counts with N and an exact (Clopper-Pearson) 95% interval. A
# measurement, not a test: ~2 x REPS runs of up to BUDGET each.
#
#   scripts/studies/busy-study.sh [REPS] [DIR] [vbench run flags...]
#   scripts/studies/busy-study.sh 10 out/busy-study            # the issue's 10 of each (~3 h)
#   BUDGET=8m SUITE=benchmarks/quick.yaml scripts/studies/busy-study.sh 2 out/busy-study
#   scripts/studies/busy-study.sh 0 out/busy-study             # tally the runs DIR holds
#   FIRST=3 SIDES=ab SLOW=out/slow10.so scripts/studies/busy-study.sh 1 out/busy-study   # one more A/B, another slow build
#
# SLOW names another slow build, e.g. one built with
# CGO_CFLAGS="-O2 -g -DVB_SLOW_SPINS=2" (make slow-profiler's 3: +10% on
# fibonacci under tracing; docs/notebook/statistical-quality.md, "A known regression").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
reps=${1:-2} dir=${2:-out/busy-study}
shift $(( $# > 2 ? 2 : $# ))
suite=${SUITE:-benchmarks/quick.yaml} budget=${BUDGET:-8m} first=${FIRST:-1} sides=${SIDES:-aa ab}
# The builds it measures live in DIR/bin (a rebuild of bin/ meanwhile cannot
# touch them); DIR/same-build holds the copy an A/A run is --against.
bin=$dir/bin
mkdir -p "$dir/same-build" "$bin"
if (( reps > 0 )); then
	make -s build slow-profiler BIN="$bin"
	cp "$bin/libvbenchprof.so" "$dir/same-build/libvbenchprof.so"
fi
slow=${SLOW:-$bin/libvbenchprof-slow.so}
for ((i = first; i < first + reps; i++)); do
	read -ra order <<<"$sides"
	(( i % 2 == 0 )) && read -ra order <<<"$(echo "$sides" | tr ' ' '\n' | tac | tr '\n' ' ')"
	for side in "${order[@]}"; do
		new=$bin/libvbenchprof.so against=$dir/same-build/libvbenchprof.so
		[[ $side == ab ]] && new=$slow against=$bin/libvbenchprof.so
		scripts/neighbour.sh -s "$i" -d 3600 &
		nb=$!
		start=$(date +%s)
		rc=0
		"$bin/vbench" run "$suite" --quiet --no-baseline --no-step-summary --budget "$budget" --seed "$i" \
			--profiler "$new" --against "$against" --json "$dir/$i-$side.json" "$@" >"$dir/$i-$side.txt" 2>&1 || rc=$?
		kill "$nb"; wait "$nb" || true
		echo "$rc $(( $(date +%s) - start )) $(uptime | sed 's/.*average: //')" >"$dir/$i-$side.exit"
		echo "busy-study: rep $i $side: exit $rc, $(( $(date +%s) - start )) s" >&2
	done
done

# One line per run: side rep exit seconds regressed improved inconclusive pairs fibtracing-regressed nontracing-regressed
for f in "$dir"/*-a[ab].json; do
	base=${f%.json} side=${base##*-} rep=$(basename "${base%-*}")
	read -r rc secs _ <"$base.exit"
	jq -r --arg side "$side" --arg rep "$rep" --arg rc "$rc" --arg secs "$secs" '
		[.results[] | select(.compare != null and ((.compare.against // "") != "" or (.compare.against_workload // "") != ""))] as $p
		| [$side, $rep, $rc, $secs,
		   ($p | map(select(.verdict == "regressed")) | length),
		   ($p | map(select(.verdict == "improved")) | length),
		   ($p | map(select(.verdict == "inconclusive")) | length),
		   ($p | length),
		   ([.results[] | select(.workload == "fibonacci" and .mode == "tracing" and .verdict == "regressed")] | length),
		   ([.results[] | select(.verdict == "regressed" and (.mode | startswith("tracing") | not))] | length),
		   ([$p[] | .stopped // "" | sub(" after [0-9]+ rounds"; "") | sub(" at its planned [0-9]+ rounds"; " planned") | sub(" of [0-9]+ rounds"; "") | sub(" \\(.*"; "") | sub(":.*same"; ": same")] | group_by(.) | map("\(length)x \(.[0])") | join("; "))]
		| @tsv' "$f"
done | awk -F'\t' '
	# Clopper-Pearson: the p at which P(X >= k) (lower) or P(X <= k) (upper) is 2.5%.
	function cdf(k, n, p,   i, s, t) { s = 0; t = (1 - p)^n; for (i = 0; i <= k; i++) { s += t; t *= (n - i) / (i + 1) * p / (1 - p) } return s }
	function lo(k, n,   a, b, m, j) { if (k == 0) return 0; a = 0; b = 1; for (j = 0; j < 60; j++) { m = (a + b) / 2; if (1 - cdf(k - 1, n, m) < 0.025) a = m; else b = m } return a }
	function hi(k, n,   a, b, m, j) { if (k == n) return 1; a = 0; b = 1; for (j = 0; j < 60; j++) { m = (a + b) / 2; if (cdf(k, n, m) > 0.025) a = m; else b = m } return a }
	function rate(k, n) { return n ? sprintf("%d/%d [95%%: %.0f%%-%.0f%%]", k, n, 100 * lo(k, n), 100 * hi(k, n)) : "0/0" }
	{
		side = $1; n[side]++; secs[side] = secs[side] " " $4; if ($4 > maxs[side]) maxs[side] = $4
		printf "%s rep %s: exit %s, %d s; %d regressed, %d improved, %d inconclusive of %d pairs; stopped: %s\n", toupper(substr(side,1,1)) "/" toupper(substr(side,2,1)), $2, $3, $4, $5, $6, $7, $8, $11
		if (side == "aa") { if ($5 + $6 > 0) false++; if ($3 == 0 && $5 + $6 == 0 && $7 <= 2) aapass++ }
		if (side == "ab") { if ($3 == 1 && $9 > 0 && $10 == 0) caught++ }
		if ($4 <= 480) intime[side]++
	}
	END {
		printf "\nA/A runs with a false verdict (a pair regressed or improved): %s\n", rate(false + 0, n["aa"])
		printf "A/A runs that pass the issue (exit 0, none decided wrongly, <= 2 inconclusive): %s\n", rate(aapass + 0, n["aa"])
		printf "A/B runs that caught the slow build (exit 1, fibonacci/tracing regressed, nothing but tracing regressed): %s\n", rate(caught + 0, n["ab"])
		printf "runs within 8 minutes: A/A %s, A/B %s; wall seconds: A/A%s; A/B%s\n", rate(intime["aa"] + 0, n["aa"]), rate(intime["ab"] + 0, n["ab"]), secs["aa"], secs["ab"]
	}'
