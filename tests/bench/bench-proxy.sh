#!/usr/bin/env bash
# bench-proxy: a session proxy's CONNECT tunnel against a direct connection,
# tinyproxy and squid (same allowlist, same upstream in this run's own
# network namespace): bulk throughput, the added latency of a new tunnel,
# and sboxd's memory with 5,000 open tunnels, each ratio against its goal.
# As root the upstream is in a network namespace; as a user on an address
# of this computer (direct and sboxd only). Knobs: BENCH_PROXY_BYTES
# (200 MiB), BENCH_PROXY_LATENCY_N (500), BENCH_PROXY_ROUNDS (5),
# BENCH_PROXY_TUNNELS (5000); BENCH_PROXY_BASE (another build's bin folder:
# its proxy as one more column, side by side).
set -u
cd "$(dirname "$0")/../.."
# 5,000 tunnels hold 10,000 descriptors of sboxd: raise the limit for it
# (and the proxies and clients started from here).
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
exec python3 tests/bench/proxy_bench.py run
