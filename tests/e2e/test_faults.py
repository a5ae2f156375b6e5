"""End-to-end fault tests (issue 27): sboxd keeps its word when the machine
misbehaves. Each test makes one fault on purpose (a full disk, a store
locked, deleted or replaced from outside, kill -9 at random points, a FIFO
or missing config, a crowd of clients, a hostile environment) and ends with
the daemon serving and `PRAGMA integrity_check` ok, with nothing it
promised lost without a count.

Runs as root and as an unprivileged user; what needs root (a tmpfs for a
full disk, a bind mount over /etc/subuid, a server of another uid) is
skipped for the user with the reason."""
import json
import os
import random
import resource
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import tempfile
import threading
import time

import sboxtest
from sboxtest import Client, RpcError, Skip, is_root, wait_for
from daemonlib import out, req
from sandboxlib import make_project, sbox_processes


# ---------------------------------------------------------------- helpers

def ctx_cleanup_tree(ctx, path):
    """Remove path with the context's own folders at the end of the test."""
    orig = ctx.cleanup

    def cleanup():
        try:
            orig()
        finally:
            shutil.rmtree(path, ignore_errors=True)
    ctx.cleanup = cleanup


def db_path(d):
    return os.path.join(d.state, "sbox.db")


def integrity_ok(d):
    """PRAGMA integrity_check of the daemon's database says ok."""
    con = sqlite3.connect(db_path(d), timeout=10)
    try:
        r = con.execute("PRAGMA integrity_check").fetchall()
    finally:
        con.close()
    assert r == [("ok",)], r


def db_rows(d, sql, args=()):
    con = sqlite3.connect(db_path(d), timeout=10)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def health(c):
    return c.call("daemon.status")["store_health"]


def serving_and_intact(d):
    """Every fault ends here: a new client is served, the store is sound."""
    c = d.client()
    assert c.call("rpc.ping")["pong"] is True
    st = c.call("daemon.status")
    c.close()
    integrity_ok(d)
    return st


def unsandboxed(c, proj):
    return c.call("session.create", {"project": proj, "sandbox": "none"})[
        "session"]


def project(ctx, name="proj"):
    p = os.path.join(ctx.tmp, name)
    os.makedirs(p, exist_ok=True)
    os.chmod(p, 0o755)
    return p


