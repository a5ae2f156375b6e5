#!/usr/bin/env bash
# The whole test suite: Check unit suites, then the end-to-end suites against
# private daemons, as root and (when run as root) again as an unprivileged
# user (made for the run and removed after, unless it was there). Ends with
# one line "N passed, N failed".
#   BIN=bin|bin-san [E2E_K=NAME] [E2E_JOBS=2] tests/run.sh [unit|e2e|all]
# E2E_K is pytest's -k (a substring of the test's name or module; a
# "module.test" form is taken as both).
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
MODE=${1:-all}
TEST_USER=${SBOX_TEST_USER:-sboxtest}
passed=0
failed=0
failures=()

# Everything the suites make in a temporary folder goes under one private
# TMPDIR, removed at the end: a run leaves nothing in /tmp (processes a test
# left behind may still write there, so wait for them first).
RUN_TMP=$(mktemp -d /tmp/sbox-test-run.XXXXXX)
chmod 755 "$RUN_TMP"
export TMPDIR=$RUN_TMP
cleanup_tmp() {
	rm -rf "$RUN_TMP" 2>/dev/null || { sleep 1; rm -rf "$RUN_TMP"; }
}
trap cleanup_tmp EXIT

# Run one Check suite into $RUN_TMP/unit/NAME.out (its exit status in
# NAME.rc).
unit_one() {
	local t=$1 o=$RUN_TMP/unit/$(basename "$1")
	CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-60} "$t" >"$o.out" 2>&1
	echo $? >"$o.rc"
}

# Add the counts of one Check suite that ran (unit_one).
run_unit() {
	local t=$1 out line n f e rc o=$RUN_TMP/unit/$(basename "$1")
	out=$(cat "$o.out" 2>/dev/null)
	rc=$(cat "$o.rc" 2>/dev/null || echo 255)
	printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks|:[FE]:' | sed "s|^|  $(basename "$t"): |"
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks' | tail -n 1)
	if [ -z "$line" ]; then
		failed=$((failed + 1)); failures+=("$(basename "$t") (no result, exit $rc)")
		printf '%s\n' "$out" | tail -n 20
		return
	fi
	n=$(sed -E 's/.*Checks: ([0-9]+).*/\1/' <<<"$line")
	f=$(sed -E 's/.*Failures: ([0-9]+).*/\1/' <<<"$line")
	e=$(sed -E 's/.*Errors: ([0-9]+).*/\1/' <<<"$line")
	passed=$((passed + n - f - e))
	failed=$((failed + f + e))
	[ $((f + e)) -eq 0 ] && [ "$rc" -eq 0 ] || failures+=("$(basename "$t")")
}

# pytest of a Python that has it (Debian's python3-pytest): the first of
# $PYTHON, python3 and /usr/bin/python3 that imports pytest; with
# python3-pytest-xdist, the modules run on two workers (a module's tests stay
# in one worker: some share a daemon).
PY=
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import pytest' >/dev/null 2>&1; then PY=$(command -v "$p"); break; fi
done
PYTEST_ARGS=(-q -rfEs)
if [ -n "$PY" ] && "$PY" -c 'import xdist' >/dev/null 2>&1 && [ "${E2E_JOBS:-2}" -gt 1 ]; then
	PYTEST_ARGS+=(-p xdist -n "${E2E_JOBS:-2}" --dist loadfile)
fi
[ -n "${E2E_K:-}" ] && PYTEST_ARGS+=(-k "${E2E_K//./ and }")

