#!/usr/bin/env bash
# ensure-speedscope.sh: make sure speedscope's own web build (its npm
# package, pinned) is in a cache directory outside the repository, for the
# check that speedscope opens every file vbench writes in its format and
# the Chrome trace JSON (cmd/vbench/cli/speedscope_test.go serves it on
# localhost to headless Chromium: scripts/ensure-chromium.sh).
#
# Prints the directory holding speedscope's index.html. Idempotent: quiet
# when it is already there. VBENCH_CACHE overrides ~/.cache/vbench.
set -euo pipefail
SAY_AS=ensure-speedscope
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSION=1.25.0
dir="${VBENCH_CACHE:-$HOME/.cache/vbench}/speedscope-$VERSION"
find_index() { find "$dir/node_modules/speedscope/dist" -name index.html -print -quit 2>/dev/null; }

if [ -z "$(find_index)" ]; then
	command -v npm >/dev/null || apt_install npm npm || exit 1
	mkdir -p "$dir"
	say "installing speedscope@$VERSION into $dir"
	log=$(mktemp)
	if ! (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts --prefix "$dir" "speedscope@$VERSION") >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		say "npm install speedscope@$VERSION failed"
		exit 1
	fi
	rm -f "$log"
fi
index=$(find_index)
[ -n "$index" ] || { say "speedscope@$VERSION has no index.html under $dir/node_modules/speedscope/dist"; exit 1; }
dirname "$index"