def lock_holder(path):
    """A python process that holds BEGIN EXCLUSIVE on the database until
    its stdin closes; returns it once the lock is taken."""
    code = ("import sqlite3,sys\n"
            "c=sqlite3.connect(sys.argv[1],isolation_level=None,timeout=10)\n"
            "c.execute('BEGIN EXCLUSIVE')\n"
            "print('locked',flush=True)\n"
            "sys.stdin.read()\n"
            "c.execute('COMMIT')\n")
    p = subprocess.Popen(["python3", "-c", code, path], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    assert p.stdout.readline().strip() == b"locked"
    return p


def release(p):
    p.stdin.close()
    assert p.wait(10) == 0


def raise_nofile(want):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= want:
        return soft, hard
    if hard != resource.RLIM_INFINITY and hard < want:
        raise Skip("RLIMIT_NOFILE hard limit %d is below %d" % (hard, want))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return soft, hard


# ---------------------------------------------------------------- the store

def test_store_locked_status_fast_and_end_kept(ctx):
    """A process holding the database locked: daemon status stays fast, a
    session closed meanwhile keeps its end (delayed, counted, written when
    the lock goes), store.degraded is published."""
    d = ctx.daemon()
    c = d.client()
    ev = d.client()
    ev.call("events.subscribe", {"topics": ["store.*"]})
    sid = unsandboxed(c, project(ctx))
    holder = lock_holder(db_path(d))
    try:
        for _ in range(3):
            t = time.monotonic()
            c.call("daemon.status")
            took = time.monotonic() - t
            # the old 5 s busy timeout on the loop took 4.5-13.5 s here
            assert took < 1.5, "daemon.status took %.2f s" % took
        c.call("session.close", {"session": sid})
        h = health(c)
        assert h["ok"] is False and h["delayed"] >= 1, h
        assert "locked" in (h["error"] or ""), h
        n = ev.wait_notification("events.event", lambda p:
                                 p["topic"] == "store.degraded", timeout=10)
        assert n["data"]["reason"] == "write", n
        # a read still works from what is stored
        log = d.cli("session", "log", sid)
        assert log.returncode == 0, out(log)
    finally:
        release(holder)
    wait_for(lambda: health(c)["delayed"] == 0 and health(c)["ok"], 10,
             what="the delayed end to be written")
    assert db_rows(d, "SELECT state FROM sessions WHERE id = ?",
                   (sid,)) == [("closed",)]
    ev.wait_notification("events.event", lambda p:
                         p["topic"] == "store.recovered", timeout=10)
    assert health(c)["dropped"] == 0
    serving_and_intact(d)


def test_store_locked_2s_exec_waits_and_succeeds(ctx):
    """Issue 45: another process holds the database locked (BEGIN
    EXCLUSIVE) for 2 s. `session exec` failed with "beginning a
    transaction: database is locked" (busy timeout 50 ms); it now waits,
    tried again from a timer (the loop serves others meanwhile), starts
    when the lock goes, and an RPC client hears of the wait once it is
    past 1 s (command.waiting)."""
    d = ctx.daemon()
    c = d.client()
    sid = c.call("session.create", {"project": project(ctx),
                                    "sandbox": "workspace"})["session"]
    for via in ("cli", "rpc"):
        holder = lock_holder(db_path(d))
        t0 = time.monotonic()
        timer = threading.Timer(2.0, release, (holder,))
        timer.start()
        try:
            if via == "cli":
                r = d.cli("session", "exec", sid, "--no-tty", "--",
                          "echo", "ran-after-lock", timeout=30)
                took = time.monotonic() - t0
                assert r.returncode == 0, out(r)
                assert b"ran-after-lock" in r.stdout, out(r)
            else:
                other = d.client()
                # others are served while the exec waits
                rid = c.send("command.exec", {
                    "session": sid, "argv": ["echo", "ran-after-lock"],
                    "stdio": "pipes"})
                time.sleep(0.3)
                t = time.monotonic()
                assert other.call("rpc.ping")["pong"] is True
                assert time.monotonic() - t < 1.0, "the loop was stalled"
                other.close()
                w = c.wait_notification("command.waiting", lambda p: True,
                                        timeout=10)
                assert w["method"] == "command.exec", w
                assert w["waited_ms"] >= 1000, w
                c.sock.settimeout(30)
                res = c.result(c.wait_reply(rid))
                c.sock.settimeout(None)
                took = time.monotonic() - t0
                assert res["exit_code"] == 0, res
        finally:
            timer.join()
        assert 1.5 < took < 5.0, "%s: exec took %.2f s" % (via, took)
    assert health(c)["dropped"] == 0
    c.call("session.close", {"session": sid})
    serving_and_intact(d)


def bwraps_of(pid):
    """The bwrap processes among pid's children."""
    out = []
    for t in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/children" % (pid, t)) as f:
            for k in f.read().split():
                try:
                    with open("/proc/%s/comm" % k) as g:
                        if g.read().strip() == "bwrap":
                            out.append(int(k))
                except OSError:
                    pass
    return out


def test_sandboxed_create_whose_row_cannot_be_written_leaves_nothing(ctx):
    """The row of a sandboxed session is written while its bwrap starts: a
    store that refuses it (locked) fails the create, and its sandbox,
    scratch folder and note are gone; once the lock goes, a create works."""
    d = ctx.daemon()
    c = d.client()
    proj = project(ctx)
    first = c.call("session.create", {"project": proj,
                                      "sandbox": "workspace"})["session"]
    c.call("session.close", {"session": first})
    scratch = os.path.join(os.path.dirname(d.state), "sbox-scratch")
    notes = os.path.join(d.state, "sessions")
    holder = lock_holder(db_path(d))
    try:
        try:
            sid = c.call("session.create", {"project": proj,
                                            "sandbox": "workspace"})
            raise AssertionError("created with the store locked: %s" % sid)
        except RpcError as e:
            assert "lock" in str(e).lower(), e
        listed = c.call("session.list")["sessions"]
        assert [s for s in listed if s.get("state") in (
            "starting", "ready")] == [], listed
        # its bwrap had started, and ends (the first session's has already)
        with open(d.log, errors="replace") as f:
            assert "its row could not be written" in f.read()
        wait_for(lambda: bwraps_of(d.proc.pid) == [], 10,
                 what="the failed create's bwrap to end")
        # what is left: at most the pair made ahead for the next create
        left = os.listdir(scratch) if os.path.isdir(scratch) else []
        assert len(left) <= 1, left
        assert sorted(x[:-5] for x in os.listdir(notes)) == sorted(left)
    finally:
        release(holder)
    sid = c.call("session.create", {"project": proj,
                                    "sandbox": "workspace"})["session"]
    assert db_rows(d, "SELECT state FROM sessions WHERE id = ?",
                   (sid,)) == [("ready",)] or db_rows(
        d, "SELECT state FROM sessions WHERE id = ?", (sid,)) == [
        ("starting",)]
    c.call("session.close", {"session": sid})
    serving_and_intact(d)


def test_store_deleted_is_recreated_with_live_state(ctx):
    """rm sbox.db* while sboxd runs: noticed, re-created, the live session
    and its commands written again (same ids; a finished one with its
    end)."""
    d = ctx.daemon()
    c = d.client()
    sid = unsandboxed(c, project(ctx))
    cmd = c.call("command.exec", {"session": sid, "argv": ["sleep", "86401"],
                                  "detach": True, "stdio": "pipes"})
    cid = cmd["command"]
    done = c.call("command.exec", {"session": sid, "argv": ["true"],
                                   "stdio": "pipes"})
    assert done["state"] == "exited", done
    for name in os.listdir(d.state):
        if name.startswith("sbox.db"):
            os.unlink(os.path.join(d.state, name))
    wait_for(lambda: health(c)["reopened"] == 1, 10,
             what="the database to be re-created")
    wait_for(lambda: os.path.exists(db_path(d)) and db_rows(
        d, "SELECT state FROM sessions WHERE id = ?", (sid,)) == [("ready",)],
        10, what="the live session in the new database")
    assert db_rows(d, "SELECT state FROM commands WHERE id = ?",
                   (cid,)) == [("running",)]
    # a finished command the daemon still holds comes back with its end
    assert db_rows(d, "SELECT state, exit_code FROM commands WHERE id = ?",
                   (done["command"],)) == [("exited", 0)]
    # a command that ends now is written into the new database
    r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c",
                                                         "exit 3"],
                                "stdio": "pipes"})
    assert db_rows(d, "SELECT exit_code FROM commands WHERE id = ?",
                   (r["command"],)) == [(3,)]
    c.call("session.close", {"session": sid})
    wait_for(lambda: db_rows(d, "SELECT state FROM commands WHERE id = ?",
                             (cid,)) != [("running",)], 10,
             what="the command's end in the new database")
    assert db_rows(d, "SELECT state FROM sessions WHERE id = ?",
                   (sid,)) == [("closed",)]
    assert "re-creating it" in d.read_log()
    serving_and_intact(d)


