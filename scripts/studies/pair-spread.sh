#!/usr/bin/env bash
# pair-spread.sh: how much do an A/B pair's per-round ratios spread under a
# shared runner's neighbour, with each schedule of a round? The same build on
# both sides (--against a copy: every true ratio is 1), the quick suite's
# five .NET workloads under tracing (ten cells a round), no adaptive rounds,
# scripts/neighbour.sh running throughout. The schedules alternate (pairs
# then shuffle, then shuffle then pairs, ...), each repetition with its own
# neighbour seed shared by both schedules, so drift and the machine's other
# load hit both alike. Prints, per schedule, the spread of the per-round log
# ratios ln(NEW/OLD) of each pair (standard deviation; and the MAD x 1.4826,
# which bursts that hit one run of a pair do not dominate), per workload and
# pooled over them; results files stay in DIR.
#
#   scripts/studies/pair-spread.sh [REPS] [RUNS] [DIR]     (default 3 10 out/pair-spread)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
reps=${1:-3} runs=${2:-10} dir=${3:-out/pair-spread}
mkdir -p "$dir/same-build"
make -s build
cp bin/libvbenchprof.so "$dir/same-build/libvbenchprof.so"
uptime | sed 's/^/before: /' >&2
for ((i = 1; i <= reps; i++)); do
	order=(pairs shuffle)
	(( i % 2 == 0 )) && order=(shuffle pairs)
	for how in "${order[@]}"; do
		scripts/neighbour.sh -s "$i" -d 1800 &
		nb=$!
		start=$(date +%s)
		rc=0
		bin/vbench run benchmarks/quick.yaml --quiet --no-baseline --no-step-summary --format csv \
			--modes tracing --workloads fibonacci,mandelbrot,exceptions,dispatch,split \
			--runs "$runs" --max-runs "$runs" --seed "$i" --schedule "$how" \
			--against "$dir/same-build/libvbenchprof.so" --json "$dir/$i-$how.json" >/dev/null || rc=$?
		kill "$nb"; wait "$nb" || true
		echo "pair-spread: rep $i $how: exit $rc, $(( $(date +%s) - start )) s" >&2
	done
done
uptime | sed 's/^/after: /' >&2
# rep schedule workload ln(new/old) per round, then the spreads: per
# schedule and workload over the repetitions, and per repetition over the
# workloads (each value less its workload's mean in that repetition).
for f in "$dir"/*-*.json; do
	rep=$(basename "$f"); rep=${rep%%-*}
	jq -r --arg rep "$rep" '.settings.schedule as $s | (.results | map(select(.mode == "tracing@old")) | map({key: .workload, value: (.samples | map(select(.round > 0 and .error == null)) | map({key: (.round|tostring), value: .cpu_ns}) | from_entries)}) | from_entries) as $old
		| .results[] | select(.mode == "tracing") | .workload as $w | .samples[] | select(.round > 0 and .error == null)
		| select($old[$w][.round|tostring] != null) | "\($rep) \($s) \($w) \((.cpu_ns / $old[$w][.round|tostring]) | log)"' "$f"
done | awk '
	function isort(a, k,   i, j, t) { for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t } }
	function med(a, k) { isort(a, k); return (k % 2) ? a[(k+1)/2] : (a[k/2] + a[k/2+1]) / 2 }
	function sd(key,   m, s, i) { m = sum[key] / n[key]; s = 0; for (i = 1; i <= n[key]; i++) s += (x[key, i] - m)^2; return sqrt(s / (n[key] - 1)) }
	function mad(key,   a, d, i, k, m) { k = n[key]; for (i = 1; i <= k; i++) a[i] = x[key, i]; m = med(a, k)
		for (i = 1; i <= k; i++) d[i] = x[key, i] > m ? x[key, i] - m : m - x[key, i]; return 1.4826 * med(d, k) }
	function add(key, v) { n[key]++; x[key, n[key]] = v; sum[key] += v; keys[key] = 1 }
	{ add($2 SUBSEP $3, $4); r[NR] = $1; s[NR] = $2; w[NR] = $3; v[NR] = $4; cell = $1 SUBSEP $2 SUBSEP $3; cn[cell]++; cs[cell] += $4 }
	END {
		for (i = 1; i <= NR; i++) { cell = r[i] SUBSEP s[i] SUBSEP w[i]; add(s[i] SUBSEP "rep " r[i], v[i] - cs[cell] / cn[cell]) }
		printf "%-8s %-11s %4s %9s %9s\n", "schedule", "workload", "N", "sd", "mad*1.48"
		for (key in keys) { split(key, k, SUBSEP); printf "%-8s %-11s %4d %8.2f%% %8.2f%%\n", k[1], k[2], n[key], 100 * sd(key), 100 * mad(key) | "sort -k2,2 -k1,1" }
	}'
