"""The e2e suite runs on pytest (issue 25, item 4): tests/e2e/conftest.py
gives each `test_*(ctx)` a Context that is cleaned up, turns sboxtest.Skip
into a skip, bounds each test in time, prints the logs of a failed test's
daemons and its module's failure_log(), calls teardown_module(); -k
selects and the last line has the counts tests/run.sh adds up.

A small module is run by the same pytest in a copy of the glue."""
import os
import re
import shutil
import subprocess
import sys

import sboxtest

HERE = os.path.dirname(os.path.abspath(__file__))

MODULE = '''
import os, time
from sboxtest import Skip

MARK = os.environ["GLUE_MARK"]

def teardown_module():
    open(MARK, "w").write("torn down")

def failure_log():
    return "MODULE-FAILURE-LOG"

def test_passes(ctx):
    d = ctx.daemon()
    assert d.client().call("rpc.ping")["pong"] is True
    open(MARK + ".tmp", "w").write(ctx.tmp)

def test_skips(ctx):
    raise Skip("no such thing here")

def test_fails_with_logs(ctx):
    ctx.daemon()
    assert False, "on purpose"

def test_times_out(ctx):
    time.sleep(30)

def test_other_name(ctx):
    pass
'''


def run(folder, *args):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST_XDIST")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["GLUE_MARK"] = os.path.join(folder, "mark")
    # --bin=DIR in one word: pytest reads the conftest's options only
    # after it found the conftest, from the paths it saw first
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfEs",
                           "-p", "no:cacheprovider", "--bin=" + sboxtest.BIN,
                           "--e2e-timeout=2"] + list(args),
                          cwd=folder, env=env, capture_output=True,
                          timeout=120)


def make_folder(ctx):
    f = os.path.join(ctx.tmp, "glue")
    os.makedirs(f)
    for n in ("conftest.py", "pytest.ini", "sboxtest.py"):
        shutil.copy(os.path.join(HERE, n), f)
    with open(os.path.join(f, "test_glue_sample.py"), "w") as out:
        out.write(MODULE)
    return f


def test_conftest_runs_ctx_tests(ctx):
    f = make_folder(ctx)
    r = run(f, "test_glue_sample.py")
    out = r.stdout.decode(errors="replace")
    assert r.returncode == 1, out
    last = out.strip().splitlines()[-1]
    assert re.match(r"^2 failed, 2 passed, 1 skipped in ", last), last
    assert "SKIPPED [1] test_glue_sample.py" in out and \
        "no such thing here" in out, out
    assert "FAILED test_glue_sample.py::test_times_out" in out and \
        "E2ETimeout: test took too long" in out, out
    # the failed test's daemon log and the module's log are shown
    assert re.search(r"-+ sboxd log \(.*sbox-e2e-d-", out), out
    assert "sboxd 0.1.0 listening on" in out or "listening on" in out, out
    assert "MODULE-FAILURE-LOG" in out, out
    # teardown_module ran; the passing test's folder is gone
    assert open(os.path.join(f, "mark")).read() == "torn down"
    tmp = open(os.path.join(f, "mark.tmp")).read()
    assert tmp and not os.path.exists(tmp), tmp


def test_k_selects(ctx):
    f = make_folder(ctx)
    r = run(f, "test_glue_sample.py", "-k", "other_name or passes")
    out = r.stdout.decode(errors="replace")
    assert r.returncode == 0, out
    assert re.match(r"^2 passed, 3 deselected in ",
                    out.strip().splitlines()[-1]), out
