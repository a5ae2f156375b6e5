#!/usr/bin/env bash
# bench-peers.sh: issue 38's figures, sbox beside its peers, side by side in
# one run, on the same machine, the same generated build and the same
# /bin/true:
#  - unsandboxed (the base of the build's ratios);
#  - bare bwrap: `bwrap --unshare-all --die-with-parent --ro-bind / / --dev
#    /dev --proc /proc` (the least a bwrap sandbox is: every namespace, the
#    host's tree read-only; the base of cold `sbox run`'s goal); for the
#    build it also gets a private /tmp and the build folder bound writable;
#  - firejail from Debian (installed with apt-get when root and absent):
#    `firejail --quiet --noprofile --net=none --caps.drop=all --seccomp
#    --nonewprivs`, a fair minimal profile (no network, no capabilities,
#    its default seccomp list);
#  - Codex's sandbox, npm @openai/codex at the version tests/agents pins
#    (its install there is reused: tests/e2e/agentlib.py; else installed
#    into the cache folder), its native binary run as `codex sandbox --
#    CMD` (read-only; `-c sandbox_mode="workspace-write"` for the build);
#  - Anthropic's sandbox-runtime, npm @anthropic-ai/sandbox-runtime at
#    SRT_VERSION, run as `srt -s SETTINGS -c CMD` (no network; writes in the
#    build folder and /tmp); on Linux it needs bwrap, socat and ripgrep
#    (installed from Debian when root);
#  - sbox: warm `sbox session exec ID --no-tty -- /bin/true` (beside
#    bin/bench/exec-floor, its floor), cold `sbox run -- /bin/true` (sboxd
#    running, no session: the run creates one, runs, closes it), and the
#    build in a warm workspace session (read reports on, the default).
# A peer that cannot be installed or cannot run here is printed as skipped
# with the reason. Each figure is one line a script can read:
#   bench: NAME RATIO goal GOAL met|unmet     (a figure with a goal)
#   bench: NAME RATIO                         (a peer: over the same base)
# As root it runs again as the unprivileged user (SBOX_TEST_USER, sboxtest,
# made like tests/run.sh makes it, removed if made here) from a staged copy.
# Timing: hyperfine's median per command (-N), ROUNDS rounds in a shuffled
# order, and the median of the per-round ratios. Never fails on a time;
# only when sbox itself cannot run.
# Knobs: BENCH_PEERS_ROUNDS (3), BENCH_PEERS_RUNS (30 a command a round),
# BENCH_PEERS_FILES (200), BENCH_PEERS_CACHE (/var/tmp/sbox-bench-peers),
# BENCH_PEERS_USER=0 (no user half).
set -u
BIN=${BIN:-$(pwd)/bin}
ROUNDS=${BENCH_PEERS_ROUNDS:-3}
RUNS=${BENCH_PEERS_RUNS:-30}
FILES=${BENCH_PEERS_FILES:-200}
SRT_VERSION=0.0.83
here=$(cd "$(dirname "$0")" && pwd)
who=$([ "$(id -u)" = 0 ] && echo root || echo user)
CACHE=${BENCH_PEERS_CACHE:-/var/tmp/sbox-bench-peers}
[ "$who" = user ] && CACHE="$CACHE-$(id -u)"
mkdir -p "$CACHE" || { echo "   cannot make $CACHE"; exit 1; }
work=$(mktemp -d /tmp/sbox-bench-peers.XXXXXX)
chmod 755 "$work"
sboxd_pid=
floor_pid=
stage=
made_user=0

cleanup() {
	[ -n "$floor_pid" ] && kill "$floor_pid" 2>/dev/null
	if [ -n "$sboxd_pid" ]; then
		kill -TERM "$sboxd_pid" 2>/dev/null
		wait "$sboxd_pid" 2>/dev/null
	fi
	rm -rf "$work"
	[ -n "$stage" ] && rm -rf "$stage"
	[ "$made_user" = 1 ] && userdel -r "${SBOX_TEST_USER:-sboxtest}" >/dev/null 2>&1
}
trap cleanup EXIT

