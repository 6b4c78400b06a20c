#!/usr/bin/env bash
# build.sh: rebuild VbenchDoctor.dll (committed, embedded in bin/vbench) with
# the SDK's C# compiler against Facade.cs; see Facade.cs for why.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
root=$(dirname "$(readlink -f "$(command -v dotnet)")")
csc=$(ls -d "$root"/sdk/*/Roslyn/bincore/csc.dll | sort -V | tail -1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dotnet "$csc" -nologo -nostdlib -noconfig -deterministic -runtimemetadataversion:v4.0.30319 \
  -target:library -out:"$tmp/System.Runtime.dll" Facade.cs
dotnet "$csc" -nologo -nostdlib -noconfig -deterministic -target:exe \
  -reference:"$tmp/System.Runtime.dll" -out:VbenchDoctor.dll VbenchDoctor.cs