def test_store_replaced_is_set_aside(ctx):
    """A file that is not a database put in sbox.db's place: set aside as
    sbox.db.bad-*, a new database made with the live session."""
    d = ctx.daemon()
    c = d.client()
    sid = unsandboxed(c, project(ctx))
    junk = db_path(d) + ".junk"
    with open(junk, "wb") as f:
        f.write(b"not a database at all\n" * 100)
    os.rename(junk, db_path(d))
    wait_for(lambda: health(c)["reopened"] == 1, 10,
             what="the database to be re-created")
    assert any(n.startswith("sbox.db.bad-") for n in os.listdir(d.state))
    assert db_rows(d, "SELECT state FROM sessions WHERE id = ?",
                   (sid,)) == [("ready",)]
    c.call("session.close", {"session": sid})
    serving_and_intact(d)


def test_disk_full_nothing_promised_lost(ctx):
    """The state folder on a small full filesystem: a command's end and the
    session's end are kept and written once there is room; the refusals
    are counted; session log works meanwhile."""
    if not is_root():
        raise Skip("needs a tmpfs mount (root); the locked-store test covers "
                   "the same delayed writes as a user")
    # no reserve: a 3 MB disk could never hold the 64 MiB one, and sboxd
    # now refuses to start on a disk too small even to scale it down to
    # 1 MiB unless it is set to 0 (issue 45)
    d = ctx.daemon({"daemon": {"disk_reserve_mb": 0}}, start=False)
    os.makedirs(d.state, mode=0o700)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m,mode=0700",
                       "tmpfs", d.state]).returncode != 0:
        raise Skip("cannot mount a tmpfs here")
    try:
        d.start()
        c = d.client()
        sid = unsandboxed(c, project(ctx))
        cmd = c.call("command.exec", {"session": sid, "argv": [
            "sh", "-c", "read x; exit 7"], "stdio": "pipes",
            "detach": True, "stdin": True})
        cid = cmd["command"]
        fill = os.path.join(d.state, "fill")
        subprocess.run(["dd", "if=/dev/zero", "of=" + fill, "bs=64k"],
                       capture_output=True)
        st = os.statvfs(d.state)
        assert st.f_bavail == 0, "the tmpfs is not full"
        # the end of the command and of the session cannot be written now
        c.call("command.kill", {"command": cid, "signal": 9})
        c.call("session.close", {"session": sid})
        wait_for(lambda: health(c)["delayed"] >= 1, 10,
                 what="a write to be delayed")
        h = health(c)
        assert h["ok"] is False, h
        log = d.cli("session", "log", sid)
        assert log.returncode == 0, out(log)
        os.unlink(fill)
        wait_for(lambda: health(c)["delayed"] == 0 and health(c)["ok"], 10,
                 what="the delayed writes")
        assert db_rows(d, "SELECT state FROM commands WHERE id = ?",
                       (cid,))[0][0] != "running"
        assert db_rows(d, "SELECT state FROM sessions WHERE id = ?",
                       (sid,)) == [("closed",)]
        assert health(c)["dropped"] == 0
        serving_and_intact(d)
        d.stop()
    finally:
        if d.proc is not None and d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait()
        subprocess.run(["umount", "-l", d.state])


