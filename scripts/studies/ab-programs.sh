#!/bin/sh
# Two builds of a program as a pair of workloads, N times: how often each
# verdict comes out (docs/notebook/measurements.md, "Two builds of a program").
#   scripts/studies/ab-programs.sh [N] [SUITE]    (default 10, benchmarks/ab/wordfreq.yaml)
# Needs bin/vbench and bin/libvbenchprof.so (make build) and jq. Each run's
# results go to out/ab/run-<i>.json; the tally lists every judged cell's
# verdicts over the runs, then its changes (ratios NEW/OLD), run by run,
# then the function each regressed cell's explain names first, run by run.
set -eu
n=${1:-10}
suite=${2:-benchmarks/ab/wordfreq.yaml}
mkdir -p out/ab
i=1
while [ "$i" -le "$n" ]; do
	# exit 1 is a regression: the point of the measurement, not a failure
	bin/vbench run "$suite" --quiet --no-step-summary --json "out/ab/run-$i.json" >/dev/null || [ $? -eq 1 ]
	i=$((i + 1))
done
i=1
while [ "$i" -le "$n" ]; do
	jq -r '.results[] | select(.compare.against_workload != null) | "\(.workload)/\(.mode) \(.verdict) \(.compare.ratio)"' "out/ab/run-$i.json"
	i=$((i + 1))
done | sort | awk '
	{ key = $1; v[key, $2]++; seen[key] = 1; vs[$2] = 1; r[key] = r[key] " " $3 }
	END {
		for (k in seen) {
			line = k ":"
			for (x in vs) if (v[k, x]) line = line " " x " " v[k, x]
			print line "; changes" r[k]
		}
	}' | sort
echo "first function of explain, regressed cells:"
i=1
while [ "$i" -le "$n" ]; do
	jq -r '.results[] | select(.compare.against_workload != null and .verdict == "regressed") | "\(.workload)/\(.mode) \(.compare.explain[0].function // "-")"' "out/ab/run-$i.json"
	i=$((i + 1))
done | sort | uniq -c