# Add the counts of pytest's last line ("N failed, N passed, N skipped in
# Ns"); errors count as failures.
count_e2e() {
	local out=$1 who=$2 line p f e
	line=$(grep -E '^[= ]*(no tests ran|[0-9]+ (passed|failed|skipped|errors?|deselected))' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		failed=$((failed + 1)); failures+=("e2e as $who (no result)")
		tail -n 30 "$out"
		return
	fi
	p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	e=$(grep -oE '[0-9]+ errors?' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	passed=$((passed + p)); failed=$((failed + f + e))
	[ $((f + e)) -eq 0 ] || failures+=("e2e as $who: $(grep -E '^(FAILED|ERROR) ' "$out" | sed -E 's/^(FAILED|ERROR) ([^ ]*).*/\2/' | tr '\n' ' ')")
}

if [ "$MODE" = all ] || [ "$MODE" = unit ]; then
	echo "== unit suites ($BIN)"
	# the suites are independent: as many at a time as there are cores,
	# but test-confine alone first (its fork bomb fills the sandbox uid's
	# process limit, which the other suites' containers share)
	mkdir -p "$RUN_TMP/unit"
	export -f unit_one
	export RUN_TMP
	[ -x "$BIN/tests/test-confine" ] && unit_one "$BIN/tests/test-confine"
	for t in "$BIN"/tests/test-*; do
		[ -x "$t" ] && [ "${t##*/}" != test-confine ] && printf '%s\0' "$t"
	done | xargs -0 -r -n 1 -P "$(nproc 2>/dev/null || echo 2)" bash -c 'unit_one "$1"' unit_one
	for t in "$BIN"/tests/test-*; do
		[ -x "$t" ] && run_unit "$t"
	done
fi

if [ "$MODE" = all ] || [ "$MODE" = e2e ]; then
	out=$RUN_TMP/e2e.out
	if [ -z "$PY" ]; then
		echo "sbox: no python3 with pytest; install python3-pytest python3-pytest-xdist (make deps)"
		exit 1
	fi
	# One lock for both runs (root's and the test user's, which run side
	# by side): a test that changes what every sandbox sees (files planted
	# in /etc, RUN_ALONE) runs while no other test of either run does.
	export SBOX_E2E_LOCK=$RUN_TMP/e2e-alone.lock
	: >"$SBOX_E2E_LOCK" && chmod 666 "$SBOX_E2E_LOCK"
	user_pid=
	if [ "$(id -u)" = 0 ]; then
		if ! id "$TEST_USER" >/dev/null 2>&1; then
			useradd -m -s /bin/sh "$TEST_USER" && made_user=1
		fi
		# The clone may sit in a folder the test user cannot enter: copy
		# what the suite needs to a world-readable place.
		stage=$(mktemp -d "$RUN_TMP/sbox-e2e.XXXXXX")
		chmod 755 "$stage"
		mkdir -p "$stage/tests"
		cp -a "$BIN" "$stage/$BIN"
		# a sanitizer build cannot run inside a sandbox: tests use the
		# plain sbox beside it for commands inside
		if [ "$BIN" != bin ] && [ -x bin/sbox ]; then
			mkdir -p "$stage/bin" && cp -a bin/sbox "$stage/bin/sbox"
		fi
		cp -a tests/e2e "$stage/tests/e2e" && cp -a tests/agents "$stage/tests/agents"
		mkdir -p "$stage/protocol" && cp protocol/PROTOCOL.md protocol/error.h "$stage/protocol/"
		cp -a systemd launchd docs "$stage/"
		# sboxd finds the protected names beside its bin/ (no sandbox
		# starts without them)
		mkdir -p "$stage/policy" && cp policy/protected.default \
		    policy/registries.default policy/providers.default "$stage/policy/"
		# test_install runs `make install` of the staged binaries
		cp Makefile "$stage/"
		chmod -R a+rX "$stage"
		user_tmp=$RUN_TMP/user
		mkdir -p "$user_tmp" && chown "$TEST_USER" "$user_tmp" && chmod 700 "$user_tmp"
		# (the staged copy is read-only for the user: no pytest cache there)
		ucmd="cd '$stage' && SBOX_E2E_LOCK='$SBOX_E2E_LOCK' TMPDIR='$user_tmp' HOME=\$(getent passwd $TEST_USER | cut -d: -f6) PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 $(printf '%q ' "$PY" -m pytest "${PYTEST_ARGS[@]}" -p no:cacheprovider --bin="$BIN" tests/e2e)"
		# the two runs wait on sandboxes more than on the CPU: side by side
		su "$TEST_USER" -s /bin/sh -c "$ucmd" </dev/null >"$out.user" 2>&1 &
		user_pid=$!
	fi
	echo "== end-to-end as $(id -un) ($BIN)"
	PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 "$PY" -m pytest "${PYTEST_ARGS[@]}" --bin="$BIN" tests/e2e </dev/null 2>&1 | tee "$out"
	count_e2e "$out" "$(id -un)"
	if [ -n "$user_pid" ]; then
		wait "$user_pid"
		echo "== end-to-end as $TEST_USER ($BIN)"
		cat "$out.user"
		count_e2e "$out.user" "$TEST_USER"
		rm -rf "$stage" "$out.user"
	fi
	rm -f "$out" "$SBOX_E2E_LOCK"
fi

# The test user goes again if this run made it (with its home folder).
if [ "${made_user:-0}" = 1 ]; then
	userdel -r "$TEST_USER" >/dev/null 2>&1 || { sleep 1; userdel -r "$TEST_USER" >/dev/null 2>&1; } ||
		echo "sbox: could not remove the test user $TEST_USER"
fi

for f in "${failures[@]}"; do echo "failed: $f"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