# ---------------------------------------------------------------- crashes

def leftovers(d, marker):
    """What a crash left: scratch folders and notes of no live session,
    processes of the marker, rows still live in the store."""
    n = []
    scratch = os.path.join(os.path.dirname(d.state), "sbox-scratch")
    if os.path.isdir(scratch):
        n += ["scratch " + x for x in os.listdir(scratch)]
    notes = os.path.join(d.state, "sessions")
    if os.path.isdir(notes):
        n += ["note " + x for x in os.listdir(notes)]
    n += ["process %d" % p for p in sbox_processes(marker)]
    n += ["session row %s %s" % r for r in db_rows(
        d, "SELECT id, state FROM sessions WHERE state IN "
        "('starting', 'ready')")]
    n += ["command row %s" % r for r in db_rows(
        d, "SELECT id FROM commands WHERE state = 'running'")]
    n += ["approval row %s" % r for r in db_rows(
        d, "SELECT id FROM approvals WHERE decision = 'pending'")]
    return n


def test_kill9_at_random_points_leaves_nothing(ctx):
    """kill -9 at random moments of session.create, command.exec and an
    approved run outside, ten times: after each restart nothing is left
    (no scratch folder, note, process, or live or pending row)."""
    rnd = random.Random(27)
    d = ctx.daemon(start=False)
    proj = project(ctx)
    marker = "86400%d" % os.getpid()
    counts = []
    for i in range(10):
        d.start()
        c = d.client()
        a = d.client()
        a.call("events.subscribe", {"topics": ["approval.requested"]})

        def work():
            try:
                sid = c.call("session.create", {
                    "project": proj, "sandbox": "workspace",
                    "env": {"PATH": "/usr/bin:/bin"}})["session"]
                c.call("command.exec", {"session": sid, "argv": [
                    "sleep", marker], "detach": True, "stdio": "pipes"})
                c.send("command.run_outside", {
                    "session": sid, "argv": ["sleep", marker],
                    "reason": "kill -9 test", "stdio": "pipes"})
                req_ = a.wait_notification(
                    "events.event", lambda p: p["topic"] ==
                    "approval.requested", timeout=10)["data"]
                a.call("approval.decide", {"approval": req_["approval"],
                                           "decision": "allow_once"})
                c.call("command.exec", {"session": sid, "argv": [
                    "sh", "-c", "sleep " + marker], "stdio": "pipes"})
            except (RpcError, OSError, ConnectionError, ValueError,
                    AssertionError):
                pass
        t = threading.Thread(target=work, daemon=True)
        t.start()
        time.sleep(rnd.uniform(0.0, 0.8))
        d.kill()
        t.join(15)
        c.close()
        a.close()
        wait_for(lambda: not sbox_processes("sleep\0" + marker), 10,
                 what="the sandbox's processes to die with sboxd")
        d.start()
        st = serving_and_intact(d)
        assert st["store_health"]["recovery_pending"] is False, st
        left = leftovers(d, "sleep\0" + marker)
        counts.append(len(left))
        assert left == [], "after kill %d: %s" % (i, left)
        d.stop()
    assert counts == [0] * 10, counts


def test_recovery_retried_while_store_locked(ctx):
    """A crash recovery that cannot write (the store locked) is retried
    and reported; the dead session is never listed as ready."""
    d = ctx.daemon()
    c = d.client()
    sid = unsandboxed(c, project(ctx))
    c.close()
    d.kill()
    holder = lock_holder(db_path(d))
    try:
        d.start()
        c = d.client()
        h = health(c)
        assert h["recovery_pending"] is True and h["ok"] is False, h
        rows = c.call("session.list", {"all": True})["sessions"]
        mine = [r for r in rows if r["session"] == sid]
        assert mine and mine[0]["state"] == "unsettled", mine
    finally:
        release(holder)
    wait_for(lambda: health(c)["recovery_pending"] is False, 10,
             what="the recovery to be retried")
    assert db_rows(d, "SELECT state FROM sessions WHERE id = ?",
                   (sid,)) == [("ended_by_crash",)]
    serving_and_intact(d)


# ---------------------------------------------------------------- config

def test_config_fifo_at_start_and_reload(ctx):
    """A config that is a FIFO is refused at once (start and reload); the
    daemon keeps serving with the old config."""
    d = ctx.daemon(start=False)
    os.mkfifo(d.config)
    r = subprocess.run(d.args(), env=d.env(), stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=10)
    assert r.returncode != 0 and b"not a regular file" in r.stderr, r
    os.unlink(d.config)
    d.write_config({"sandbox": {"all_sessions": "strict"}})
    d.start()
    os.unlink(d.config)
    os.mkfifo(d.config)
    r = d.cli("daemon", "reload", timeout=10)
    assert r.returncode != 0 and b"not a regular file" in r.stderr, out(r)
    d.proc.send_signal(signal.SIGHUP)
    c = d.client()
    wait_for(lambda: "not a regular file" in d.read_log().split(
        "daemon.reload")[-1], 5, what="the SIGHUP reload to be refused")
    assert c.call("rpc.ping")["pong"] is True
    sid = c.call("session.create", {"project": project(ctx)})["session"]
    info = c.call("session.info", {"session": sid})
    assert info["profile"] == "strict", info
    c.call("session.close", {"session": sid})
    serving_and_intact(d)


