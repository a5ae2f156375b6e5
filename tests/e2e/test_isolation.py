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
    # the session still works, and each one ran: exit 0 in the store
    r = run(c, s, "echo alive")
    assert r.code == 0 and r.out == "alive\n", r
    _all_ended(c, [s])
    for cl in clients:
        cl.close()
    c.close()
    d.stop()
    db = sqlite3.connect(os.path.join(d.state, "sbox.db"))
    rows = db.execute("select state, exit_code, count(*) from commands where "
                      "session = ? and detach = 1 group by 1, 2",
                      (s,)).fetchall()
    db.close()
    assert rows == [("exited", 0, 504)], rows


def test_sweep_leaves_foreign_cgroups(ctx):
    """A cgroup named like sboxd's (sbox-<pid>-x) for a live process that is
    no sboxd (a test harness's, a renamed binary's) is left alone by a
    starting sboxd, with the process in it; the cgroups sboxd marked as its
    own and whose sboxd is gone are removed. (sboxd runs in a pids cgroup
    of this test's, which it sweeps: no other sboxd on this machine looks
    there.)"""
    if not is_root():
        raise Skip("making cgroups needs root here")
    top = "/sys/fs/cgroup/pids"
    if not os.path.isdir(top) or not os.access(top, os.W_OK):
        raise Skip("no writable v1 pids hierarchy here")
    base = os.path.join(top, "sbox-e2e-iso-%d" % os.getpid())
    os.mkdir(base)
    victim = subprocess.Popen(["sleep", "300"])
    made = []
    d = ctx.daemon(start=False, name="isocg")
    make_home(d.home)
    orig = d.args
    d.args = lambda: ["sh", "-c", 'echo $$ > %s/cgroup.procs && exec "$@"'
                      % base, "sh"] + orig()
    try:
        foreign = os.path.join(base, "sbox-%d-x" % victim.pid)
        foreign2 = os.path.join(base, "sbox-%d-7" % victim.pid)
        for f in (foreign, foreign2):
            os.mkdir(f)
            made.append(f)
        with open(os.path.join(foreign, "cgroup.procs"), "w") as f:
            f.write("%d\n" % victim.pid)
        d.start()
        c = d.client()
        proj = make_project(os.path.join(d.root, "proj"))
        create(c, proj)
        c.close()
        old = d.proc.pid
        mine = [p for p in os.listdir(base) if p.startswith("sbox-%d-" % old)]
        assert mine, "a root sboxd makes a cgroup per container"
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
        d.cleanup()
        for f in made + [base]:
            for _ in range(50):
                try:
                    os.rmdir(f)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)



def _children(pid):
    """The pids of pid's children."""
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _sbox_cgroups(pid, of):
    """The sbox-<of>-* cgroup folders pid is in (from /proc/PID/cgroup)."""
    found = []
    for line in _read("/proc/%d/cgroup" % pid).splitlines():
        path = line.split(":", 2)[2] if line.count(":") >= 2 else ""
        if os.path.basename(path).startswith("sbox-%d-" % of):
            found.append(os.path.basename(path))
    return found


def _spare(d, busy):
    """sboxd's spare launcher: a child of sboxd that is not its proxy nor a
    bwrap of busy, in a cgroup of sboxd's own; (pid, its cgroups) or None."""
    for k in _children(d.proc.pid):
        if k in busy or _read("/proc/%d/comm" % k).strip() == "bwrap":
            continue
        if _read("/proc/%d/cmdline" % k).startswith("sboxd: proxy"):
            continue
        cg = _sbox_cgroups(k, d.proc.pid)
        if cg:
            return k, cg
    return None


