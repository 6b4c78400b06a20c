#!/usr/bin/env bash
# ensure-loadgen.sh: make sure the load generator service workloads are driven
# with (hey, Debian package hey) is installed. Why hey and not wrk: hey ends a
# timed load by letting every request in flight finish and reports each one,
# so the requests it completed are the requests the server handled (the
# handler's exact call count); wrk stops with requests in flight that the
# server still serves. docs/suite.md, "Services".
#
# Idempotent and quiet: prints nothing when hey is already there.
set -euo pipefail
SAY_AS=ensure-loadgen
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

command -v hey >/dev/null 2>&1 && exit 0

apt_install "the load generator hey" hey || exit 1
command -v hey >/dev/null 2>&1 || { say "installed hey but it is still not on PATH"; exit 1; }
