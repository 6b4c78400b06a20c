# lib.sh: helpers the install scripts share. Source it; set SAY_AS first.
say() { echo "${SAY_AS:-vbench}: $*" >&2; }

# as_root runs a command as root: directly, through sudo, or not at all.
as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
		say "need root to run: $*"
		return 1
	fi
}

# apt_install WHAT PACKAGE...: installs Debian packages quietly (apt's
# chatter goes to a log shown only when something fails), or says why not
# and returns 1; WHAT names the missing tool in the messages.
apt_install() {
	local what=$1 log
	shift
	if ! command -v apt-get >/dev/null; then
		say "$what is missing and this is not a Debian-like system; install $what and put it on PATH."
		return 1
	fi
	say "installing $*"
	log=$(mktemp)
	if ! { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends "$@"; } >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		say "apt-get failed; install $* by hand"
		return 1
	fi
	rm -f "$log"
	hash -r
}