def test_config_missing_at_reload_keeps_old(ctx):
    """A config deleted before a reload: the old one (all_sessions strict)
    stays and says so; `sbox config reset` takes the empty config."""
    d = ctx.daemon({"sandbox": {"all_sessions": "strict"}})
    c = d.client()
    proj = project(ctx)
    os.unlink(d.config)
    r = d.cli("daemon", "reload")
    assert r.returncode != 0, out(r)
    assert "is gone" in out(r) and "config reset" in out(r), out(r)
    sid = c.call("session.create", {"project": proj})["session"]
    assert c.call("session.info", {"session": sid})["profile"] == "strict"
    c.call("session.close", {"session": sid})
    r = d.cli("config", "reset")
    assert r.returncode == 0 and b"empty config" in r.stdout, out(r)
    sid = c.call("session.create", {"project": proj})["session"]
    assert c.call("session.info", {"session": sid})["profile"] != "strict"
    c.call("session.close", {"session": sid})
    serving_and_intact(d)


# ---------------------------------------------------------------- clients

def test_1000_idle_clients_one_more_is_served(ctx):
    """1,000 idle connections of one user do not lock that user out: the
    longest-idle ones are closed to make room, the next client is served."""
    soft, hard = raise_nofile(1200)
    d = ctx.daemon()
    socks = []
    try:
        for _ in range(1000):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(d.sock)
            socks.append(s)
        # (the listen backlog may still be full of the 1,000: a client
        # connects again, as the sbox CLI's blocking connect waits)
        box = []

        def connected():
            try:
                box.append(d.client())
                return True
            except BlockingIOError:
                return False
        wait_for(connected, 20, what="a new client to be accepted")
        c = box[0]
        assert c.call("rpc.ping")["pong"] is True
        st = c.call("daemon.status")
        assert st["connections"] <= 1024, st
        # the oldest idle connection was closed, not the newest
        socks[0].settimeout(10)
        assert socks[0].recv(1) == b"", "the oldest idle one is still open"
        c.close()
    finally:
        for s in socks:
            s.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    serving_and_intact(d)


def test_idle_timeout_closes_idle_not_busy(ctx):
    """--idle-timeout: an idle connection is closed, one with an events
    subscription stays."""
    d = ctx.daemon(start=False)
    d.start(extra=["--idle-timeout", "1"])
    idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    idle.connect(d.sock)
    busy = d.client()
    busy.call("events.subscribe", {"topics": ["none.such"]})
    idle.settimeout(15)
    assert idle.recv(1) == b"", "the idle connection stayed open"
    assert busy.call("rpc.ping")["pong"] is True
    idle.close()
    serving_and_intact(d)


def test_200_exec_and_close_leave_nothing_running(ctx):
    """200 clients that send command.exec and close at once: no command is
    left running without its client, no process stays."""
    soft, hard = raise_nofile(600)
    d = ctx.daemon()
    c = d.client()
    sid = c.call("session.create", {"project": project(ctx),
                                    "sandbox": "workspace",
                                    "env": {"PATH": "/usr/bin:/bin"}})[
        "session"]
    marker = "86402%d" % os.getpid()
    line = req("command.exec", {"session": sid, "argv": ["sleep", marker],
                                "stdio": "pipes"})
    hello = req("rpc.hello", {"protocol": 1}, id=0)
    socks = []
    try:
        for _ in range(200):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(d.sock)
            s.sendall(hello + line)
            socks.append(s)
        for s in socks:
            s.close()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    def running():
        return c.call("session.info", {"session": sid})["running"]
    wait_for(lambda: running() == 0, 30,
             what="every command of a gone client to end")
    wait_for(lambda: not sbox_processes("sleep\0" + marker), 10,
             what="the commands' processes to end")
    rows = db_rows(d, "SELECT state, count(*) FROM commands WHERE session = ?"
                   " GROUP BY state", (sid,))
    assert "running" not in dict(rows), rows
    c.call("session.close", {"session": sid})
    serving_and_intact(d)


# ---------------------------------------------------------------- environment

def test_socket_path_too_long_refused_before_store(ctx):
    d = ctx.daemon(start=False)
    long_dir = os.path.join(ctx.tmp, "x" * 100)
    os.makedirs(long_dir, mode=0o700)
    args = d.args()
    args[args.index("--socket") + 1] = os.path.join(long_dir, "sboxd.sock")
    r = subprocess.run(args, env=d.env(), stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=10)
    assert r.returncode != 0 and b"socket path too long" in r.stderr, r
    assert not os.path.exists(db_path(d)), "the store was opened first"


