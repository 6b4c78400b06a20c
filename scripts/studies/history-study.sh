#!/bin/bash
# Records the histories internal/history/recorded_test.go measures (issue 24,
# docs/notebook/measurements.md "History"): real invocations of a C# program that
# knows nothing of vbench (cmd/vbench/cli/testdata/csharp/plainapp, a sieve
# run ROUNDS times), metric wall, each `vbench run` appended by `vbench
# history append`. Per repetition: 8 invocations at 100 rounds then 4 at 105
# (5% more work) into step-N.jsonl, then 8 more at 100 into unchanged-N.jsonl.
# The machine is shared: each invocation waits until both cores were at
# least MINIDLE percent idle over the last 2 seconds (default 80). With
# CALIBRATE=1 every invocation also runs a calibration workload (the same
# program on a fixed, other amount of work: `calibration: cal`), whose
# series the history divides the program's by. Usage:
#   scripts/studies/history-study.sh OUTDIR [REPETITIONS] [MINUTES]
set -euo pipefail
out=$(realpath -m "${1:?usage: scripts/studies/history-study.sh OUTDIR [REPETITIONS] [MINUTES]}")
reps=${2:-3}
end=$(( $(date +%s) + 60 * ${3:-45} ))
minidle=${MINIDLE:-80}
root=$(cd "$(dirname "$0")/../.." && pwd)
vbench=${VBENCH:-$root/bin/vbench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cp "$root"/cmd/vbench/cli/testdata/csharp/plainapp/* "$work"/
dotnet build -c Release -o "$work/out" "$work/PlainApp.csproj" >/dev/null
for amount in 100 105; do
  cat > "$work/suite-$amount.yaml" <<YAML
name: histstep
runs: 5
warmup: 1
metric: wall
modes: [none]
timeout: 1m
workloads:
  - name: primes
    command: [dotnet, out/PlainApp.dll, "2000000", "$amount"]
YAML
  if [ "${CALIBRATE:-0}" = 1 ]; then
    cat >> "$work/suite-$amount.yaml" <<YAML
  - name: cal
    command: [dotnet, out/PlainApp.dll, "1500000", "120"]
calibration: cal
YAML
  fi
done
idle() { # percent of the CPUs' time idle over 2 seconds
  local a b
  a=($(head -1 /proc/stat)); sleep 2; b=($(head -1 /proc/stat))
  local total=0 i
  for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
  echo $(( 100 * (b[4] - a[4]) / (total > 0 ? total : 1) ))
}
invoke() { # amount history commit
  while [ "$(idle)" -lt "$minidle" ]; do
    [ "$(date +%s)" -ge "$end" ] && exit 0
  done
  [ "$(date +%s)" -ge "$end" ] && exit 0
  "$vbench" run "$work/suite-$1.yaml" --quiet --no-baseline --json "$work/r.json" --format json >/dev/null
  "$vbench" history append "$work/r.json" --history "$2" --commit "$3"
}
for rep in $(seq "$reps"); do
  for k in $(seq 8); do invoke 100 "$out/step-$rep.jsonl" "s$rep-$k"; done
  for k in $(seq 9 12); do invoke 105 "$out/step-$rep.jsonl" "s$rep-$k"; done
  for k in $(seq 8); do invoke 100 "$out/unchanged-$rep.jsonl" "u$rep-$k"; done
done
