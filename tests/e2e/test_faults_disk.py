"""End-to-end fault tests of issue 45 about disk: the disk guard measures
again as soon as space is freed (`cache clear`), and more.

Runs as root and as an unprivileged user; what needs root (a small tmpfs
for the state folder) is skipped for the user with the reason."""
import os
import time

import sboxtest
from sboxtest import wait_for
from sandboxlib import create, make_home, make_project, run


def _refused(c, s):
    """The error of `true` in s when it is refused, else None."""
    try:
        r = run(c, s, "true")
        assert r.code == 0 or r.signal == 9, r
        return None
    except sboxtest.RpcError as e:
        assert e.name == "sbox.LimitExceeded", e
        return e


def test_cache_clear_measures_again_at_once(ctx):
    """Issue 45: after `sbox cache clear`, a project whose caches were over
    their limit stayed refused for about 32 s (the guard measured every
    30 s and the clear did not ask for a measure). The clear now measures
    again before it answers: the session works within a second."""
    d = ctx.daemon({"sandbox": {"profiles": {"small": {
        "extends": "workspace", "limits": {"cache_mb": 4}}}}}, start=False,
        name="clear")
    make_home(d.home)
    d.start()
    c = d.client()
    pa = make_project(os.path.join(d.root, "proj-a"))
    a = create(c, pa, "small")
    r = run(c, a, "head -c 12582912 /dev/zero > ~/.cache/fill; echo done")
    assert r.code in (0, None) or r.signal == 9, r
    e = []
    wait_for(lambda: e.append(_refused(c, a)) or e[-1] is not None, 60,
             step=0.2, what="the session's commands to be refused")
    assert "over their limit of 4 MiB" in e[-1].message, e[-1]
    r = d.cli("cache", "clear", "--project", pa)
    assert r.returncode == 0, r
    t0 = time.monotonic()
    while _refused(c, a) is not None:
        assert time.monotonic() - t0 < 1.0, \
            "still refused %.2f s after the clear" % (time.monotonic() - t0)
        time.sleep(0.05)
    took = time.monotonic() - t0
    assert took < 1.0, took
    c.close()
