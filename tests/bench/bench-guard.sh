#!/usr/bin/env bash
# bench-guard.sh: what the file guard (sbox-init's seccomp user-notification
# supervisor, issue 10/13) costs on a file-heavy job: untar and build a
# generated C tree (FILES .c files, a Makefile) inside a workspace sandbox,
# with the supervisor on and with it off (SBOX_BENCH_NO_GUARD=1 in that
# sboxd's environment: benchmarks only), side by side. Target: <= 5%
# overhead. Never fails on a time; only when something cannot run.
set -u
BIN=${BIN:-$(pwd)/bin}
RUNS=${BENCH_RUNS:-5}
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

# "wall cpu" seconds of one run of the job in a session. The "floor"
# column is the job in the "off" session under notify-floor (copied into
# that project): a supervisor that answers every open with "continue" at
# once, the least a notification guard of opens costs; its own CPU is
# counted like sbox-init's.
time_one() {
	local name=$1 d="$work/$1" t0 t1 out wrap=()
	if [ "$name" = floor ]; then
		d="$work/off"
		wrap=(./notify-floor)
	fi
	t0=$(date +%s.%N)
	out=$(SBOX_SOCKET="$d/run/sboxd.sock" "$(cat "$d/bin")/sbox" session \
		exec "$2" -- "${wrap[@]}" sh -c "$cpujob") || return 1
	t1=$(date +%s.%N)
	echo "$out" | awk -v wall="$(awk "BEGIN{print $t1 - $t0}")" -v hz="$hz" '
		function sec(t,  m) { m = index(t, "m"); return substr(t, 1, m - 1) * 60 + substr(t, m + 1) + 0 }
		/^INIT/ { init = ($4 + $5 - $2 - $3) / hz; next }
		/^FLOOR_CPU/ { floor = $2; next }
		NF == 2 && $1 ~ /m/ { n++; if (n == 2) kids = sec($1) + sec($2) }
		END { printf "%s %.3f\n", wall, kids + init + floor }'
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
# the floor: the "off" session's job under notify-floor
cp "$BIN/bench/notify-floor" "$work/off/proj/" || exit 1
SBOX_SOCKET="$work/off/run/sboxd.sock" "$BIN/sbox" session exec "${sids[0]}" -- \
	./notify-floor sh -c "$job" >/dev/null ||
	{ echo "   the job failed under notify-floor in the sandbox"; exit 1; }
names+=(floor)
sids+=("${sids[0]}")
if [ -n "${BENCH_GUARD_BASE:-}" ]; then
	names+=(base)
	sids+=("$(start_one base 0 "$BENCH_GUARD_BASE")")
	[ -n "${sids[4]}" ] || exit 1
fi
# interleaved, each round in a new order, so that the load of a shared
# machine weighs on all alike; every run's wall clock and CPU (the job's
# processes and sbox-init) are kept, and a column is judged by the medians
# of its per-round ratios to "off" (a round's runs share the machine's
# load; the median drops the rounds another job disturbed)
declare -a walls cpus
for k in "${!names[@]}"; do walls[$k]=""; cpus[$k]=""; done
for i in $(seq "$RUNS"); do
	for k in $(printf '%s\n' "${!names[@]}" | shuf); do
		r=$(time_one "${names[$k]}" "${sids[$k]}") || exit 1
		walls[$k]="${walls[$k]} ${r% *}"
		cpus[$k]="${cpus[$k]} ${r#* }"
	done
done
# The median of the numbers given.
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
	    END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# The per-round ratios of list A to list B (two strings of numbers).
ratios() {
	local -a a b
	local i
	read -ra a <<<"$1"
	read -ra b <<<"$2"
	for i in "${!a[@]}"; do awk "BEGIN{print ${a[$i]} / ${b[$i]}}"; done
}
printf '   untar + build of %d C files, %d interleaved rounds (make -j2)\n' "$FILES" "$RUNS"
printf '   %-34s %8s %8s %8s\n' "" "median s" "best s" "CPU s"
label=("supervisor off" "guard on, reads reported" "guard on, report_reads false" "floor: every open continued" "guard on, ${BENCH_GUARD_BASE:-}")
for k in "${!names[@]}"; do
	# shellcheck disable=SC2086
	printf '   %-34s %8.3f %8.3f %8.3f\n' "${label[$k]:0:34}" \
	    "$(median ${walls[$k]})" "$(printf '%s\n' ${walls[$k]} | sort -g | head -1)" \
	    "$(median ${cpus[$k]})"
done
# Overhead of column k against off, in %: the medians of the per-round
# ratios of the wall clock and of the CPU.
over() {
	# shellcheck disable=SC2046
	awk "BEGIN{printf \"%.1f\", ($(median $(ratios "$1" "$2")) - 1) * 100}"
}
ratio() {
	echo "$(over "${walls[$1]}" "${walls[0]}")% wall, $(over "${cpus[$1]}" "${cpus[0]}")% CPU (medians of the per-round ratios)"
}
echo "   overhead, reads reported (the default; target <= 5%): $(ratio 1)"
awk "BEGIN{w = $(over "${walls[1]}" "${walls[0]}"); c = $(over "${cpus[1]}" "${cpus[0]}")
	printf \"   goal <= 5%% with read reports: wall %s (%.1f%%), CPU %s (%.1f%%)\n\",
	    w <= 5 ? \"met\" : \"not met\", w, c <= 5 ? \"met\" : \"not met\", c}"
echo "   overhead, writes only (report_reads false): $(ratio 2)"
echo "   overhead, the floor (notify-floor: every open stopped and continued at once, nothing decided): $(ratio 3)"
echo "   guard with read reports over the floor: $(over "${walls[1]}" "${walls[3]}")% wall, $(over "${cpus[1]}" "${cpus[3]}")% CPU"
if [ -n "${BENCH_GUARD_BASE:-}" ]; then
	echo "   base build (base/off): $(ratio 4)"
fi
# issue 38's goal row, one line for scripts (its base here is the sandbox
# with the supervisor off; bench-peers has the same build over unsandboxed)
awk -v w="$(over "${walls[1]}" "${walls[0]}")" -v who="$([ "$(id -u)" = 0 ] && echo root || echo user)" \
	'BEGIN { r = 1 + w / 100; printf "bench: build-reads-over-guard-off-%s %.3fx goal <=1.03x %s\n", who, r, r <= 1.03 ? "met" : "unmet" }'