def test_runtime_dir_must_be_private(ctx):
    """A world-writable XDG_RUNTIME_DIR is refused (the default socket
    would live in it)."""
    d = ctx.daemon(start=False)
    run = os.path.join(ctx.tmp, "run")
    os.makedirs(run)
    os.chmod(run, 0o777)
    args = [a for a in d.args()]
    i = args.index("--socket")
    del args[i:i + 2]
    env = d.env()
    env["XDG_RUNTIME_DIR"] = run
    r = subprocess.run(args, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=10)
    assert r.returncode != 0 and b"mode 0700" in r.stderr, r
    assert not os.path.exists(db_path(d))


def test_client_refuses_server_of_another_uid(ctx):
    if not is_root():
        raise Skip("needs a server running as another uid (root)")
    sdir = tempfile.mkdtemp(dir=ctx.tmp)
    os.chmod(sdir, 0o777)
    path = os.path.join(sdir, "fake.sock")
    code = ("import os,socket,sys\n"
            "os.setgid(65534); os.setuid(65534)\n"
            "s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)\n"
            "print('up',flush=True)\n"
            "while True:\n"
            "  c,_=s.accept(); c.recv(4096)\n"
            "  c.sendall(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\\n')\n")
    p = subprocess.Popen(["python3", "-c", code, path], stdout=subprocess.PIPE)
    try:
        assert p.stdout.readline().strip() == b"up"
        r = subprocess.run([os.path.join(sboxtest.BIN, "sbox"), "--socket",
                            path, "daemon", "status"], capture_output=True,
                           timeout=10)
        assert r.returncode != 0 and b"runs as uid 65534" in r.stderr, r
    finally:
        p.kill()
        p.wait()


def test_start_race_names_the_winner(ctx):
    """Two sboxd started at once on one state folder: the loser names the
    winner's pid."""
    d = ctx.daemon(start=False)
    for _ in range(3):
        procs = [subprocess.Popen(d.args(), env=d.env(),
                                  stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for _ in range(2)]
        wait_for(lambda: any(p.poll() is not None for p in procs), 15,
                 what="one sboxd to lose")
        loser = [p for p in procs if p.poll() is not None][0]
        winner = [p for p in procs if p is not loser][0]
        err = loser.stderr.read().decode()
        assert "pid %d)" % winner.pid in err, err
        winner.send_signal(signal.SIGTERM)
        winner.wait(15)
        for p in procs:
            p.stdout.close()
            p.stderr.close()


def test_lock_names_only_a_live_holder(ctx):
    """The lock file still holds the pid of the sboxd before (gone) while
    its new holder has not written its own: the loser does not name the
    gone one. Once the holder's pid is there, it is named."""
    import fcntl
    d = ctx.daemon(start=False)
    os.makedirs(d.state, mode=0o700, exist_ok=True)
    gone = subprocess.Popen(["true"])
    gone.wait()
    with open(os.path.join(d.state, "sboxd.lock"), "w+") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        f.write("%d\n" % gone.pid)
        f.flush()
        r = subprocess.run(d.args(), env=d.env(), stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=30)
        assert r.returncode != 0, r
        assert b"did not write its pid" in r.stderr, r.stderr
        assert b"pid %d)" % gone.pid not in r.stderr, r.stderr
        f.seek(0)
        f.truncate()
        f.write("%d\n" % os.getpid())
        f.flush()
        r = subprocess.run(d.args(), env=d.env(), stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=30)
        assert r.returncode != 0, r
        assert b"pid %d)" % os.getpid() in r.stderr, r.stderr


def test_subuid_range_naming_an_account_refused(ctx):
    if not is_root():
        raise Skip("sandboxes of a user's sboxd do not use /etc/subuid")
    d = ctx.daemon(start=False)
    fake = os.path.join(ctx.tmp, "subuid")
    with open(fake, "w") as f:
        f.write("sbox:65534:1\n")
    cmd = "mount --bind %s /etc/subuid && exec \"$@\"" % fake
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh",
                        "-c", cmd, "sh"] + d.args(), env=d.env(),
                       stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=15)
    if b"unshare failed" in r.stderr or b"mount:" in r.stderr:
        raise Skip("cannot make a private mount namespace: %r" % r.stderr)
    assert r.returncode != 0, r
    assert b"uid 65534" in r.stderr and b"is the account" in r.stderr, r


