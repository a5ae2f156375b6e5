#!/usr/bin/env bash
# bench-npm-cache.sh: the figures of issue 11 (package caches of sbox's
# own, per project and profile). A real `npm ci` of a small lockfile (three small
# packages without dependencies) from the npm registry this machine
# reaches (its address comes from `npm config get registry` at run time):
#  - in a new session of a fresh profile cache: cold;
#  - in a second new session of the same profile: warm (sbox's cache);
#  - on the host, with a warm host cache (a private HOME, warmed first).
# Target: the warm sandbox install within 1.3x of the warm host install.
# The registry resolves to a non-public address here, so the bench profile
# names its host in private_hosts and hosts. Never fails on a time; skips
# (exit 0, with a message) when npm or the registry is unavailable.
set -u
BIN=${BIN:-$(pwd)/bin}
RUNS=${BENCH_NPM_RUNS:-5}
PKGS='"ms": "2.1.3", "is-number": "7.0.0", "escape-string-regexp": "4.0.0"'

skip() { echo "   skipped: $*"; exit 0; }

command -v npm >/dev/null && command -v node >/dev/null ||
	skip "npm is not installed"
reg=$(npm_config_update_notifier=false npm config get registry 2>/dev/null) || skip "npm config get registry failed"
host=$(node -e 'console.log(new URL(process.argv[1]).hostname)' "$reg" 2>/dev/null) ||
	skip "the registry address is not a URL"
code=$(curl -s -o /dev/null -m 15 -w '%{http_code}' "${reg%/}/ms" 2>/dev/null)
[ "$code" = 200 ] || skip "the registry does not answer (HTTP ${code:-none})"

work=$(mktemp -d /tmp/sbox-bench-npm.XXXXXX)
chmod 755 "$work"
mkdir -p "$work/home" "$work/hosthome" "$work/proj/app" "$work/host/app"
mkdir -m 700 "$work/run" "$work/state"
export HOME="$work/home"
export SBOX_SOCKET="$work/run/sboxd.sock"
sboxd_pid=

cleanup() {
	if [ -n "$sboxd_pid" ]; then
		kill -TERM "$sboxd_pid" 2>/dev/null
		wait "$sboxd_pid" 2>/dev/null
	fi
	chmod -R u+rwx "$work" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

npm_env=(npm_config_registry="$reg" npm_config_update_notifier=false
	npm_config_fund=false npm_config_audit=false npm_config_logs_max=0)
install='rm -rf node_modules && npm ci --no-audit --no-fund --loglevel=error >/dev/null'

# The lockfile, made on the host with its own private cache.
printf '{"name": "bench-app", "version": "1.0.0", "dependencies": {%s}}\n' \
	"$PKGS" >"$work/host/app/package.json"
(cd "$work/host/app" && env HOME="$work/hosthome" "${npm_env[@]}" \
	npm install --package-lock-only --loglevel=error >/dev/null 2>"$work/lock.err") ||
	{ sed 's/^/   /' "$work/lock.err" | head -5; skip "cannot make the lockfile"; }
cp "$work/host/app/package.json" "$work/host/app/package-lock.json" \
	"$work/proj/app/"

# Milliseconds of a shell command.
ms_of() {
	local t0 t1
	t0=$(date +%s%N)
	sh -c "$1" || return 1
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000000 ))
}

# The median of numbers, one per line.
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# Host, warm cache: one install to warm it, then RUNS timed.
host_cmd="cd '$work/host/app' && env HOME='$work/hosthome' ${npm_env[*]} sh -c '$install'"
ms_of "$host_cmd" >/dev/null || skip "npm ci on the host failed"
host_ms=$(for _ in $(seq "$RUNS"); do ms_of "$host_cmd"; done | median)

# sboxd with a profile that may reach the registry's (private) address.
printf '{"sandbox": {"profiles": {"bench": {"extends": "workspace", "hosts": ["%s"], "private_hosts": ["%s"]}}}}\n' \
	"$host" "$host" >"$work/config.json"
"$BIN/sboxd" --foreground --socket "$SBOX_SOCKET" --state-dir "$work/state" \
	--config "$work/config.json" --log-level warn >"$work/sboxd.log" 2>&1 &
sboxd_pid=$!
for _ in $(seq 100); do [ -S "$SBOX_SOCKET" ] && break; sleep 0.05; done
[ -S "$SBOX_SOCKET" ] || { echo "   sboxd did not start"; cat "$work/sboxd.log"; exit 1; }

# A new session of the bench profile (the client's environment carries the
# registry to npm inside).
new_session() {
	env -i PATH="$PATH" HOME="$HOME" SBOX_SOCKET="$SBOX_SOCKET" "${npm_env[@]}" \
		"$BIN/sbox" session create --project "$work/proj" --sandbox bench
}
in_sandbox() { echo "'$BIN/sbox' session exec $1 --cwd '$work/proj/app' -- sh -c '$install'"; }

sid=$(new_session) || { echo "   session create failed"; cat "$work/sboxd.log"; exit 1; }
cold_ms=$(ms_of "$(in_sandbox "$sid")") ||
	{ echo "   npm ci in the sandbox failed"; tail -5 "$work/sboxd.log"; exit 1; }
"$BIN/sbox" session close "$sid" >/dev/null
sid=$(new_session) || exit 1
first_warm_ms=$(ms_of "$(in_sandbox "$sid")") || exit 1
warm_ms=$( (echo "$first_warm_ms"; for _ in $(seq $((RUNS - 1))); do
	ms_of "$(in_sandbox "$sid")"; done) | median)
"$BIN/sbox" session close "$sid" >/dev/null
# the project's own caches of the profile (caches/<profile>/projects/<key>)
cache_kb=$(du -sk "$work/state/caches/bench/projects/"*/npm | cut -f1)

printf '   %-44s %8s\n' "npm ci, 3 packages (median of $RUNS)" "ms"
printf '   %-44s %8d\n' "host, warm host cache" "$host_ms"
printf '   %-44s %8d\n' "sandbox, new session, cold sbox cache" "$cold_ms"
printf '   %-44s %8d\n' "sandbox, second new session, warm (first)" "$first_warm_ms"
printf '   %-44s %8d\n' "sandbox, warm (median)" "$warm_ms"
printf '   %-44s %8d\n' "sbox's npm cache of the project (KiB)" "$cache_kb"
awk -v w="$warm_ms" -v h="$host_ms" 'BEGIN {
	r = h > 0 ? w / h : 0
	printf "   warm sandbox / warm host: %.2fx (goal <= 1.3x: %s)\n", r,
	    r <= 1.3 ? "met" : "not met"
}'
exit 0