def test_spare_launcher_becomes_the_next_bwrap_in_its_cgroup(ctx):
    """As root, once a session has started, sboxd keeps one process ready
    for the next in a fresh cgroup of its own (joining one makes the
    kernel wait): the next session's bwrap is that process, in that
    cgroup, with the session's pids limit; a spare left unused ends with
    sboxd, and its cgroup goes."""
    if not is_root():
        raise Skip("sboxd makes cgroups here only as root (no delegated "
                   "cgroup v2 for the user)")
    d = _daemon(ctx, "isospare")
    c = d.client()
    proj = make_project(os.path.join(d.root, "proj"))
    s1 = create(c, proj)
    i1 = c.call("session.info", {"session": s1})
    if not i1["limits"].get("mode"):
        raise Skip("no cgroup for containers here: %r" % i1["limits"])
    busy = {i1["container_pid"]}
    found = []
    wait_for(lambda: found.append(_spare(d, busy)) or found[-1], 10,
             step=0.05, what="a spare launcher in a cgroup of sboxd's")
    spare, cgs = found[-1]
    s2 = create(c, proj)
    i2 = c.call("session.info", {"session": s2})
    assert i2["container_pid"] == spare, (i2, spare)
    assert _read("/proc/%d/comm" % spare).strip() == "bwrap"
    # the session's cgroup is the one the spare joined, and it holds the
    # session's processes under its pids limit
    for cg in cgs:
        assert cg in i2["limits"]["cgroup"], (cg, i2["limits"])
    assert _sbox_cgroups(spare, d.proc.pid) == cgs
    pids_dir = [p for p in i2["limits"]["cgroup"].split()
                if "/pids/" in p or os.path.exists(os.path.join(p, "pids.max"))]
    assert pids_dir, i2["limits"]
    assert _read(os.path.join(pids_dir[0], "pids.max")).strip() not in ("",
                                                                       "max")
    # and so is what runs in the sandbox (sbox-init, below bwrap)
    kids = _children(spare)
    assert kids, "bwrap has no child"
    for k in kids:
        assert _sbox_cgroups(k, d.proc.pid) == cgs, k
    r = run(c, s2, "echo ok")
    assert r.code == 0 and r.out.strip() == "ok", r
    # the next one waits already; sboxd ends it at shutdown, cgroup too
    busy.add(spare)
    found = []
    wait_for(lambda: found.append(_spare(d, busy)) or found[-1], 10,
             step=0.05, what="the next spare launcher")
    nxt, ncgs = found[-1]
    assert ncgs != cgs
    c.close()
    d.stop()
    assert not os.path.exists("/proc/%d" % nxt) or \
        _read("/proc/%d/status" % nxt).find("State:\tZ") >= 0, nxt
    left = []
    for top, dirs, _ in os.walk("/sys/fs/cgroup"):
        left += [os.path.join(top, n) for n in dirs if n in ncgs]
        if top.count("/") > 6:
            dirs[:] = []
    assert not left, left



def test_root_bwrap_starts_in_a_pruned_mount_namespace(ctx):
    """As root, bwrap starts in a mount namespace of its own that holds
    the trees it binds under /tmp and what it needs to run (/, /proc,
    /dev), not the host's other mounts (each one it sees costs every
    start: bwrap reads its mount table for each bind); the sandbox works
    as before and the host keeps its mounts."""
    if not is_root():
        raise Skip("the held trees are staged so only as root")
    host = [l.split()[4] for l in open("/proc/self/mountinfo")]
    pruned = [m for m in host if m == "/sys" or m.startswith("/sys/")]
    if not pruned:
        raise Skip("no /sys mount here to see pruned")
    d = _daemon(ctx, "isoprune")
    c = d.client()
    proj = make_project(os.path.join(d.root, "proj"))
    s = create(c, proj)
    pid = c.call("session.info", {"session": s})["container_pid"]
    seen = [l.split()[4] for l in open("/proc/%d/mountinfo" % pid)]
    assert "/" in seen and "/proc" in seen and "/dev" in seen, seen
    assert any(m.startswith("/tmp/") for m in seen), seen
    for m in pruned:
        assert m not in seen, (m, seen)
    r = run(c, s, "echo ok >/dev/null && cat /proc/self/status | "
                  "grep -c ^Pid && ls / >/dev/null && echo done")
    assert r.code == 0 and r.out.split()[-1] == "done", r
    # none of the host's mounts is gone (tests running beside this one
    # add and remove their own: network namespaces under /run/netns,
    # folders under /tmp)
    after = [l.split()[4] for l in open("/proc/self/mountinfo")]
    gone = [m for m in host if m not in after and
            not m.startswith(("/run/netns/", "/tmp/"))]
    assert gone == [], (host, after)


