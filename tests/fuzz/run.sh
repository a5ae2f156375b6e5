#!/usr/bin/env bash
# Build every tests/fuzz/fuzz-*.c with libFuzzer + ASan + UBSan and run each
# for SECONDS. A fuzz file names the sources it needs on its first line:
#   // sources: protocol/framer.c protocol/error.c
# Corpora live in tests/fuzz/corpus-NAME/ (git-ignored), seeded from
# tests/fuzz/seeds/NAME/ when that folder exists. Fails if any fuzzer finds a
# crash (or does not build); crash inputs are left in build-fuzz/NAME/.
#   tests/fuzz/run.sh [SECONDS] [NAME...]
set -u
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-60}
shift || true
CC_FUZZ=${CC_FUZZ:-clang}
OUT=build-fuzz
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -std=c11 -D_GNU_SOURCE -I."
JANSSON=$(pkg-config --cflags --libs jansson)

if ! command -v "$CC_FUZZ" >/dev/null 2>&1; then
	echo "fuzz: $CC_FUZZ not found; run 'make deps' (clang, libclang-rt-14-dev)"
	exit 1
fi
mkdir -p "$OUT"
failed=()
ran=0

for src in tests/fuzz/fuzz-*.c; do
	name=$(basename "$src" .c)
	name=${name#fuzz-}
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "*) ;; *) continue ;; esac
	fi
	sources=$(head -n 1 "$src" | sed -n 's|^// *sources: *||p')
	bin="$OUT/fuzz-$name"
	echo "== fuzz $name: building ($src $sources)"
	# shellcheck disable=SC2086
	if ! $CC_FUZZ $FLAGS -o "$bin" "$src" $sources $JANSSON; then
		failed+=("$name (build)")
		continue
	fi
	corpus="tests/fuzz/corpus-$name"
	mkdir -p "$corpus" "$OUT/$name"
	if [ -d "tests/fuzz/seeds/$name" ]; then
		cp -n tests/fuzz/seeds/"$name"/* "$corpus"/ 2>/dev/null || true
	fi
	dict=()
	[ -f "tests/fuzz/seeds/$name.dict" ] && dict=(-dict="tests/fuzz/seeds/$name.dict")
	echo "== fuzz $name: running for ${SECONDS_EACH}s"
	log="$OUT/$name/fuzz.log"
	touch "$OUT/$name/.start"   # artifacts newer than this are from this run
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	"$bin" -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=2048 \
	    -timeout=10 -print_final_stats=1 -artifact_prefix="$OUT/$name/" \
	    "${dict[@]}" "$corpus" >"$log" 2>&1
	rc=$?
	ran=$((ran + 1))
	grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" | sed "s|^|  $name: |"
	if [ $rc -ne 0 ]; then
		echo "  $name: FAILED (exit $rc); last lines of $log:"
		tail -n 40 "$log" | sed 's|^|    |'
		find "$OUT/$name" -maxdepth 1 -newer "$OUT/$name/.start" \( -name 'crash-*' \
		    -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) \
		    | sed 's|^|    input: |'
		failed+=("$name")
	else
		echo "  $name: ok ($(ls "$corpus" | wc -l) inputs in the corpus)"
	fi
done

for f in "${failed[@]}"; do echo "fuzz failed: $f"; done
echo "fuzz: $ran run, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
