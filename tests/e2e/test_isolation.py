"""One sandbox cannot reach sboxd's memory or another project, and the
daemon keeps working under a crowd (issues 22 and 27): the control channel
to sbox-init queues instead of failing, a starting sboxd removes only the
cgroups it marked as its own, kept output has a budget per session and per
daemon, caches belong to a project, and a cache that fills the disk does
not stop the other sessions."""
import base64
import json
import os
import sqlite3
import subprocess
import time

import sboxtest
from sboxtest import Skip, is_root, wait_for
from sandboxlib import create, make_home, make_project, run


def _daemon(ctx, name, config=None):
    d = ctx.daemon(config, start=False, name=name)
    make_home(d.home)
    d.start()
    return d


def test_500_detached_commands_all_start(ctx):
    """500 detached commands sent at once (8 connections, pipelined) all
    start: a full control socket is backpressure, never "Resource
    temporarily unavailable"."""
    d = _daemon(ctx, "iso500")
    c = d.client()
    proj = make_project(os.path.join(d.root, "proj"))
    s = create(c, proj)
    clients = [d.client() for _ in range(8)]
    sent = []
    # a long environment makes each spawn message big, so the socket fills
    env = {"PAD%d" % i: "x" * 200 for i in range(20)}
    for i in range(504):
        cl = clients[i % len(clients)]
        sent.append((cl, cl.send("command.exec", {
            "session": s, "argv": ["true"], "detach": True,
            "stdio": "none", "env": env})))
    errors, ids = [], []
    for cl, rid in sent:
        r = cl.wait_reply(rid)
        if "error" in r:
            errors.append(r["error"])
        else:
            ids.append(r["result"]["command"])
    assert not errors, "%d of 504 failed, first: %r" % (len(errors), errors[0])
    assert len(set(ids)) == 504
    # the session still works, and each one ran (exit 0 in the store)
    r = run(c, s, "echo alive")
    assert r.code == 0 and r.out == "alive\n", r
    for cl in clients:
        cl.close()
    c.close()
    d.stop()
    db = sqlite3.connect(os.path.join(d.state, "sbox.db"))
    rows = db.execute("select count(*) from commands where session = ? and "
                      "detach = 1 and state = 'exited' and exit_code = 0",
                      (s,)).fetchone()[0]
    db.close()
    assert rows == 504, rows


def _cgroup_parents():
    """Folders where a root sboxd makes its container cgroups."""
    out = []
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, ctrl, path = line.strip().split(":", 2)
            if ctrl == "pids":
                out.append("/sys/fs/cgroup/pids" + path.rstrip("/"))
            elif ctrl == "":
                out.append("/sys/fs/cgroup/unified" + path.rstrip("/")
                           if os.path.isdir("/sys/fs/cgroup/unified")
                           else "/sys/fs/cgroup" + path.rstrip("/"))
    return [p for p in out if os.path.isdir(p) and os.access(p, os.W_OK)]


def test_sweep_leaves_foreign_cgroups(ctx):
    """A cgroup named like sboxd's (sbox-<pid>-x) for a live process that is
    no sboxd (a test harness's, a renamed binary's) is left alone by a
    starting sboxd, with the process in it; one sboxd marked as its own and
    whose sboxd is gone is removed."""
    if not is_root():
        raise Skip("making cgroups needs root here")
    parents = _cgroup_parents()
    if not parents:
        raise Skip("no writable pids or v2 cgroup here")
    base = parents[0]
    victim = subprocess.Popen(["sleep", "300"])
    made = []
    try:
        foreign = os.path.join(base, "sbox-%d-x" % victim.pid)
        foreign2 = os.path.join(base, "sbox-%d-7" % victim.pid)
        for f in (foreign, foreign2):
            os.mkdir(f)
            made.append(f)
        with open(os.path.join(foreign, "cgroup.procs"), "w") as f:
            f.write("%d\n" % victim.pid)
        # a leftover of a killed sboxd: marked as its own
        d = _daemon(ctx, "isocg")
        c = d.client()
        proj = make_project(os.path.join(d.root, "proj"))
        s = create(c, proj)
        cg = c.call("session.info", {"session": s})["limits"]["cgroup"]
        c.close()
        old = d.proc.pid
        mine = [p for p in os.listdir(base) if p.startswith("sbox-%d-" % old)]
        assert mine, "a root sboxd makes a cgroup per container: %r" % cg
        d.kill()
        d.start()
        wait_for(lambda: not [p for p in os.listdir(base)
                              if p.startswith("sbox-%d-" % old)], 15,
                 step=0.1, what="the killed sboxd's own cgroups to go")
        # the foreign ones stay, and so does the process in one
        assert os.path.isdir(foreign) and os.path.isdir(foreign2)
        assert victim.poll() is None, "the harness's process was killed"
        with open(os.path.join(foreign, "cgroup.procs")) as f:
            assert str(victim.pid) in f.read().split()
    finally:
        victim.kill()
        victim.wait()
        for f in made:
            for _ in range(50):
                try:
                    os.rmdir(f)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)