FLOOD_MB = 8
FLOOD = "head -c %d /dev/zero" % (FLOOD_MB << 20)

CHILDREN = r"""
import json, os, socket, sys
s = socket.socket(fileno=int(os.environ["SBOX_CHANNEL_FD"]))
f = s.makefile("rwb")
n = [0]
def call(method, params):
    n[0] += 1
    f.write(json.dumps({"jsonrpc": "2.0", "id": n[0], "method": method,
                        "params": params}).encode() + b"\n")
    f.flush()
    while True:
        m = json.loads(f.readline())
        if m.get("id") == n[0]:
            if "error" in m:
                raise SystemExit(m["error"]["message"])
            return m["result"]
call("rpc.hello", {"protocol": 1})
kids = []
for i in range(int(sys.argv[1])):
    k = call("session.create", {"project": os.getcwd(), "sandbox": "workspace",
                                "env": {"PATH": "/usr/bin:/bin"}})["session"]
    for j in range(int(sys.argv[2])):
        call("command.exec", {"session": k, "argv": sys.argv[3:],
                              "detach": True, "stdio": "none"})
    kids.append(k)
print(json.dumps(kids))
"""


def _flood(c, s, n):
    """n detached commands in s, each printing FLOOD_MB MiB (kept)."""
    return [c.call("command.exec", {"session": s, "argv": ["sh", "-c", FLOOD],
                                    "detach": True, "stdio": "none"})
            ["command"] for _ in range(n)]


def _all_ended(c, sessions):
    """Wait until the store has every command of sessions ended; their ids."""
    ids = []

    def ended():
        ids[:] = []
        for s in sessions:
            for cmd in c.call("command.list", {"session": s})["commands"]:
                if cmd["state"] == "running":
                    return False
                ids.append(cmd["command"])
        return True
    wait_for(ended, 120, step=0.2, what="the floods to end")
    return ids


def _kept(c, ids):
    """Bytes of output kept for the live commands ids, and their reads."""
    total, reads = 0, {}
    for i in ids:
        try:
            r = c.call("command.read", {"command": i})
        except sboxtest.RpcError:
            continue       # trimmed: finished commands beyond the keep limit
        reads[i] = r
        total += len(base64.b64decode(r["stdout"])) + \
            len(base64.b64decode(r["stderr"]))
    return total, reads


