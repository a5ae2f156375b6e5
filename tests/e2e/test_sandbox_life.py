"""End-to-end tests of the Linux session containers (issue 4), part 2: the
life of sessions and commands: limits (fork bomb, memory, /tmp, output
flood, timeouts), detached jobs, client disconnects, daemon SIGTERM and
SIGKILL with nothing left behind, the CLI (`session create|exec|send`,
`run`) and failing closed without bwrap.

Tests that do not stop the daemon share one (SH); it stops in
teardown_module(). They pass as root and as an unprivileged user."""
import base64
import json
import os
import signal
import socket
import sqlite3
import subprocess
import time

import sboxtest
from sboxtest import RpcError, Skip, is_root, wait_for
from sandboxlib import (Shared, create, make_home, make_project, mounts_under,
                        ok, py, rss_kb, run, sbox_processes, snapshot)

PIDS_LIMIT = 64


def config(d):
    return {"sandbox": {"profiles": {
        "small": {"extends": "workspace",
                  "limits": {"pids": PIDS_LIMIT, "memory_mb": 256,
                             "tmp_mb": 8, "output_mb": 1}},
    }}}


SH = Shared("life", config)


def teardown_module():
    SH.stop()


def failure_log():
    return SH.log()


def project():
    return SH.project()


def small():
    return SH.session("small", project(), "small")


def daemon_fine(d, c):
    """The daemon answers, and a new command runs."""
    assert d.proc.poll() is None, "sboxd died"
    assert c.call("rpc.ping")["pong"] is True


# ---------------------------------------------------------------- limits

FORK_LOOP = """
import errno, os, time
pids, err = [], None
for i in range(400):
    try:
        pid = os.fork()
    except OSError as e:
        err = e.errno
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    pids.append(pid)
print(len(pids), errno.errorcode.get(err, err))
for p in pids:
    os.kill(p, 9)
for p in pids:
    os.waitpid(p, 0)
"""


def test_fork_bomb_contained(ctx):
    c, d, s = SH.client(), SH.get(), small()
    before = len(os.listdir("/proc"))
    r = py(c, s, FORK_LOOP, timeout=60)
    assert r.code == 0, r
    n, err = r.out.split()
    assert err == "EAGAIN", r
    assert 0 < int(n) < PIDS_LIMIT, r
    daemon_fine(d, c)
    assert ok(c, s, "echo after") == "after\n"
    # the host can still make processes, and nothing was left running
    assert subprocess.run(["true"]).returncode == 0
    assert len(os.listdir("/proc")) < before + 20


def test_memory_hog(ctx):
    c, d, s = SH.client(), SH.get(), small()
    r = py(c, s, "b = bytearray(1 << 30); print('allocated', len(b))")
    assert r.code != 0 and "allocated" not in r.out, r
    assert "MemoryError" in r.err or r.signal == 9, r
    daemon_fine(d, c)
    assert rss_kb(d.proc.pid) < 200 * 1024


def test_tmp_full(ctx):
    c, s = SH.client(), small()
    r = run(c, s, "dd if=/dev/zero of=/tmp/fill bs=1M count=32 2>&1; "
            "df -k /tmp | tail -1; rm -f /tmp/fill")
    assert "No space left on device" in r.out, r
    size_kb = int(r.out.strip().split("\n")[-1].split()[1])
    assert size_kb <= 8 * 1024, r


def test_output_flood(ctx):
    """50 MB of output to a client that reads slowly: the daemon's memory
    stays bounded (backpressure) and what is kept is capped."""
    c, d, s = SH.client(), SH.get(), small()
    c2 = d.client()
    base = rss_kb(d.proc.pid)
    c2.send("command.exec", {"session": s, "argv": ["sh", "-c",
            "yes | head -c 50000000"], "stdio": "pipes"})
    got, peak, reply = 0, base, None
    while reply is None:
        m = c2.recv()
        assert m is not None, "daemon closed the connection"
        if m.get("method") == "command.output":
            got += len(base64.b64decode(m["params"]["data"]))
            if got % (4 << 20) < 65536:
                time.sleep(0.05)   # a slow reader
                peak = max(peak, rss_kb(d.proc.pid))
        elif "id" in m:
            reply = m
    assert "result" in reply, reply
    res = reply["result"]
    assert got == 50000000, got
    assert res["exit_code"] == 0 and res.get("output_truncated") is True, \
        {k: v for k, v in res.items() if k not in ("stdout", "stderr")}
    assert len(base64.b64decode(res["stdout"])) <= 1 << 20
    assert peak - base < 48 * 1024, "sboxd grew by %d kB" % (peak - base)
    c2.close()
    daemon_fine(d, c)


