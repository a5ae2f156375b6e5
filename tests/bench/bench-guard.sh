#!/usr/bin/env bash
# bench-guard.sh: what the file guard (sbox-init's seccomp user-notification
# supervisor, issue 10/13) costs on a file-heavy job: untar and build a
# generated C tree (FILES .c files, a Makefile) inside a workspace sandbox,
# with the supervisor on and with it off (SBOX_BENCH_NO_GUARD=1 in that
# sboxd's environment: benchmarks only), side by side. Target: <= 5%
# overhead. Never fails on a time; only when something cannot run.
set -u
BIN=${BIN:-$(pwd)/bin}
RUNS=${BENCH_RUNS:-3}
FILES=${BENCH_GUARD_FILES:-300}
work=$(mktemp -d /tmp/sbox-bench-guard.XXXXXX)
chmod 755 "$work"
pids=()

cleanup() {
	local p
	# start_one runs in a command substitution (a subshell): its sboxd's
	# pid is in a file, not in pids
	for p in "${pids[@]}" $(cat "$work"/*/sboxd.pid 2>/dev/null); do
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	sleep 1
	rm -rf "$work"
}
trap cleanup EXIT

command -v cc >/dev/null && command -v make >/dev/null ||
	{ echo "   cc and make are needed"; exit 1; }

# The tree: FILES small translation units, headers, one Makefile.
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
job='rm -rf build && mkdir build && tar -xf tree.tar -C build && make -s -C build/tree -j2 && test -x build/tree/prog'

# One sboxd (guard on or off; bin: its build) and a warm session; prints
# the session id.
start_one() {
	local name=$1 off=$2 bin=${3:-$BIN} d="$work/$1" sid
	mkdir -p "$d/home" "$d/proj"
	# the "writes" column: the guard without read reports
	[ "$name" = writes ] &&
		echo '{"sandbox": {"report_reads": false}}' >"$d/config.json"
	mkdir -m 700 "$d/run" "$d/state"
	cp "$work/tree.tar" "$d/proj/"
	echo "$bin" >"$d/bin"
	HOME="$d/home" SBOX_BENCH_NO_GUARD=$off "$bin/sboxd" --foreground \
		--socket "$d/run/sboxd.sock" --state-dir "$d/state" \
		--config "$d/config.json" --log-level warn >"$d/sboxd.log" 2>&1 &
	pids+=($!)
	echo $! >"$d/sboxd.pid"
	for _ in $(seq 100); do [ -S "$d/run/sboxd.sock" ] && break; sleep 0.05; done
	sid=$(HOME="$d/home" SBOX_SOCKET="$d/run/sboxd.sock" "$bin/sbox" session \
		create --project "$d/proj" --sandbox workspace) ||
		{ echo "   session create failed" >&2; cat "$d/sboxd.log" >&2; return 1; }
	# a warm-up run
	SBOX_SOCKET="$d/run/sboxd.sock" "$bin/sbox" session exec "$sid" -- \
		sh -c "$job" >/dev/null ||
		{ echo "   the job failed in the sandbox ($name)" >&2; return 1; }
	echo "$sid"
}

# The job, then the CPU it used: its processes' (times) and sbox-init's
# (pid 1: the notifications' other half), in seconds.
cpujob="a=\$(cut -d' ' -f14,15 /proc/1/stat); $job >/dev/null || exit 1;
b=\$(cut -d' ' -f14,15 /proc/1/stat); echo INIT \$a \$b; times"
hz=$(getconf CLK_TCK)

# "wall cpu" seconds of one run of the job in a session.
time_one() {
	local d="$work/$1" t0 t1 out
	t0=$(date +%s.%N)
	out=$(SBOX_SOCKET="$d/run/sboxd.sock" "$(cat "$d/bin")/sbox" session \
		exec "$2" -- sh -c "$cpujob") || return 1
	t1=$(date +%s.%N)
	echo "$out" | awk -v wall="$(awk "BEGIN{print $t1 - $t0}")" -v hz="$hz" '
		function sec(t,  m) { m = index(t, "m"); return substr(t, 1, m - 1) * 60 + substr(t, m + 1) + 0 }
		/^INIT/ { init = ($4 + $5 - $2 - $3) / hz; next }
		NF == 2 && $1 ~ /m/ { n++; if (n == 2) kids = sec($1) + sec($2) }
		END { printf "%s %.3f\n", wall, kids + init }'
}

# Columns: off, on, and with BENCH_GUARD_BASE=DIR (another build's bin/,
# e.g. before a change) that build with the guard on.
names=(off on writes)
sids=("$(start_one off 1)") || exit 1
[ -n "${sids[0]}" ] || exit 1
sids+=("$(start_one on 0)")
[ -n "${sids[1]}" ] || exit 1
sids+=("$(start_one writes 0)")
[ -n "${sids[2]}" ] || exit 1
if [ -n "${BENCH_GUARD_BASE:-}" ]; then
	names+=(base)
	sids+=("$(start_one base 0 "$BENCH_GUARD_BASE")")
	[ -n "${sids[3]}" ] || exit 1
fi
# interleaved, so that the load of a shared machine weighs on all alike
# wall clock (mean, best) and CPU (mean: the job's processes and
# sbox-init; steadier than the wall clock on a loaded machine)
declare -a tot mins cpu
for k in "${!names[@]}"; do tot[$k]=0; mins[$k]=0; cpu[$k]=0; done
for i in $(seq "$RUNS"); do
	for k in "${!names[@]}"; do
		r=$(time_one "${names[$k]}" "${sids[$k]}") || exit 1
		t=${r% *}
		tot[$k]=$(awk "BEGIN{print ${tot[$k]} + $t}")
		cpu[$k]=$(awk "BEGIN{print ${cpu[$k]} + ${r#* }}")
		mins[$k]=$(awk "BEGIN{m = ${mins[$k]}; print (m == 0 || $t < m) ? $t : m}")
	done
done
printf '   untar + build of %d C files, %d interleaved runs (make -j2)\n' "$FILES" "$RUNS"
printf '   %-34s %8s %8s %8s\n' "" "mean s" "best s" "CPU s"
label=("supervisor off" "guard on, reads reported" "guard on, report_reads false" "guard on, ${BENCH_GUARD_BASE:-}")
for k in "${!names[@]}"; do
	printf '   %-34s %8.3f %8.3f %8.3f\n' "${label[$k]:0:34}" \
		"$(awk "BEGIN{print ${tot[$k]} / $RUNS}")" "${mins[$k]}" \
		"$(awk "BEGIN{print ${cpu[$k]} / $RUNS}")"
done
# overhead of column k against off: wall mean, wall best, CPU mean
ratio() {
	awk "BEGIN{printf \"%.1f%% of the mean, %.1f%% of the best, %.1f%% of the CPU\", (${tot[$1]} / ${tot[0]} - 1) * 100, (${mins[$1]} / ${mins[0]} - 1) * 100, (${cpu[$1]} / ${cpu[0]} - 1) * 100}"
}
echo "   overhead, reads reported (the default; target <= 5%): $(ratio 1)"
# the goal, judged on the best wall clock and on the CPU (the mean wall
# clock of a shared machine moves more than the overhead)
awk "BEGIN{w = (${mins[1]} / ${mins[0]} - 1) * 100; c = (${cpu[1]} / ${cpu[0]} - 1) * 100
	printf \"   goal <= 5%% with read reports: best wall %s (%.1f%%), CPU %s (%.1f%%)\n\",
	    w <= 5 ? \"met\" : \"not met\", w, c <= 5 ? \"met\" : \"not met\", c}"
echo "   overhead, writes only (report_reads false): $(ratio 2)"
if [ -n "${BENCH_GUARD_BASE:-}" ]; then
	echo "   base build (base/off): $(ratio 3)"
fi