bwrap=$(command -v bwrap) || { echo "   bwrap is not installed"; exit 1; }
command -v cc >/dev/null && command -v make >/dev/null ||
	{ echo "   cc and make are needed"; exit 1; }

# --- the peers: each sets its command prefix or a reason it is skipped ---
declare -A skip
# firejail: Debian's, installed when root.
fj=(firejail --quiet --noprofile --net=none --caps.drop=all --seccomp --nonewprivs)
if ! command -v firejail >/dev/null; then
	if [ "$who" = root ]; then
		apt-get install -y firejail >"$work/apt-fj.log" 2>&1 ||
			skip[firejail]="apt-get install firejail failed: $(tail -1 "$work/apt-fj.log")"
	else
		skip[firejail]="not installed (as root this bench installs it from Debian)"
	fi
fi
if [ -z "${skip[firejail]:-}" ] && ! "${fj[@]}" /bin/true >"$work/fj.log" 2>&1; then
	skip[firejail]="cannot run here: $(tail -1 "$work/fj.log")"
fi

# Codex: the version tests/agents pins; its native binary (not node's
# launcher: the sandbox is what is timed).
codex_ver=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dependencies"]["@openai/codex"])' \
	"$here/../agents/package.json" 2>/dev/null || echo 0.171.0)
