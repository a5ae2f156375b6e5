#!/usr/bin/env python3
"""Run sbox's end-to-end tests: every test_* function of tests/e2e/test_*.py.

usage: run.py [--bin DIR] [-k SUBSTRING] [--timeout S]
Ends with "e2e: N passed, N failed, N skipped".
"""
import argparse
import glob
import importlib.util
import os
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout("test took too long")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="bin")
    ap.add_argument("-k", default="")
    ap.add_argument("--timeout", type=int, default=180)
    a = ap.parse_args()
    os.environ["SBOX_BIN"] = os.path.abspath(a.bin)
    import sboxtest
    sboxtest.BIN = os.environ["SBOX_BIN"]
    signal.signal(signal.SIGALRM, on_alarm)
    for path in sorted(glob.glob(os.path.join(HERE, "test_*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        try:
            run_module(mod, name, a, sboxtest)
        finally:
            # a module may share a daemon between its tests; it stops it here
            if hasattr(mod, "teardown_module"):
                mod.teardown_module()
    print("e2e: %d passed, %d failed, %d skipped" % (COUNTS["passed"],
          COUNTS["failed"], COUNTS["skipped"]))
    return 1 if COUNTS["failed"] else 0


COUNTS = {"passed": 0, "failed": 0, "skipped": 0}


def run_module(mod, name, a, sboxtest):
    """Run the test_* functions of one module, adding to COUNTS. A module
    may share daemons between its tests: it then defines teardown_module()
    (called after its last test) and may define failure_log() (printed when
    one of its tests fails)."""
    for fname in sorted(n for n in dir(mod) if n.startswith("test_")):
        full = "%s.%s" % (name, fname)
        if a.k and a.k not in full:
            continue
        ctx = sboxtest.Context()
        t0 = time.time()
        signal.alarm(a.timeout)
        try:
            getattr(mod, fname)(ctx)
            signal.alarm(0)
            COUNTS["passed"] += 1
            print("ok   %s (%.1fs)" % (full, time.time() - t0), flush=True)
        except sboxtest.Skip as e:
            signal.alarm(0)
            COUNTS["skipped"] += 1
            print("skip %s: %s" % (full, e), flush=True)
        except BaseException as e:  # noqa: B902 - report everything
            signal.alarm(0)
            if isinstance(e, KeyboardInterrupt):
                raise
            COUNTS["failed"] += 1
            print("FAIL %s (%.1fs)" % (full, time.time() - t0), flush=True)
            traceback.print_exc(file=sys.stdout)
            for d in ctx.daemons:
                print("--- sboxd log (%s):\n%s" % (d.root, d.read_log()))
            if hasattr(mod, "failure_log"):
                print(mod.failure_log())
        finally:
            ctx.cleanup()


if __name__ == "__main__":
    sys.exit(main())