def test_timeout_kills_setsid_grandchild(ctx):
    d = ctx.daemon()
    c = d.client()
    sid = c.call("session.create", {"project": project(ctx),
                                    "sandbox": "workspace",
                                    "env": {"PATH": "/usr/bin:/bin"}})[
        "session"]
    marker = "86403%d" % os.getpid()
    r = c.call("command.exec", {"session": sid, "argv": [
        "sh", "-c", "setsid sleep %s & sleep %s1" % (marker, marker)],
        "stdio": "pipes", "timeout": 1})
    assert r["state"] == "timeout", r
    wait_for(lambda: not sbox_processes("sleep\0" + marker), 10,
             what="the setsid grandchild to be killed")
    c.call("session.close", {"session": sid})
    serving_and_intact(d)


def test_file_refused_events_rate_limited(ctx):
    """A command that hammers two protected files: its refusals are all
    noted on the command, but file.refused events are rate-limited like
    host.refused (5 per session, operation and path in 10 s)."""
    d = ctx.daemon()
    proj = make_project(os.path.join(ctx.tmp, "gitproj"))
    os.chmod(proj, 0o755)
    c = d.client()
    ev = d.client()
    ev.call("events.subscribe", {"topics": ["file.refused",
                                            "command.exited"]})
    sid = c.call("session.create", {"project": proj, "sandbox": "workspace",
                                    "env": {"PATH": "/usr/bin:/bin"}})[
        "session"]
    # alternating paths: sbox-init does not fold them as one repeat
    r = c.call("command.exec", {"session": sid, "argv": [
        "sh", "-c", "for i in $(seq 60); do echo x > .git/hooks/a; "
        "echo x > .git/hooks/b; done 2>/dev/null; true"],
        "stdio": "pipes"})
    assert r["exit_code"] == 0, r
    files = r["blocked"]["files"]
    assert any(f["path"].endswith(".git/hooks/a") for f in files), files
    ev.wait_notification("events.event", lambda p: p["topic"] ==
                         "command.exited", timeout=10)
    per_path = {}
    for n in ev.notifications:
        p = n["params"]
        if p["topic"] != "file.refused" or p["data"].get("summary"):
            continue
        per_path[p["data"]["path"]] = per_path.get(p["data"]["path"], 0) + 1
    assert per_path, "no file.refused event at all"
    assert all(v <= 5 for v in per_path.values()), per_path
    c.call("session.close", {"session": sid})
    serving_and_intact(d)


def test_finished_commands_hold_no_descriptors(ctx):
    """A finished command keeps its output for command.read, not its
    pipes: 40 finished commands add (almost) no descriptor to sboxd."""
    d = ctx.daemon()
    c = d.client()
    sid = c.call("session.create", {"project": project(ctx),
                                    "sandbox": "workspace",
                                    "env": {"PATH": "/usr/bin:/bin"}})[
        "session"]

    def nfds():
        return len(os.listdir("/proc/%d/fd" % d.proc.pid))
    c.call("command.exec", {"session": sid, "argv": ["true"],
                            "stdio": "pipes"})
    before = nfds()
    ids = []
    for i in range(40):
        r = c.call("command.exec", {"session": sid, "argv": [
            "echo", "out%d" % i], "stdio": "pipes"})
        ids.append(r["command"])
    grown = nfds() - before
    assert grown < 10, "40 finished commands hold %d descriptors" % grown
    r = c.call("command.read", {"command": ids[0]})
    assert "out0" in json.dumps(r), r
    c.call("session.close", {"session": sid})
    serving_and_intact(d)


def test_bwrap_exec_failure_says_why(ctx):
    """--bwrap that cannot be executed: the error says why (errno text),
    not only `exited with status 127`."""
    # outside /tmp: as root a bwrap under /tmp is refused before its exec
    # (test_bwrap_under_tmp_says_why)
    outside = tempfile.mkdtemp(prefix="sbox-e2e-bwrap-", dir="/var/tmp")
    os.chmod(outside, 0o755)
    ctx_cleanup_tree(ctx, outside)
    bad = os.path.join(outside, "bwrap-bad")
    with open(bad, "wb") as f:
        f.write(b"garbage, not a program\n")
    os.chmod(bad, 0o755)
    noexec = os.path.join(outside, "bwrap-noexec")
    with open(noexec, "wb") as f:
        f.write(b"#!/bin/sh\n")
    os.chmod(noexec, 0o644)
    for path, why in ((bad, ("Exec format error", "No such file")),
                      (noexec, ("Permission denied",))):
        d = ctx.daemon(start=False)
        d.start(extra=["--bwrap", path])
        c = d.client()
        try:
            c.call("session.create", {"project": project(ctx),
                                      "sandbox": "workspace"})
            raise AssertionError("a session started with bwrap %s" % path)
        except RpcError as e:
            assert "cannot run bwrap" in e.message, e
            assert any(w in e.message for w in why), e
            assert "status 127" not in e.message, e
        c.close()
        serving_and_intact(d)
        d.stop()


