#!/usr/bin/env bash
# ensure-go.sh: make sure a Go toolchain >= 1.23 is installed.
#
# A fresh machine of our kind has the .NET SDK but no Go. Go 1.23 comes from
# Debian backports, fetched from the same mirror and with the same keyring as
# the machine's own Debian source (so nothing here names a host).
set -euo pipefail
SAY_AS=ensure-go
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

go_ok() {
	command -v go >/dev/null 2>&1 || return 1
	local v
	v=$(go env GOVERSION 2>/dev/null || true) # e.g. go1.23.5
	[[ $v =~ ^go1\.([0-9]+) ]] || return 1
	((BASH_REMATCH[1] >= 23))
}

go_ok && exit 0


if ! command -v apt-get >/dev/null; then
	say "Go >= 1.23 is missing and this is not a Debian-like system; install Go 1.23 and put it on PATH."
	exit 1
fi

. /etc/os-release
codename=${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}
list=/etc/apt/sources.list.d/vbench-backports.sources

if ! grep -rqs "${codename}-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
	# Take the URI and keyring of the machine's main Debian entry (deb822 or one-line format).
	uri="" keyring=""
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		uri=$(awk '/^URIs:/ && !/security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
		keyring=$(awk '/^Signed-By:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
	fi
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(awk '$1=="deb" && $0 !~ /security/ {for(i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' /etc/apt/sources.list)
	fi
	[ -n "$uri" ] || { say "cannot find the machine's Debian mirror in /etc/apt; install golang-go (>= 1.23) by hand."; exit 1; }
	[ -n "$keyring" ] || keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	say "adding ${codename}-backports from $uri"
	printf 'Types: deb\nURIs: %s\nSuites: %s-backports\nComponents: main\nSigned-By: %s\n' \
		"$uri" "$codename" "$keyring" | as_root tee "$list" >/dev/null
fi

say "installing golang-go from ${codename}-backports"
as_root apt-get update -qq >&2
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t "${codename}-backports" golang-go >&2
hash -r
go_ok || { say "installed golang-go but 'go' is still missing or older than 1.23"; exit 1; }
say "$(go version)"