codex_find() {
	local d
	for d in "${SBOX_AGENTS_DIR:-}" /var/tmp/sbox-agents-* "$CACHE/codex"; do
		[ -n "$d" ] || continue
		for f in "$d"/node_modules/@openai/codex-linux-*/vendor/*/bin/codex; do
			[ -x "$f" ] && "$f" --version 2>/dev/null | grep -qF "$codex_ver" &&
				{ echo "$f"; return 0; }
		done
	done
	return 1
}
codex=$(codex_find)
if [ -z "$codex" ]; then
	if command -v npm >/dev/null; then
		mkdir -p "$CACHE/codex"
		npm install --prefix "$CACHE/codex" --no-save --no-audit --no-fund \
			"@openai/codex@$codex_ver" >"$work/npm-codex.log" 2>&1
		codex=$(codex_find)
		[ -n "$codex" ] || skip[codex]="npm install @openai/codex@$codex_ver failed: $(tail -1 "$work/npm-codex.log")"
	else
		skip[codex]="npm is not installed"
	fi
fi
# Codex keeps helpers in its home, and refuses one under /tmp
chome="$CACHE/home"
mkdir -p "$chome"
cx=(env HOME="$chome" "$codex" sandbox)
if [ -z "${skip[codex]:-}" ] && ! (cd "$work" && "${cx[@]}" -- /bin/true) >"$work/cx.log" 2>&1; then
	skip[codex]="cannot run here: $(tail -1 "$work/cx.log")"
fi

# sandbox-runtime: npm, pinned; bwrap, socat and ripgrep on Linux.
srt="$CACHE/srt/node_modules/.bin/srt"
# (as a user, root's install of the same version is reused when readable)
base_srt="${BENCH_PEERS_CACHE:-/var/tmp/sbox-bench-peers}/srt/node_modules/.bin/srt"
[ -x "$srt" ] || ! "$base_srt" --version 2>/dev/null | grep -qF "$SRT_VERSION" ||
	srt=$base_srt
if ! command -v socat >/dev/null || ! command -v rg >/dev/null; then
	if [ "$who" = root ]; then
		apt-get install -y socat ripgrep >"$work/apt-srt.log" 2>&1 ||
			skip[srt]="apt-get install socat ripgrep failed: $(tail -1 "$work/apt-srt.log")"
	else
		skip[srt]="needs socat and ripgrep (as root this bench installs them from Debian)"
	fi
fi
if [ -z "${skip[srt]:-}" ] && ! "$srt" --version 2>/dev/null | grep -qF "$SRT_VERSION"; then
	if command -v npm >/dev/null; then
		mkdir -p "$CACHE/srt"
		npm install --prefix "$CACHE/srt" --no-save --no-audit --no-fund \
			"@anthropic-ai/sandbox-runtime@$SRT_VERSION" >"$work/npm-srt.log" 2>&1 ||
			skip[srt]="npm install @anthropic-ai/sandbox-runtime@$SRT_VERSION failed: $(tail -1 "$work/npm-srt.log")"
	else
		skip[srt]="npm is not installed"
	fi
fi
# its settings: no network; writes in the build folders and /tmp
printf '{"network": {"allowedDomains": [], "deniedDomains": []}, "filesystem": {"denyRead": [], "allowWrite": ["%s", "/tmp"], "denyWrite": []}}\n' \
	"$work" >"$work/srt.json"
st=(env HOME="$chome" "$srt" -s "$work/srt.json")
if [ -z "${skip[srt]:-}" ] && ! (cd "$work" && "${st[@]}" /bin/true) >"$work/srt.log" 2>&1; then
	skip[srt]="cannot run here: $(grep -v EBADENGINE "$work/srt.log" | tail -1)"
fi

# --- sbox: a private sboxd, a warm session, exec-floor beside it ---
mkdir -p "$work/home" "$work/proj"
mkdir -m 700 "$work/run" "$work/state"
export HOME="$work/home"
export SBOX_SOCKET="$work/run/sboxd.sock"
"$BIN/sboxd" --foreground --socket "$SBOX_SOCKET" --state-dir "$work/state" \
	--config "$work/config.json" --log-level warn >"$work/sboxd.log" 2>&1 &
sboxd_pid=$!
for _ in $(seq 100); do [ -S "$SBOX_SOCKET" ] && break; sleep 0.05; done
[ -S "$SBOX_SOCKET" ] || { echo "   sboxd did not start"; cat "$work/sboxd.log"; exit 1; }
git init -q "$work/proj"

# The build: the generated tree of bench-guard.sh (FILES small C files,
# headers, a Makefile), untarred and built with make -j2.
mkdir -p "$work/tree/src" "$work/tree/include"
for i in $(seq "$FILES"); do
	printf '#include "h%d.h"\nint f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d; return s; }\n' \
		"$i" "$i" "$i" >"$work/tree/src/f$i.c"
	printf 'int f%d(int x);\n' "$i" >"$work/tree/include/h$i.h"
done
printf 'int main(void) { return 0; }\n' >"$work/tree/src/main.c"
cat >"$work/tree/Makefile" <<'MK'
SRC := $(wildcard src/*.c)
OBJ := $(patsubst src/%.c,obj/%.o,$(SRC))
prog: $(OBJ)
	cc -o $@ $(OBJ)
obj/%.o: src/%.c | obj
	cc -O1 -Iinclude -c -o $@ $<
obj:
	mkdir -p obj
MK
tar -C "$work" -cf "$work/tree.tar" tree
rm -rf "$work/tree"
job='rm -rf build && mkdir build && tar -xf tree.tar -C build && make -s -C build/tree -j2 && test -x build/tree/prog'
cp "$work/tree.tar" "$work/proj/"

sid=$("$BIN/sbox" session create --project "$work/proj" --sandbox workspace) ||
	{ echo "   session create failed"; cat "$work/sboxd.log"; exit 1; }
"$BIN/sbox" session exec "$sid" --no-tty -- /bin/true ||
	{ echo "   sbox session exec failed"; exit 1; }
(cd "$work/proj" && "$BIN/sbox" run -- /bin/true 2>/dev/null) ||
	{ echo "   sbox run failed"; cat "$work/sboxd.log"; exit 1; }
"$BIN/bench/exec-floor" daemon "$work/floor.sock" "$bwrap" --unshare-all \
	--die-with-parent --ro-bind / / --dev /dev --proc /proc \
	>"$work/floor.log" 2>&1 &
floor_pid=$!
for _ in $(seq 100); do [ -S "$work/floor.sock" ] && break; sleep 0.05; done
"$BIN/bench/exec-floor" run "$work/floor.sock" /bin/true ||
	{ echo "   exec-floor failed"; cat "$work/floor.log"; exit 1; }

# --- /bin/true, every command side by side ---
bare=("$bwrap" --unshare-all --die-with-parent --ro-bind / / --dev /dev --proc /proc)
# A cold run is one that finds sboxd idle: each of those runs (and the
# bare bwrap beside them) follows IDLE_S seconds of nothing, untimed
# (hyperfine --prepare); back to back, a run comes while the session made
# ahead at the last one's close is still starting (the "-b2b" rows).
IDLE_S=${BENCH_PEERS_IDLE_S:-0.15}
tnames=(unsandboxed bwrap sbox-warm exec-floor sbox-cold bwrap-idle sbox-cold-b2b)
tcmds=("/bin/true" "${bare[*]} /bin/true"
	"$BIN/sbox session exec $sid --no-tty -- /bin/true"
	"$BIN/bench/exec-floor run $work/floor.sock /bin/true"
	"$BIN/sbox run -- /bin/true" "${bare[*]} /bin/true"
	"$BIN/sbox run -- /bin/true")
if [ -z "${skip[firejail]:-}" ]; then
	tnames+=(firejail); tcmds+=("${fj[*]} /bin/true")
fi
if [ -z "${skip[codex]:-}" ]; then
	tnames+=(codex); tcmds+=("env HOME=$chome $codex sandbox -- /bin/true")
fi
if [ -z "${skip[srt]:-}" ]; then
	tnames+=(srt); tcmds+=("env HOME=$chome $srt -s $work/srt.json /bin/true")
fi
have_hf=$(command -v hyperfine >/dev/null && echo 1 || echo 0)

# Seconds of one command: hyperfine's median of RUNS runs, or a loop's
# mean; with a second argument, each run after that many idle seconds.
time_true() {
	local prep=()
	[ -n "${2:-}" ] && prep=(--prepare "sleep $2")
	if [ "$have_hf" = 1 ]; then
		hyperfine -N --style none --warmup 3 --runs "$RUNS" "${prep[@]}" \
			--export-json "$work/h.json" "$1" >/dev/null 2>&1 || return 1
		python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$work/h.json"
	else
		python3 - "$1" "$RUNS" "${2:-0}" <<-'EOF'
		import shlex, subprocess, sys, time
		cmd, n, idle = shlex.split(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
		total = 0.0
		for _ in range(n):
		    time.sleep(idle)
		    t = time.perf_counter()
		    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
		    total += time.perf_counter() - t
		print(total / n)
		EOF
	fi
}
declare -A tt
cd "$work/proj" || exit 1	# sbox run's project is the folder it runs in
for r in $(seq "$ROUNDS"); do
	for k in $(printf '%s\n' "${!tnames[@]}" | shuf); do
		idle=
		case ${tnames[$k]} in sbox-cold|bwrap-idle) idle=$IDLE_S ;; esac
		t=$(time_true "${tcmds[$k]}" $idle) || {
			echo "   ${tnames[$k]}: /bin/true failed: ${tcmds[$k]}"
			case ${tnames[$k]} in firejail|codex|srt) t=nan ;; *) exit 1 ;; esac
		}
		tt[$k,$r]=$t
	done
done

# --- the build, each in a folder of its own, side by side ---
bnames=(unsandboxed bwrap sbox)
for n in unsandboxed bwrap firejail codex srt; do
	mkdir -p "$work/b-$n" && cp "$work/tree.tar" "$work/b-$n/"
done
for n in firejail codex srt; do
	[ -z "${skip[$n]:-}" ] && bnames+=("$n")
done
build_one() {
	local d="$work/b-$1"
	case $1 in
	unsandboxed) (cd "$d" && sh -c "$job") ;;
	bwrap) (cd "$d" && "${bare[@]}" --tmpfs /tmp --bind "$d" "$d" --chdir "$d" sh -c "$job") ;;
	firejail) (cd "$d" && "${fj[@]}" sh -c "$job") ;;
	codex) (cd "$d" && "${cx[@]}" -c 'sandbox_mode="workspace-write"' -- sh -c "$job") ;;
	srt) (cd "$d" && "${st[@]}" -c "$job") ;;
	sbox) "$BIN/sbox" session exec "$sid" --no-tty -- sh -c "$job" ;;
	esac
}
declare -A bt
for k in "${!bnames[@]}"; do	# a warm-up run each (and the check it builds)
	build_one "${bnames[$k]}" >"$work/build.log" 2>&1 || {
		case ${bnames[$k]} in
		firejail|codex|srt) skip[${bnames[$k]}]="the build failed in it: $(tail -1 "$work/build.log")" ;;
		*) echo "   the build failed (${bnames[$k]})"; cat "$work/build.log"; exit 1 ;;
		esac
	}
done
for r in $(seq "$ROUNDS"); do
	for k in $(printf '%s\n' "${!bnames[@]}" | shuf); do
		[ -n "${skip[${bnames[$k]}]:-}" ] && continue
		t0=$(date +%s.%N)
		build_one "${bnames[$k]}" >/dev/null 2>&1 || { bt[$k,$r]=nan; continue; }
		bt[$k,$r]=$(awk "BEGIN{print $(date +%s.%N) - $t0}")
	done
done

# --- the figures ---
# median of the numbers given (nan when there are none)
median() {
	printf '%s\n' "$@" | grep -v nan | sort -g | awk '{ v[NR] = $1 }
	    END { if (NR == 0) print "nan"; else print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# median over the rounds of A[k,r] / A[b,r] (A: tt or bt)
rmed() {
	local -n A=$1
	local r out=()
	for r in $(seq "$ROUNDS"); do
		out+=("$(awk -v a="${A[$2,$r]:-nan}" -v b="${A[$3,$r]:-nan}" \
		    'BEGIN { print (a == "nan" || b == "nan" || b == 0) ? "nan" : a / b }')")
	done
	median "${out[@]}"
}
idx() {	# index of name $2 in array named $1
	local -n L=$1
	local k
	for k in "${!L[@]}"; do [ "${L[$k]}" = "$2" ] && { echo "$k"; return; }; done
	echo -1
}
# one figure line: NAME RATIO [GOAL-OP GOAL]
line() {
	awk -v n="$1" -v r="$2" -v op="${3:-}" -v g="${4:-}" 'BEGIN {
	    if (r == "nan") { printf "bench: %s skipped (no run finished)\n", n; exit }
	    if (op == "") { printf "bench: %s %.2fx\n", n, r; exit }
	    ok = op == "<=" ? r <= g : r >= g
	    printf "bench: %s %.2fx goal %s%.2fx %s\n", n, r, op, g, ok ? "met" : "unmet" }'
}
for n in firejail codex srt; do
	[ -n "${skip[$n]:-}" ] && echo "   $n: skipped: ${skip[$n]}"
done
echo "   as $(id -un) ($who); $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg);" \
	"$ROUNDS rounds in shuffled order; ${RUNS} runs a command a round" \
	"(sbox-cold and bwrap-idle: each after ${IDLE_S}s idle)" \
	"($([ "$have_hf" = 1 ] && echo "hyperfine medians" || echo "loop means"))"
echo "   bare bwrap = ${bare[*]} CMD"
printf '   %-12s %12s %14s\n' "/bin/true" "median ms" "x bare bwrap"
b=$(idx tnames bwrap)
for k in "${!tnames[@]}"; do
	vals=()
	for r in $(seq "$ROUNDS"); do vals+=("${tt[$k,$r]}"); done
	printf '   %-12s %12.2f %14.2f\n' "${tnames[$k]}" \
	    "$(awk "BEGIN{print $(median "${vals[@]}") * 1000}")" "$(rmed tt "$k" "$b")"
done
printf '   %-12s %12s %14s\n' "build" "median s" "x unsandboxed"
u=$(idx bnames unsandboxed)
for k in "${!bnames[@]}"; do
	[ -n "${skip[${bnames[$k]}]:-}" ] && continue
	vals=()
	for r in $(seq "$ROUNDS"); do vals+=("${bt[$k,$r]}"); done
	printf '   %-12s %12.3f %14.3f\n' "${bnames[$k]}" "$(median "${vals[@]}")" "$(rmed bt "$k" "$u")"
done
# the goal rows, then the peers over the same bases (the goal printed is
# that of the comparable sbox row)
line "sbox-run-cold-over-bwrap-$who" "$(rmed tt "$(idx tnames sbox-cold)" "$(idx tnames bwrap-idle)")" "<=" 1.5
line "sbox-run-back-to-back-over-bwrap-$who" "$(rmed tt "$(idx tnames sbox-cold-b2b)" "$b")"
line "sbox-exec-warm-over-exec-floor-$who" "$(rmed tt "$(idx tnames sbox-warm)" "$(idx tnames exec-floor)")" "<=" 1.1
line "sbox-build-over-unsandboxed-$who" "$(rmed bt "$(idx bnames sbox)" "$u")" "<=" 1.03
line "sbox-exec-warm-over-bwrap-$who" "$(rmed tt "$(idx tnames sbox-warm)" "$b")" "<=" 1.5
for n in firejail codex srt; do
	if [ -n "${skip[$n]:-}" ]; then
		echo "bench: true-$n-$who skipped (${skip[$n]})"
		echo "bench: build-$n-$who skipped (${skip[$n]})"
		continue
	fi
	line "true-$n-over-bwrap-$who" "$(rmed tt "$(idx tnames "$n")" "$b")" "<=" 1.5
	line "build-$n-over-unsandboxed-$who" "$(rmed bt "$(idx bnames "$n")" "$u")" "<=" 1.03
done
line "build-bwrap-over-unsandboxed-$who" "$(rmed bt "$(idx bnames bwrap)" "$u")" "<=" 1.03

# --- as root: the same again as the unprivileged user ---
[ "$who" = root ] && [ "${BENCH_PEERS_USER:-1}" != 0 ] || exit 0
kill -TERM "$sboxd_pid" 2>/dev/null
wait "$sboxd_pid" 2>/dev/null
sboxd_pid=
kill "$floor_pid" 2>/dev/null
floor_pid=
user=${SBOX_TEST_USER:-sboxtest}
if ! id "$user" >/dev/null 2>&1; then
	useradd -m -s /bin/sh "$user" && made_user=1 ||
		{ echo "   as a user: skipped (cannot make user $user)"; exit 0; }
fi
# the build tree may sit where the user cannot enter: a world-readable copy
# (sboxd finds its data files in ../policy beside bin/)
stage=$(mktemp -d /tmp/sbox-bench-peers-stage.XXXXXX)
chmod 755 "$stage"
mkdir -p "$stage/tests/bench" "$stage/tests/agents" "$stage/policy"
cp -a "$BIN" "$stage/bin"
cp "$here/bench-peers.sh" "$stage/tests/bench/"
cp "$here/../agents/package.json" "$stage/tests/agents/"
cp "$here/../../policy/"*.default "$stage/policy/"
chmod -R a+rX "$stage"
echo
echo "   as $user:"
runuser -u "$user" -- env -i PATH="$PATH" LANG="${LANG:-C.UTF-8}" \
	HOME="$(getent passwd "$user" | cut -d: -f6)" BIN="$stage/bin" \
	BENCH_PEERS_ROUNDS="$ROUNDS" BENCH_PEERS_RUNS="$RUNS" \
	BENCH_PEERS_FILES="$FILES" BENCH_PEERS_CACHE="$CACHE" \
	SBOX_AGENTS_DIR="${SBOX_AGENTS_DIR:-}" \
	bash -c "cd '$stage' && bash tests/bench/bench-peers.sh" </dev/null ||
	echo "   as $user: could not run"
exit 0
