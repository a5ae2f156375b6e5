#!/usr/bin/env bash
# sbox's benchmarks: runs every compiled bin/bench/bench-* (from
# tests/bench/bench-*.c) and every tests/bench/bench-*.sh, in name order, each
# as its own section. A section prints its own small table. Figures are
# reported, never judged: a slow machine does not fail `make bench`; only a
# benchmark that cannot run does.
#   BIN=bin|bin-san  tests/bench/run.sh [NAME...]
# A script section gets BIN (absolute) in its environment.
set -u
cd "$(dirname "$0")/../.."
BIN=${BIN:-bin}
export BIN=$(cd "$BIN" && pwd)
failed=()

# Every section as "name<TAB>command", sorted by name.
sections() {
	local f
	for f in "$BIN"/bench/bench-*; do
		[ -x "$f" ] && [ -f "$f" ] && printf '%s\t%s\n' "$(basename "$f")" "$f"
	done
	for f in tests/bench/bench-*.sh; do
		[ -f "$f" ] && printf '%s\t%s\n' "$(basename "$f" .sh)" "bash $f"
	done
}

echo "sbox benchmarks ($(uname -srm), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ))"
while IFS=$'\t' read -r name cmd; do
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "* | *" ${name#bench-} "*) ;; *) continue ;; esac
	fi
	echo
	echo "== $name"
	t0=$(date +%s)
	# shellcheck disable=SC2086
	$cmd </dev/null
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "   $name: could not run (exit $rc)"
		failed+=("$name")
	fi
	echo "   ($name took $(( $(date +%s) - t0 ))s)"
done < <(sections | sort)

echo
for f in "${failed[@]}"; do echo "bench failed to run: $f"; done
[ ${#failed[@]} -eq 0 ]