def test_output_flood_memory_bounded(ctx):
    """64 finished commands of 8 MiB output each in one session, plus child
    sessions made inside it, plus a second top-level session: the kept
    output stays within 16 MiB per top-level session (children included)
    and the daemon's total, the oldest output is dropped first and the
    answer says so, and sboxd's RSS stays far below what it would take to
    keep everything (64 x 8 MiB = 512 MiB; it used to reach 1 GB)."""
    d = ctx.daemon({"daemon": {"output_mb_per_session": 16,
                               "output_mb_total": 24}}, start=False,
                   name="isorss")
    make_home(d.home)
    d.start()
    c = d.client()
    proj = make_project(os.path.join(d.root, "proj"))
    with open(os.path.join(proj, "kids.py"), "w") as f:
        f.write(CHILDREN)
    top = create(c, proj)
    rss0 = d.rss_kb()
    first = []
    for _ in range(8):   # 64 commands, 8 at a time
        first += _flood(c, top, 8)
        _all_ended(c, [top])
    r = c.call("command.exec", {"session": top, "argv": [
        "python3", "kids.py", "2", "8", "sh", "-c", FLOOD], "channel": True,
        "timeout": 120})
    assert r["exit_code"] == 0, base64.b64decode(r["stderr"])
    kids = json.loads(base64.b64decode(r["stdout"]).decode().strip())
    ids_top = _all_ended(c, [top] + kids)
    other = create(c, proj)
    for _ in range(3):
        _flood(c, other, 1)
        ids_other = _all_ended(c, [other])
    rss = d.rss_kb()
    print("sboxd RSS: %d KiB before, %d KiB after %d x %d MiB of output"
          % (rss0, rss, len(ids_top) + len(ids_other) - 1, FLOOD_MB))
    assert rss < 200 * 1024, "sboxd RSS %d KiB" % rss
    kept_top, reads = _kept(c, ids_top)
    kept_other, reads_o = _kept(c, ids_other)
    mib = 1 << 20
    assert kept_top <= 16 * mib, kept_top
    assert kept_other <= 16 * mib, kept_other
    assert kept_top + kept_other <= 24 * mib, (kept_top, kept_other)
    # what is left is the newest output; the older says it was dropped
    assert kept_other >= 8 * mib, kept_other
    newest = reads_o[max(reads_o)]
    assert len(base64.b64decode(newest["stdout"])) == FLOOD_MB * mib
    assert not newest["output_truncated"], newest["output_dropped"]
    dropped = [r for r in list(reads.values()) + list(reads_o.values())
               if r["output_dropped"] > 0]
    assert dropped and all(r["output_truncated"] for r in dropped)
    assert min(dropped, key=lambda r: r["command"])["command"] < \
        newest["command"]
    c.close()


def _limited(c, s):
    """The error of a command in s when its caches are full, else None."""
    try:
        r = run(c, s, "true")
        # ran, or was killed by the check that stopped the caches while
        # it ran (the timer's kill races the command): not refused yet
        assert r.code == 0 or r.signal == 9, r
        return None
    except sboxtest.RpcError as e:
        assert e.name == "sbox.LimitExceeded", e
        return e


WRITER = ("i=0; while [ $i -lt 600 ]; do head -c 1048576 /dev/zero > "
          "~/.cache/grow$i || exit 3; i=$((i+1)); sleep 0.05; done")


def test_cache_over_its_limit_stops_only_its_sessions(ctx):
    """A sandbox filling its caches past limits.cache_mb: its writer is
    killed and its next commands refused with a message that says how to
    clear them; another project's sessions of the same profile keep
    running commands and new sessions start; once cleared, it works."""
    d = ctx.daemon({"sandbox": {"profiles": {"small": {
        "extends": "workspace", "limits": {"cache_mb": 8}}}}}, start=False,
        name="isocache")
    make_home(d.home)
    d.start()
    c = d.client()
    pa = make_project(os.path.join(d.root, "proj-a"))
    pb = make_project(os.path.join(d.root, "proj-b"))
    a = create(c, pa, "small")
    b = create(c, pb, "small")
    w = c.call("command.exec", {"session": a, "argv": ["sh", "-c", WRITER],
                                "detach": True, "stdio": "none"})["command"]
    e = []
    wait_for(lambda: e.append(_limited(c, a)) or e[-1] is not None, 60,
             step=0.2, what="session A's commands to be refused")
    assert "over their limit of 8 MiB" in e[-1].message and \
        "sbox cache clear --project" in e[-1].message, e[-1]
    r = c.call("command.wait", {"command": w})
    assert r["state"] == "killed" and r["signal"] == 9, r
    # the other project's session of the same profile runs, and a new one
    # starts and runs
    assert run(c, b, "echo b > ~/.cache/b && cat ~/.cache/b").out == "b\n"
    b2 = create(c, pb, "small")
    assert run(c, b2, "echo ok").out == "ok\n"
    # cleared, A runs again
    r = d.cli("cache", "clear", "--project", pa)
    assert r.returncode == 0, r
    wait_for(lambda: _limited(c, a) is None, 60, step=0.2,
             what="session A to run again after the clear")
    c.close()