def test_timeouts(ctx):
    c, d, s = SH.client(), SH.get(), small()
    t0 = time.time()
    r = c.call("command.exec", {"session": s, "argv": ["sleep", "100"],
                                "timeout": 1, "stdio": "none"})
    assert r["timed_out"] is True and r["signal"] == 9, r
    assert r["state"] == "timeout" and r["exit_code"] is None, r
    assert time.time() - t0 < 5
    r = c.call("command.exec", {"session": s, "argv": ["yes"], "timeout": 1,
                                "stdio": "pipes"})
    assert r["timed_out"] is True and r["signal"] == 9, {
        k: v for k, v in r.items() if k not in ("stdout", "stderr")}
    assert time.time() - t0 < 10
    daemon_fine(d, c)


# ---------------------------------------------------------------- jobs

def test_detached_jobs(ctx):
    c, d = SH.client(), SH.get()
    s = create(c, project())
    marker = "%d" % (900000 + os.getpid() % 10000)
    try:
        c1 = d.client()
        job = c1.call("command.exec", {"session": s, "argv": ["sh", "-c",
                      "sleep 1; echo done"], "detach": True, "stdio": "pipes"})
        assert job["state"] == "running" and job["detach"] is True, job
        forever = c1.call("command.exec", {"session": s, "argv": [
            "sleep", marker], "detach": True, "stdio": "none"})
        c1.close()   # the jobs outlive their client
        wait_for(lambda: sbox_processes("sleep\0" + marker), 5,
                 what="the detached sleep to run")
        r = c.call("command.wait", {"command": job["command"]})
        assert r["exit_code"] == 0 and r["state"] == "exited", r
        assert base64.b64decode(r["stdout"]) == b"done\n", r
        listed = c.call("command.list", {"session": s})
        ids = [x["command"] for x in listed["commands"]]
        assert forever["command"] in ids and job["command"] in ids, listed
        assert sbox_processes("sleep\0" + marker)
    finally:
        c.call("session.close", {"session": s})
    # they end when the session closes
    wait_for(lambda: not sbox_processes("sleep\0" + marker), 5,
             what="the detached job to end with its session")


def test_disconnect_kills_command(ctx):
    c, d = SH.client(), SH.get()
    s = SH.session("plain", project())
    marker = "%d" % (800000 + os.getpid() % 10000)
    c1 = d.client()
    c1.send("command.exec", {"session": s, "argv": ["sleep", marker],
                             "stdio": "pipes"})
    wait_for(lambda: sbox_processes("sleep\0" + marker), 5,
             what="the command to run")
    c1.close()
    wait_for(lambda: not sbox_processes("sleep\0" + marker), 5,
             what="the command to be killed")
    # the end is recorded once sbox-init has reported it: wait for that
    def ended():
        cmds = c.call("command.list", {"session": s})["commands"]
        last = [x for x in cmds if x["argv"] == ["sleep", marker]][0]
        return last if last["state"] != "running" else None
    last = wait_for(ended, 5, what="the end to be recorded")
    assert last["state"] == "killed" and last["signal"] == 9, last


# ---------------------------------------------------------------- daemon end

def start_private(ctx, name):
    """A daemon of our own (it gets stopped), a project, a busy session."""
    d = ctx.daemon(start=False, name=name)
    make_home(d.home)
    proj = make_project(os.path.join(d.root, "proj"))
    before = snapshot(proj)
    d.start()
    c = d.client()
    sessions = [create(c, proj), create(c, proj, "strict")]
    marker = "%d" % (700000 + os.getpid() % 10000)
    c.call("command.exec", {"session": sessions[0], "argv": [
        "sleep", marker], "detach": True, "stdio": "none"})
    wait_for(lambda: sbox_processes("sleep\0" + marker), 5,
             what="the job to run")
    infos = [c.call("session.info", {"session": s}) for s in sessions]
    for i in infos:   # bwrap's children: sbox-init and what it runs
        i["inits"] = descendants(i["container_pid"])
        assert i["inits"], i
    # nothing of sbox's is in the project while the sessions run (missing
    # protected paths are kept uncreatable by the file guard, not by
    # placeholders on the host)
    assert snapshot(proj) == before
    return d, c, proj, before, infos, marker


