# shellcheck shell=bash
# env/lib.sh: the helpers env/check and env/softroce share (sourced, never
# run). env/check --host sends this file ahead of itself to the remote
# bash, so it must stay plain function definitions.

# rd VAR FILE: first line of FILE into VAR; status 1 when unreadable/empty.
rd() {
	local __line=
	if { IFS= read -r __line || [[ -n $__line ]]; } <"$2" 2>/dev/null; then
		printf -v "$1" '%s' "$__line"
		return 0
	fi
	printf -v "$1" '%s' ''
	return 1
}

# have CMD: CMD is on PATH.
have() { command -v "$1" >/dev/null 2>&1; }