def test_state_disk_full_keeps_other_sessions_working(ctx):
    """The state folder on a small file system: a sandbox that runs
    `dd if=/dev/zero of=$HOME/.cache/fill` until the disk is full does not
    make another session's exec or a new session fail (sboxd frees its
    reserve for its own records), its own commands are then refused, and
    sandbox check says the disk is short."""
    if not is_root():
        raise Skip("mounting a small file system for the state folder "
                   "needs root")
    d = ctx.daemon(None, start=False, name="isodisk")
    make_home(d.home)
    os.makedirs(d.state, mode=0o700)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=192m,mode=0700",
                    "tmpfs", d.state], check=True)
    try:
        d.start()
        c = d.client()
        pa = make_project(os.path.join(d.root, "proj-a"))
        pb = make_project(os.path.join(d.root, "proj-b"))
        a = create(c, pa)
        b = create(c, pb)
        assert os.path.getsize(os.path.join(d.state, "reserve")) == 64 << 20
        r = run(c, a, "dd if=/dev/zero of=$HOME/.cache/fill bs=1M 2>&1; "
                      "df -k $HOME/.cache | tail -1")
        # dd ends on the full disk, or the disk guard stops it first (its
        # cache grew while the disk was short): either way it ends
        assert "No space left" in r.out or r.signal == 9, r
        # the disk is full: another session still runs commands, and a new
        # session starts
        for i in range(3):
            out = run(c, b, "echo still-%d" % i).out
            assert out == "still-%d\n" % i, out
        b2 = create(c, pb)
        assert run(c, b2, "echo new").out == "new\n"
        assert not os.path.exists(os.path.join(d.state, "reserve"))
        # the session that filled it is stopped
        wait_for(lambda: _limited(c, a) is not None, 30, step=0.2,
                 what="the filling session's commands to be refused")
        r = d.cli("--json", "sandbox", "check", "--profile", "workspace",
                  timeout=120)
        steps = {st["id"]: st for st in json.loads(r.stdout)["steps"]}
        assert not steps["disk"]["ok"] and "short of space" in \
            steps["disk"]["detail"], steps["disk"]
        assert "caches over their limit" in steps["disk"]["detail"], \
            steps["disk"]
        c.close()
    finally:
        d.stop()
        subprocess.run(["umount", "-l", d.state])


def test_short_disk_stops_only_growing_caches(ctx):
    """The same as a user, without mounting: a reserve larger than the free
    space makes the state file system short from the start. A sandbox that
    grows its caches then is stopped; another project's session (whose
    caches do not grow) runs and a new session starts; sandbox check says
    the disk is short."""
    d = ctx.daemon({"daemon": {"disk_reserve_mb": 1048576}}, start=False,
                   name="isoshort")
    make_home(d.home)
    d.start()
    c = d.client()
    pa = make_project(os.path.join(d.root, "proj-a"))
    pb = make_project(os.path.join(d.root, "proj-b"))
    a = create(c, pa)
    b = create(c, pb)
    assert not os.path.exists(os.path.join(d.state, "reserve"))
    assert run(c, a, "head -c 4194304 /dev/zero > ~/.cache/f").code == 0
    e = []
    wait_for(lambda: e.append(_limited(c, a)) or e[-1] is not None, 30,
             step=0.2, what="the growing session's commands to be refused")
    assert "short of space" in e[-1].message, e[-1]
    assert run(c, b, "echo b > ~/.cache/b && cat ~/.cache/b").out == "b\n"
    b2 = create(c, pb)
    assert run(c, b2, "echo new").out == "new\n"
    r = d.cli("--json", "sandbox", "check", "--profile", "workspace",
              timeout=120)
    steps = {st["id"]: st for st in json.loads(r.stdout)["steps"]}
    assert not steps["disk"]["ok"] and "short of space" in \
        steps["disk"]["detail"] and "not held" in steps["disk"]["detail"], \
        steps["disk"]
    c.close()