def alive(pid):
    """The process exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def descendants(pid):
    """Pids of every process below pid."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for t in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, t)) as f:
                    kids = [int(x) for x in f.read().split()]
                out += kids
                todo += kids
        except OSError:
            pass
    return out


def assert_nothing_left(d, proj, before, infos, marker):
    pids = [i["container_pid"] for i in infos]
    wait_for(lambda: not any(os.path.exists("/proc/%d" % p) for p in pids),
             5, what="bwrap to end")
    wait_for(lambda: not sbox_processes("sleep\0" + marker), 5,
             what="the sandbox's processes to end")
    left = [p for p in sbox_processes(d.root + "/") if p != d.proc.pid]
    assert not left, left
    inits = [p for i in infos for p in i["inits"]]
    wait_for(lambda: not [p for p in inits if alive(p)], 5,
             what="sbox-init and its children to end")
    assert mounts_under(proj) == [], mounts_under(proj)
    for i in infos:
        assert not os.path.exists(i["scratch"]), i["scratch"]
    assert snapshot(proj) == before, set(snapshot(proj)) ^ set(before)


def stored_sessions(d):
    db = sqlite3.connect(os.path.join(d.state, "sbox.db"))
    try:
        return dict(db.execute("SELECT id, state FROM sessions"))
    finally:
        db.close()


def test_daemon_sigterm_leaves_nothing(ctx):
    d, c, proj, before, infos, marker = start_private(ctx, "term")
    c.close()
    assert d.stop(signal.SIGTERM) == 0
    assert_nothing_left(d, proj, before, infos, marker)
    states = stored_sessions(d)
    assert all(states[i["session"]] == "closed" for i in infos), states


def test_daemon_sigkill_leaves_nothing(ctx):
    d, c, proj, before, infos, marker = start_private(ctx, "kill")
    c.close()
    d.kill()
    # the kernel ends the containers (bwrap dies with its parent) ...
    pids = [i["container_pid"] for i in infos]
    wait_for(lambda: not any(os.path.exists("/proc/%d" % p) for p in pids),
             5, what="bwrap to die with sboxd")
    wait_for(lambda: not sbox_processes("sleep\0" + marker), 5,
             what="the sandbox's processes to die")
    # ... and the next start removes the rest and records the crash
    d.start()
    assert_nothing_left(d, proj, before, infos, marker)
    c = d.client()
    for i in infos:
        rec = c.call("session.info", {"session": i["session"]})
        assert rec["state"] == "ended_by_crash" and rec["live"] is False, rec
    assert c.call("session.list")["sessions"] == []


# ---------------------------------------------------------------- CLI

def test_cli_session_commands(ctx):
    d = SH.get()
    proj = project()
    r = d.cli("session", "create", "--project", proj, "--sandbox", "workspace")
    assert r.returncode == 0, r
    sid = r.stdout.decode().strip()
    assert len(sid) == 16 and "\n" not in sid, r.stdout
    try:
        r = d.cli("session", "exec", sid, "--", "sh", "-c",
                  "echo out; echo err >&2; exit 3")
        assert r.returncode == 3, r
        assert r.stdout == b"out\n" and b"err\n" in r.stderr, r
        r = d.cli("session", "exec", sid, "--", "sh", "-c", "kill -TERM $$")
        assert r.returncode == 128 + 15, r
        r = d.cli("session", "exec", sid, "--", "sh", "-c", "kill -KILL $$")
        assert r.returncode == 128 + 9, r
        r = d.cli("session", "exec", sid, "--cwd", ".git", "--env",
                  "ZZ=1", "--", "sh", "-c", "pwd; echo $ZZ")
        assert r.stdout.decode() == "%s/.git\n1\n" % proj, r
        r = d.cli("session", "exec", sid, "--", "sh", "-c",
                  "echo x > .envrc")
        assert r.returncode != 0 and b"sbox: blocked: write to .envrc " \
            b"refused: read-only, files that run programs later" in r.stderr, r
        r = d.cli("session", "send", sid, "--stdin",
                  input=b"cd /tmp\necho sent $(pwd)\nexit 5\n")
        assert r.returncode == 5 and r.stdout == b"sent /tmp\n", r
        r = d.cli("session", "exec", sid, "--", "no-such-program")
        assert r.returncode == 127, r
    finally:
        r = d.cli("session", "close", sid)
        assert r.returncode == 0, r


