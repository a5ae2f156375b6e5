"""pytest glue for sbox's end-to-end tests.

The tests are plain functions `test_*(ctx)` in `test_*.py`: `ctx` is an
sboxtest.Context (private daemons, a temporary folder), cleaned up after the
test. A test skips by raising sboxtest.Skip. A module may share a daemon
between its tests: it stops it in teardown_module() and may define
failure_log(), printed with the daemons' logs when one of its tests fails.

    python3 -m pytest tests/e2e [--bin DIR] [-k NAME] [-x] [--lf]
    python3 -m pytest -p xdist -n 2 --dist loadfile tests/e2e

--bin (or SBOX_BIN) names the folder of sboxd, sbox-init and sbox (bin/ of
the tree by default); --e2e-timeout (or E2E_TIMEOUT) bounds each test.

With xdist, a test that changes what every sandbox sees (files planted in
/etc) runs alone: its module lists it in RUN_ALONE = ("test_name",); it
takes a lock every other test holds shared.
"""
import fcntl
import os
import signal
import sys
import tempfile
import threading

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


class E2ETimeout(Exception):
    """A test ran past its time."""


# Register the e2e options: where the binaries are, the time a test may take.
def pytest_addoption(parser):
    g = parser.getgroup("sbox e2e")
    g.addoption("--bin", default=None,
                help="folder of sboxd, sbox-init and sbox (default: "
                     "$SBOX_BIN, else bin/ of the tree)")
    g.addoption("--e2e-timeout", type=int, default=None,
                help="seconds a test may take (default: $E2E_TIMEOUT "
                     "or 180)")


# Point sboxtest (and anything the tests start) at the chosen binaries
# before any test module is imported.
def pytest_configure(config):
    b = config.getoption("--bin") or os.environ.get("SBOX_BIN")
    if not b:
        b = os.path.join(HERE, "..", "..", "bin")
    b = os.path.abspath(b)
    os.environ["SBOX_BIN"] = b
    import sboxtest
    sboxtest.BIN = b


# The per-test bound: SIGALRM raises in the test (the main thread).
def _on_alarm(signum, frame):
    raise E2ETimeout("test took too long")


def _lock_path(controller_pid):
    # tests/run.sh runs root's and the test user's suites side by side
    # with one lock for both (SBOX_E2E_LOCK)
    if os.environ.get("SBOX_E2E_LOCK"):
        return os.environ["SBOX_E2E_LOCK"]
    return os.path.join(tempfile.gettempdir(),
                        "sbox-e2e-%d.lock" % controller_pid)


def _take_lock(request):
    """Under xdist: the run's lock, exclusive for a RUN_ALONE test, shared
    for the others; None without workers."""
    if not hasattr(request.config, "workerinput"):
        return None
    alone = request.node.originalname in getattr(request.module,
                                                 "RUN_ALONE", ())
    f = open(_lock_path(os.getppid()), "a")
    fcntl.flock(f, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
    return f


# The controller removes the lock file its workers shared.
def pytest_unconfigure(config):
    if not hasattr(config, "workerinput") and \
            not os.environ.get("SBOX_E2E_LOCK"):
        try:
            os.unlink(_lock_path(os.getpid()))
        except OSError:
            pass


@pytest.fixture
def ctx(request):
    """A Context for one test: daemons it makes are stopped and its folders
    removed afterwards; the test is bounded in time."""
    import sboxtest
    lock = _take_lock(request)
    c = sboxtest.Context()
    t = request.config.getoption("--e2e-timeout") or \
        int(os.environ.get("E2E_TIMEOUT", "180"))
    armed = threading.current_thread() is threading.main_thread() and t > 0
    if armed:
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.alarm(t)
    try:
        yield c
    finally:
        if armed:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
        c.cleanup()
        if lock is not None:
            lock.close()


# sboxtest.Skip becomes a pytest skip; a failure carries the logs of the
# test's daemons and the module's shared-daemon log.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    import sboxtest
    if call.excinfo is not None and \
            call.excinfo.errisinstance(sboxtest.Skip):
        rep.outcome = "skipped"
        entry = call.excinfo.traceback[-1]
        rep.longrepr = (str(entry.path), entry.lineno + 1,
                        "Skipped: %s" % call.excinfo.value)
        return
    if not rep.failed or call.when == "teardown":
        return
    c = getattr(item, "funcargs", {}).get("ctx")
    for d in getattr(c, "daemons", []):
        rep.sections.append(("sboxd log (%s)" % d.root, d.read_log()))
    fl = getattr(item.module, "failure_log", None)
    if fl is not None:
        try:
            text = fl()
        except Exception as e:  # noqa: B902 - the log is a help only
            text = "failure_log() failed: %r" % e
        if text:
            rep.sections.append(("module log", text))
