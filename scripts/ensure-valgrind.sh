#!/usr/bin/env bash
# ensure-valgrind.sh: make sure valgrind is installed (Debian package
# valgrind): `metric: instructions` runs every process under its cachegrind
# tool and counts the instructions it executes (docs/instructions.md), and the tests and CI's gate do so.
#
# Idempotent and quiet: prints nothing when valgrind is already there and runs.
set -euo pipefail
SAY_AS=ensure-valgrind
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

valgrind --version >/dev/null 2>&1 && exit 0

apt_install valgrind valgrind || exit 1
valgrind --version >/dev/null 2>&1 || { say "installed valgrind but it does not run"; exit 1; }