def test_cli_run(ctx):
    d = SH.get()
    proj = project()
    c = SH.client()
    live = len(c.call("session.list")["sessions"])
    r = d.cli("run", "--sandbox", "strict", "--project", proj, "--", "sh",
              "-c", "head -c 11 /proc/1/cmdline; echo; pwd; exit 4")
    assert r.returncode == 4, r
    assert r.stdout.decode().split("\n")[:2] == ["/.sbox/init", proj], r
    # the one-shot session is closed afterwards
    assert len(c.call("session.list")["sessions"]) == live


# ---------------------------------------------------------------- fail closed

def test_missing_bwrap_fails_closed(ctx):
    d = ctx.daemon(start=False, name="nobwrap")
    proj = make_project(os.path.join(d.root, "proj"))
    marker = os.path.join(proj, "ran")
    d.start(extra=["--bwrap", "/nonexistent/bwrap"])
    c = d.client()
    e = c.error("session.create", {"project": proj, "sandbox": "workspace"})
    assert e.name == "sbox.SandboxUnavailable", e
    assert "bwrap" in e.message and "install" in e.message, e.message
    assert c.call("session.list")["sessions"] == []
    r = d.cli("run", "--sandbox", "workspace", "--project", proj, "--",
              "touch", marker)
    assert r.returncode != 0 and b"install" in r.stderr, r
    assert not os.path.exists(marker), "a command ran without its sandbox"
    assert c.call("rpc.ping")["pong"] is True


def test_command_list_names_commands_like_exec(ctx):
    d = ctx.daemon()
    c = d.client()
    proj = os.path.join(ctx.tmp, "p")
    os.makedirs(proj)
    sid = c.call("session.create", {"project": proj, "sandbox": "strict",
                                    "env": {"PATH": "/usr/bin:/bin"}})["session"]
    r = c.call("command.exec", {"session": sid, "argv": ["true"]})
    cmds = c.call("command.list", {"session": sid})["commands"]
    assert [x["command"] for x in cmds] == [r["command"]], cmds
    assert cmds[0]["state"] == "exited" and cmds[0]["exit_code"] == 0


def test_sandboxed_end_is_stored_before_the_next_request(ctx):
    """A command that ran in the sandbox is answered first and its end
    written right after, in the same turn of sboxd's loop (issue 24): a
    request that follows the answer, on the same connection or another,
    already reads the end from the store, as does the database itself."""
    d = ctx.daemon()
    c = d.client()
    other = d.client()
    proj = os.path.join(ctx.tmp, "p")
    os.makedirs(proj)
    sid = c.call("session.create", {"project": proj,
                                    "sandbox": "workspace"})["session"]
    for code in range(20):
        r = c.call("command.exec", {"session": sid, "stdio": "pipes",
                                    "argv": ["sh", "-c", "exit %d" % code]})
        assert r["state"] == "exited" and r["exit_code"] == code, r
        for k in (c, other):
            log = k.call("session.log", {"session": sid})["commands"]
            rec = [x for x in log if x["command"] == r["command"]]
            assert rec and rec[0]["state"] == "exited" and \
                rec[0]["exit_code"] == code, rec
        con = sqlite3.connect(os.path.join(d.state, "sbox.db"), timeout=10)
        try:
            row = con.execute("SELECT state, exit_code FROM commands WHERE"
                              " id = ?", (r["command"],)).fetchall()
        finally:
            con.close()
        assert row == [("exited", code)], row
    # the CLI's own exit code, then the record
    r = d.cli("session", "exec", sid, "--", "sh", "-c", "exit 9")
    assert r.returncode == 9, r
    log = c.call("session.log", {"session": sid})["commands"]
    assert log[-1]["state"] == "exited" and log[-1]["exit_code"] == 9, log
