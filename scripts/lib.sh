# lib.sh: helpers the install scripts share. Source it; set SAY_AS first.
say() { echo "${SAY_AS:-vbench}: $*" >&2; }

# as_root runs a command as root: directly, through sudo, or not at all.
as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
		say "need root to run: $*"
		return 1
	fi
}