def test_bwrap_under_tmp_says_why(ctx):
    """Issue 45: a bwrap under /tmp. As root, bwrap starts in a mount
    namespace whose /tmp is an empty tmpfs, so its exec said "No such file
    or directory" of a file that exists; the error now says why and what
    to do. As a user nothing is staged and the same bwrap runs."""
    real = shutil.which("bwrap")
    if real is None:
        raise Skip("no bwrap in PATH")
    copy = os.path.join(ctx.tmp, "bin", "bwrap")
    os.makedirs(os.path.dirname(copy))
    shutil.copy2(real, copy)
    os.chmod(copy, 0o755)
    d = ctx.daemon(start=False)
    d.start(extra=["--bwrap", copy])
    c = d.client()
    if is_root():
        try:
            c.call("session.create", {"project": project(ctx),
                                      "sandbox": "workspace"})
            raise AssertionError("a session started with bwrap under /tmp")
        except RpcError as e:
            assert "lies under /tmp" in e.message, e
            assert "--bwrap" in e.message, e
            assert "No such file" not in e.message, e
    else:
        sid = c.call("session.create", {"project": project(ctx),
                                        "sandbox": "workspace"})["session"]
        c.call("session.close", {"session": sid})
    c.close()
    serving_and_intact(d)


def test_client_socket_path_too_long_says_so(ctx):
    """Issue 45: a socket path over the 108 bytes of sun_path. The client
    said "start it with 'sboxd --socket ...'" (which fails the same way);
    it now says the path is too long and to choose a shorter one."""
    d = ctx.daemon(start=False)
    long_path = os.path.join(ctx.tmp, "x" * 120, "sboxd.sock")
    for args, env in ((["--socket", long_path], None),
                      ([], {"SBOX_SOCKET": long_path})):
        r = d.cli(*(args + ["--no-start", "daemon", "status"]), env=env)
        err = r.stderr.decode()
        assert r.returncode != 0, r
        assert "over the 107 a Unix socket path can hold" in err, err
        assert "shorter" in err, err
        assert "start it with" not in err, err
    run = os.path.join(ctx.tmp, "r" * 110)
    os.makedirs(run, mode=0o700)
    env = {"XDG_RUNTIME_DIR": run, "SBOX_SOCKET": ""}
    r = d.cli("--no-start", "daemon", "status", env=env)
    err = r.stderr.decode()
    assert r.returncode != 0 and "XDG_RUNTIME_DIR" in err, err
    assert "start it with" not in err, err


# ---------------------------------------------------------------- crash leftovers

def _proc_start(pid):
    """A process's start time (field 22 of /proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[19])


def _cgroups_named(owners):
    """Container cgroups under /sys/fs/cgroup made by any of owners (a set
    of (pid, start time)): sbox-<pid>-<start>-<n>, or sbox-<pid>-<n> whose
    mark names the owner."""
    found = []
    for top, dirs, _ in os.walk("/sys/fs/cgroup"):
        for n in dirs:
            f = n.split("-")
            if f[0] != "sbox" or len(f) not in (3, 4) or \
                    not all(x.isdigit() for x in f[1:]):
                continue
            path = os.path.join(top, n)
            if len(f) == 4 and (int(f[1]), int(f[2])) in owners:
                found.append(path)
                continue
            try:
                mark = os.getxattr(path, "user.sbox.owner").split()
            except OSError:
                continue
            if len(mark) == 3 and (int(mark[1]), int(mark[2])) in owners:
                found.append(path)
        if top.count("/") > 6:
            dirs[:] = []
    return found


def test_kill9_during_create_leaves_no_cgroup(ctx):
    """Issue 45: kill -9 of sboxd during session.create, 20 times. A
    cgroup made before its mark was written stayed for good (the sweep
    skipped unmarked ones); its name now holds sboxd's pid and start time,
    so the next start removes every one."""
    rnd = random.Random(45)
    d = ctx.daemon(start=False)
    proj = project(ctx)
    owners = set()
    made = 0
    for i in range(20):
        d.start()
        owners.add((d.proc.pid, _proc_start(d.proc.pid)))
        c = d.client()
        stop = threading.Event()

        def creates():
            while not stop.is_set():
                try:
                    c.call("session.create", {"project": proj,
                                              "sandbox": "workspace"})
                except (RpcError, OSError, ConnectionError, ValueError):
                    return
        t = threading.Thread(target=creates, daemon=True)
        t.start()
        time.sleep(rnd.uniform(0.01, 0.25))
        made += len(_cgroups_named({(d.proc.pid, _proc_start(d.proc.pid))}))
        d.kill()
        stop.set()
        t.join(15)
        c.close()
    d.start()
    wait_for(lambda: not _cgroups_named(owners), 15, step=0.1,
             what="every cgroup of the killed sboxd to go: %r" %
             _cgroups_named(owners))
    if is_root():
        assert made > 0, "a root sboxd makes a pids cgroup per container"
    serving_and_intact(d)
