"""The protocol's conventions (issue 15) against a real daemon: the one
cancel rule, JSON-RPC 2.0 ids and batches, command.started before any
output, command.follow from a second connection (live and after the fact),
events replayed after a reconnect (and a restart), and every row of the
Shapes table of protocol/PROTOCOL.md compared with real answers.

The tests share one daemon (SH) except the replay test, which restarts its
own. They pass as root and as an unprivileged user."""
import base64
import json
import os
import re

from sboxtest import Skip
from sandboxlib import Shared

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.normpath(os.path.join(HERE, "..", "..", "protocol",
                                    "PROTOCOL.md"))

SH = Shared("shapes", lambda d: {})


def teardown_module():
    SH.stop()


def failure_log():
    return SH.log()


def project():
    return SH.project()


def session():
    return SH.session("ws", project(), "workspace")


# ---- the Shapes table of PROTOCOL.md

def shapes():
    """{shape: (required fields, optional fields)} from the Shapes table."""
    if not os.path.exists(DOC):
        raise Skip("%s is not in this copy of the tree" % DOC)
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## Shapes\n(.*?)^## ", text, re.S | re.M)
    assert m, "PROTOCOL.md has no Shapes section"
    out = {}
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("shape", "---"):
            continue
        names = re.findall(r"`([^`]+)`", cells[2])
        req = {n for n in names if not n.endswith("?")}
        opt = {n[:-1] for n in names if n.endswith("?")}
        out[cells[0]] = (req, opt)
    assert len(out) >= 10, out
    return out


def check_shape(name, obj):
    """obj has every required field of the documented shape, and nothing
    the shape does not list."""
    req, opt = shapes()[name]
    keys = set(obj)
    missing, extra = req - keys, keys - req - opt
    assert not missing and not extra, (
        "shape %r of PROTOCOL.md differs from the answer: missing %s, not "
        "documented %s; answer %r" % (name, sorted(missing), sorted(extra),
                                      obj))


# ---- helpers on raw connections

def raw(c, obj):
    c.send_raw(json.dumps(obj).encode() + b"\n")


def next_message(c):
    m = c.recv()
    assert m is not None, "the daemon closed the connection"
    return m


def until_reply(c, rid, seen=None):
    """Read messages up to the reply to rid; notifications go to seen."""
    while True:
        m = next_message(c)
        if isinstance(m, dict) and m.get("id") == rid and "method" not in m:
            return m
        if seen is not None:
            seen.append(m)


def started(c, rid):
    """Wait for command.started of request rid; its params."""
    return c.wait_notification("command.started",
                               lambda p: p["request"] == rid)


def cancelled(reply):
    """The data of an sbox.Cancelled error reply."""
    assert "error" in reply, reply
    e = reply["error"]
    assert e["code"] == -32002 and e["data"]["name"] == "sbox.Cancelled", e
    check_shape("cancelled", e["data"])
    return e["data"]


def out_text(notes, command):
    return b"".join(base64.b64decode(n["params"]["data"]) for n in notes
                    if n.get("method") == "command.output"
                    and n["params"]["command"] == command)


# ---- JSON-RPC 2.0: ids and batches

def test_null_id_refused(ctx):
    c = SH.get().client()
    try:
        raw(c, {"jsonrpc": "2.0", "id": None, "method": "session.create",
                "params": {"project": project()}})
        r = next_message(c)
        assert r["id"] is None and r["error"]["code"] == -32600, r
        assert r["error"]["data"] == {"name": "sbox.InvalidRequest",
                                      "field": "id"}, r
        # it did not run: no session was made, and nothing else comes
        rid = c.send("session.list", {})
        r = next_message(c)
        assert r["id"] == rid, r
        assert not [s for s in r["result"]["sessions"]
                    if s["project"] == project() and
                    s["session"] not in SH.sessions.values()], r
    finally:
        c.close()


def test_duplicate_inflight_id(ctx):
    sid = session()
    c = SH.get().client()
    try:
        c.send("command.exec", {"session": sid, "argv": ["sh", "-c",
               "read x; echo got $x"], "stdin": True}, id="job")
        cmd = started(c, "job")["command"]
        # a second request with the same id while the first is in flight
        c.send("rpc.ping", id="job")
        r = next_message(c)
        while "method" in r:
            r = next_message(c)
        assert r["id"] == "job" and r["error"]["code"] == -32600, r
        assert r["error"]["data"]["field"] == "id", r
        # the first is undisturbed: it still runs and answers
        c.call("command.write", {"command": cmd, "data":
                                 base64.b64encode(b"1\n").decode(),
                                 "eof": True})
        r = c.result(c.wait_reply("job"))
        assert r["state"] == "exited" and r["exit_code"] == 0, r
        assert base64.b64decode(r["stdout"]) == b"got 1\n", r
        # once answered, the id may be used again
        assert c.result(c.wait_reply(c.send("rpc.ping", id="job")))["pong"]
    finally:
        c.close()


def test_batches(ctx):
    sid = session()
    c = SH.get().client()
    try:
        c.send_raw(json.dumps([
            {"jsonrpc": "2.0", "id": 1, "method": "rpc.ping"},
            {"jsonrpc": "2.0", "method": "rpc.ping"},
            {"jsonrpc": "2.0", "id": 2, "method": "nope"},
            1]).encode() + b"\n")
        r = next_message(c)
        assert isinstance(r, list) and len(r) == 3, r
        by = {m["id"]: m for m in r}
        assert set(by) == {1, 2, None}, r
        assert by[1]["result"]["pong"] is True, r
        assert by[2]["error"]["data"]["name"] == "sbox.MethodNotFound", r
        assert by[None]["error"]["code"] == -32600, r
        # notifications only: no answer at all
        c.send_raw(b'[{"jsonrpc":"2.0","method":"rpc.ping"}]\n')
        rid = c.send("rpc.ping")
        assert next_message(c)["id"] == rid
        # an empty batch is one error object
        c.send_raw(b"[]\n")
        r = next_message(c)
        assert r["id"] is None and r["error"]["code"] == -32600, r
        # a request answered later holds the batch's answer until it is
        c.send_raw(json.dumps([
            {"jsonrpc": "2.0", "id": "b1", "method": "command.exec",
             "params": {"session": sid, "argv": ["sh", "-c", "read x"],
                        "stdin": True}},
            {"jsonrpc": "2.0", "id": "b2", "method": "rpc.ping"}])
            .encode() + b"\n")
        first = next_message(c)
        assert first.get("method") == "command.started", first
        assert first["params"]["request"] == "b1", first
        wid = c.send("command.write", {"command": first["params"]["command"],
                                       "eof": True})
        seen = []
        until_reply(c, wid, seen)
        arr = [m for m in seen if isinstance(m, list)]
        while not arr:
            m = next_message(c)
            if isinstance(m, list):
                arr.append(m)
        r = {m["id"]: m for m in arr[0]}
        assert set(r) == {"b1", "b2"}, arr
        assert r["b1"]["result"]["state"] == "exited", r
        assert r["b2"]["result"]["pong"] is True, r
    finally:
        c.close()
    # the answers a batch gathers count against the output limit: past it
    # the client is dropped, the daemon's memory stays bounded
    c = SH.get().client()
    try:
        big = {"session": sid, "argv": ["head", "-c", "6000000", "/dev/zero"],
               "stdio": "none"}
        c.send_raw(json.dumps([{"jsonrpc": "2.0", "id": i, "method":
                                "command.exec", "params": big}
                               for i in range(3)]).encode() + b"\n")
        m = c.recv()
        while m is not None and isinstance(m, dict) and "method" in m:
            m = c.recv()
        assert m is None, "a batch past the output limit was answered"
    finally:
        c.close()
    assert SH.client().call("rpc.ping")["pong"] is True


# ---- one cancel rule

def test_cancel_outcomes(ctx):
    sid = session()
    d = SH.get()
    c = d.client()
    approver = d.client()
    try:
        # command.exec: killed, answered sbox.Cancelled with the result
        rid = c.send("command.exec", {"session": sid,
                                      "argv": ["sleep", "600"]})
        cmd = started(c, rid)["command"]
        c.notify("$/cancelRequest", {"id": rid})
        data = cancelled(c.wait_reply(rid))
        res = data["result"]
        check_shape("command result", res)
        assert res["command"] == cmd and res["state"] == "killed", res
        assert res["signal"] == 9 and res["exit_code"] is None, res
        # command.wait: stops waiting, the command runs on
        job = c.call("command.exec", {"session": sid, "argv": ["sleep",
                                      "600"], "detach": True})
        check_shape("running command", job)
        rid = c.send("command.wait", {"command": job["command"]})
        c.notify("$/cancelRequest", {"id": rid})
        data = cancelled(c.wait_reply(rid))
        assert "result" not in data and "error" not in data, data
        assert c.call("command.read", {"command": job["command"]})[
            "state"] == "running"
        c.call("command.kill", {"command": job["command"], "signal": 9})
        # a fast method is answered before the cancel: the cancel is ignored
        rid = c.send("rpc.ping")
        assert c.wait_reply(rid)["result"]["pong"] is True
        c.notify("$/cancelRequest", {"id": rid})
        rid2 = c.send("rpc.ping")
        m = next_message(c)
        while "method" in m:
            m = next_message(c)
        assert m["id"] == rid2 and "result" in m, m
        # a pending command.run_outside: denied, answered sbox.Cancelled
        approver.call("events.subscribe", {"topics": ["approval.*"]})
        rid = c.send("command.run_outside", {"session": sid, "argv": ["true"],
                                             "reason": "cancel me"})
        req = approver.wait_notification(
            "events.event", lambda p: p["topic"] == "approval.requested")
        aid = req["data"]["approval"]
        c.notify("$/cancelRequest", {"id": rid})
        data = cancelled(c.wait_reply(rid))
        assert data["error"]["name"] == "sbox.Denied", data
        recs = [a for a in c.call("audit.list", {"session": sid})["approvals"]
                if a["approval"] == aid]
        assert len(recs) == 1 and recs[0]["decision"] == "deny", recs
        check_shape("approval record", recs[0])
        assert recs[0]["command"] is None, recs
    finally:
        approver.close()
        c.close()


def test_cancel_sandbox_check(ctx):
    c = SH.get().client()
    try:
        rid = c.send("sandbox.check", {"profile": "strict"})
        c.notify("$/cancelRequest", {"id": rid})
        data = cancelled(c.wait_reply(rid))
        assert "result" not in data, data
        assert c.call("rpc.ping")["pong"] is True
    finally:
        c.close()


# ---- command.started, command.follow

def test_started_then_follow(ctx):
    sid = session()
    d = SH.get()
    a, b, late = d.client(), d.client(), d.client()
    try:
        rid = a.send("command.exec", {"session": sid, "argv": ["sh", "-c",
                     "echo one; read x; echo two"], "stdin": True})
        seen = []
        while not any(m.get("method") == "command.output" for m in seen):
            seen.append(next_message(a))
        names = [m.get("method") for m in seen]
        assert names.index("command.started") < names.index(
            "command.output"), names
        st = seen[names.index("command.started")]["params"]
        check_shape("command start", st)
        assert st["request"] == rid and st["session"] == sid, st
        cmd = st["command"]
        out = [m for m in seen if m.get("method") == "command.output"]
        check_shape("output chunk", out[0]["params"])
        assert out[0]["params"]["command"] == cmd, out
        # another host connection follows it: the answer, what was kept,
        # then the live output, then command.exited
        fid = b.send("command.follow", {"command": cmd})
        got = []
        r = until_reply(b, fid, got)
        assert not got, got
        check_shape("running command", r["result"])
        assert r["result"]["state"] == "running", r
        while out_text(got, cmd) != b"one\n":
            got.append(next_message(b))
        a.call("command.write", {"command": cmd, "data":
                                 base64.b64encode(b"x\n").decode(),
                                 "eof": True})
        while not any(m.get("method") == "command.exited" for m in got):
            got.append(next_message(b))
        assert out_text(got, cmd) == b"one\ntwo\n", got
        end = got[-1]
        assert end["method"] == "command.exited", got
        check_shape("command end", end["params"])
        assert end["params"]["command"] == cmd, end
        assert end["params"]["state"] == "exited", end
        assert end["params"]["exit_code"] == 0, end
        assert end["params"]["signal"] is None, end
        res = a.result(until_reply(a, rid, []))
        check_shape("command result", res)
        assert base64.b64decode(res["stdout"]) == b"one\ntwo\n", res
        # after the fact: the kept output, then command.exited at once
        fid = late.send("command.follow", {"command": cmd})
        got = []
        r = until_reply(late, fid, got)
        check_shape("command result", r["result"])
        assert r["result"]["state"] == "exited", r
        while not any(m.get("method") == "command.exited" for m in got):
            got.append(next_message(late))
        assert out_text(got, cmd) == b"one\ntwo\n", got
        assert got[-1]["params"]["exit_code"] == 0, got
        # an unknown command
        e = late.error("command.follow", {"command": 999999})
        assert e.name == "sbox.CommandNotFound", e
    finally:
        for c in (a, b, late):
            c.close()


def test_started_false_no_notification(ctx):
    """command.exec with started: false: the same answer and output, no
    command.started for it; the same request without it gets one (so the
    check can fail); a started that is not a boolean is refused."""
    sid = session()
    c = SH.get().client()
    try:
        for flag in (False, None):
            params = {"session": sid, "argv": ["sh", "-c", "echo out"]}
            if flag is not None:
                params["started"] = flag
            rid = c.send("command.exec", params)
            seen = []
            r = until_reply(c, rid, seen)
            assert r["result"]["state"] == "exited", r
            names = [m.get("method") for m in seen if isinstance(m, dict)]
            got = [m for m in seen if isinstance(m, dict) and
                   m.get("method") == "command.started" and
                   m["params"]["request"] == rid]
            if flag is False:
                assert got == [], seen
            else:
                assert len(got) == 1, seen
            cmd = r["result"]["command"]
            out = b"".join(base64.b64decode(m["params"]["data"])
                           for m in seen if isinstance(m, dict) and
                           m.get("method") == "command.output" and
                           m["params"]["command"] == cmd)
            assert out == b"out\n", (names, seen)
        e = c.error("command.exec", {"session": sid, "argv": ["true"],
                                     "started": "no"})
        assert e.name == "sbox.InvalidParams", e
    finally:
        c.close()


# ---- events: replay after a reconnect and a restart

def reload_event(c):
    c.call("daemon.reload")


def test_events_replay_after_reconnect(ctx):
    d = ctx.daemon(config={})
    a = d.client()
    sub = a.call("events.subscribe", {"topics": ["config.*"]})
    check_shape("subscription", sub)
    other = d.client()
    reload_event(other)
    first = a.wait_notification("events.event")
    check_shape("event", first)
    assert first["topic"] == "config.reloaded" and "replayed" not in first
    a.close()
    # while it is away: two events
    reload_event(other)
    reload_event(other)
    b = d.client()
    sub = b.call("events.subscribe", {"topics": ["config.*"],
                                      "since": first["seq"]})
    check_shape("subscription", sub)
    assert sub["replayed"] == 2 and sub["missed"] == 0, sub
    assert sub["seq"] == first["seq"] + 2, sub
    evs = [b.wait_notification("events.event") for _ in range(2)]
    assert [e["seq"] for e in evs] == [first["seq"] + 1, first["seq"] + 2]
    for e in evs:
        check_shape("event", e)
        assert e["replayed"] is True and e["topic"] == "config.reloaded", e
        assert e["subscription"] == sub["subscription"], e
    # then the live ones, with the next seq: nothing missed, nothing twice
    reload_event(other)
    live = b.wait_notification("events.event")
    assert live["seq"] == first["seq"] + 3 and "replayed" not in live, live
    assert not b.notifications, b.notifications
    # a topic filter applies to the replay too
    c = d.client()
    sub = c.call("events.subscribe", {"topics": ["session.*"], "since": 0})
    assert sub["replayed"] == 0 and sub["missed"] == 0, sub
    c.close()
    b.close()
    other.close()
    # seqs go on across a restart, and since still works
    last = live["seq"]
    d.stop()
    d.start()
    c = d.client()
    sub = c.call("events.subscribe", {"topics": ["config.*"], "since": 0})
    assert sub["seq"] >= last, sub
    evs = [c.wait_notification("events.event")
           for _ in range(sub["replayed"])]
    seqs = [e["seq"] for e in evs]
    assert seqs == sorted(seqs) and seqs[-1] == sub["seq"], seqs
    assert set(range(first["seq"], last + 1)) <= set(seqs), seqs
    reload_event(c)
    nxt = c.wait_notification("events.event")
    assert nxt["seq"] == sub["seq"] + 1 and "replayed" not in nxt, nxt
    c.close()
    # after a crash (the last events may not be written yet), a seq a
    # client saw is never given again
    d.kill()
    d.proc.wait()
    d.start()
    c = d.client()
    sub = c.call("events.subscribe", {"topics": ["config.*"],
                                      "since": nxt["seq"]})
    assert sub["replayed"] == 0, sub
    reload_event(c)
    after = c.wait_notification("events.event")
    assert after["seq"] > nxt["seq"] and "replayed" not in after, after
    c.close()


# ---- every documented shape against real answers

def test_documented_shapes(ctx):
    d = SH.get()
    c = d.client()
    ev = d.client()
    try:
        ev.call("events.subscribe", {"topics": ["command.*"]})
        made = c.call("session.create", {"project": project(),
                                         "sandbox": "workspace",
                                         "env": {"PATH": "/usr/bin:/bin"}})
        check_shape("session", made)
        sid = made["session"]
        assert made["created_at"].endswith("Z"), made
        listed = [s for s in c.call("session.list", {})["sessions"]
                  if s["session"] == sid]
        assert len(listed) == 1, listed
        check_shape("session record", listed[0])
        info = c.call("session.info", {"session": sid})
        check_shape("session info", info)
        assert info["created_at_ms"] == made["created_at_ms"], info
        # refused reads and writes: absolute paths everywhere
        r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c",
                   "cat ~/.ssh/id_rsa; echo x > .git/config; python3 -c "
                   "\"import urllib.request as u; u.urlopen('http://"
                   "refused.invalid/')\"; true"]})
        check_shape("command result", r)
        assert r["signal"] is None and r["exit_code"] == 0, r
        files = r["blocked"]["files"]
        assert files, r
        for f in files:
            check_shape("blocked file", f)
            assert f["path"].startswith("/"), f
        assert [f for f in files if f["path"] == os.path.join(
            project(), ".git", "config")], files
        for h in r["blocked"]["hosts"]:
            check_shape("blocked host", h)
        recs = c.call("command.list", {"session": sid})["commands"]
        assert [x["command"] for x in recs] == [r["command"]], recs
        check_shape("command record", recs[0])
        assert recs[0]["signal"] is None and recs[0]["blocked"] == \
            r["blocked"], recs
        log = c.call("session.log", {"session": sid})["commands"]
        check_shape("timeline entry", log[0])
        assert log[0]["command"] == r["command"], log
        # a killed command: the same placeholders in the result, the list,
        # the timeline and the event
        job = c.call("command.exec", {"session": sid, "argv": ["sleep",
                                      "600"], "detach": True})
        check_shape("running command", job)
        read = c.call("command.read", {"command": job["command"]})
        check_shape("running command", read)
        c.call("command.kill", {"command": job["command"], "signal": 9})
        w = c.call("command.wait", {"command": job["command"]})
        check_shape("command result", w)
        assert (w["state"], w["exit_code"], w["signal"]) == ("killed", None,
                                                             9), w
        ended = ev.wait_notification(
            "events.event", lambda p: p["topic"] == "command.exited" and
            p["data"]["command"] == job["command"])
        check_shape("event", ended)
        check_shape("command end", ended["data"])
        for k in ("state", "exit_code", "signal", "timed_out", "duration_ms"):
            assert ended["data"][k] == w[k], (k, ended, w)
        rec = [x for x in c.call("command.list", {"session": sid})["commands"]
               if x["command"] == job["command"]][0]
        assert (rec["state"], rec["exit_code"], rec["signal"]) == (
            "killed", None, 9), rec
        c.call("session.close", {"session": sid})
        closed = c.call("session.info", {"session": sid})
        assert closed["live"] is False and closed["session"] == sid, closed
        assert closed["closed_at_ms"] is not None, closed
        assert "id" not in closed and "created_ms" not in closed, closed
    finally:
        ev.close()
        c.close()


def test_shapes_table_parses(ctx):
    """The table names the shapes the other tests check."""
    s = shapes()
    for name in ("session", "session record", "session info",
                 "command result", "running command", "command record",
                 "timeline entry", "command end", "command start",
                 "output chunk", "blocked file", "blocked host",
                 "approval record", "event", "subscription", "cancelled"):
        assert name in s and s[name][0], name


# ---- the CLI: sbox command follow, sbox events --since

def sbox_popen(d, *args):
    import subprocess
    import sboxtest
    return subprocess.Popen([os.path.join(sboxtest.BIN, "sbox")] +
                            list(args), env=d.env(), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_cli_follow_and_events_since(ctx):
    sid = session()
    d = SH.get()
    c = d.client()
    try:
        job = c.call("command.exec", {"session": sid, "argv": ["sh", "-c",
                     "echo a; read x; echo b; exit 3"], "detach": True,
                     "stdin": True})
        p = sbox_popen(d, "command", "follow", str(job["command"]))
        try:
            assert p.stdout.readline() == b"a\n"
            c.call("command.write", {"command": job["command"], "data":
                                     base64.b64encode(b"x\n").decode(),
                                     "eof": True})
            out, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        assert out == b"b\n" and p.returncode == 3, (out, err, p.returncode)
        # after the fact, --json: one document, the end and the output
        r = d.cli("command", "follow", str(job["command"]), "--json")
        assert r.returncode == 3, r
        j = json.loads(r.stdout)
        assert j["stdout_text"] == "a\nb\n" and j["exit_code"] == 3, j
        assert j["state"] == "exited" and j["signal"] is None, j
        r = d.cli("command", "follow", "999999")
        assert r.returncode != 0 and b"999999" in r.stderr, r
        # sbox events --since: the stored events first, marked replayed
        c.call("daemon.reload")
        c.call("daemon.reload")
        sub = c.call("events.subscribe", {"topics": ["config.reloaded"]})
        p = sbox_popen(d, "events", "--follow", "--since",
                       str(sub["seq"] - 2), "config.reloaded")
        try:
            lines = [json.loads(p.stdout.readline()) for _ in range(2)]
        finally:
            p.kill()
            p.wait()
        assert [e["seq"] for e in lines] == [sub["seq"] - 1, sub["seq"]], \
            lines
        assert all(e["replayed"] is True for e in lines), lines
        r = d.cli("events", "--since", "x")
        assert r.returncode == 2, r
    finally:
        c.close()


# ---- issue 25: each place where PROTOCOL.md and the daemon disagreed

def test_env_rule_and_dropped_names(ctx):
    """session.create takes PATH, LANG, LANGUAGE, LC_*, TERM, COLORTERM, TZ
    and the profile's names from env, and lists every other name in
    env_dropped and in one warnings line; the doc states that rule once."""
    text = open(DOC, encoding="utf-8").read() if os.path.exists(DOC) \
        else None
    c = SH.client()
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C",
           "TZ": "UTC", "FOO_PLAIN": "1", "GITHUB_TOKEN": "t0k",
           "SHELL": "/bin/zsh"}
    made = c.call("session.create", {"project": project(),
                                     "sandbox": "workspace", "env": env})
    try:
        check_shape("session", made)
        assert made["env_dropped"] == ["FOO_PLAIN", "GITHUB_TOKEN",
                                       "SHELL"], made
        assert len(made["warnings"]) == 1, made
        w = made["warnings"][0]
        assert w.startswith("env: not passed into the sandbox"), w
        for n in made["env_dropped"]:
            assert n in w, w
        r = c.call("command.exec", {"session": made["session"],
                                    "argv": ["env"]})
        seen = base64.b64decode(r["stdout"]).decode()
        names = {l.split("=", 1)[0] for l in seen.splitlines() if "=" in l}
        for n in ("PATH", "LANG", "LC_ALL", "TZ"):
            assert n in names, seen
        for n in made["env_dropped"]:
            assert n not in names, seen
    finally:
        c.call("session.close", {"session": made["session"]})
    if text is not None:
        assert text.count("**The environment rule.**") == 1
        assert "secrets-named variables are dropped unless the profile " \
            "names them" not in text


def test_calls_after_close_say_closed(ctx):
    """After session.close, calls naming the session get
    sbox.SessionClosed (also after a restart of sboxd); an id never seen
    stays sbox.SessionNotFound."""
    d = ctx.daemon(config={})
    proj = os.path.join(ctx.tmp, "p")
    os.makedirs(proj)
    c = d.client()
    sid = c.call("session.create", {"project": proj, "sandbox": "workspace",
                                    "env": {"PATH": "/usr/bin:/bin"}})[
        "session"]
    c.call("session.close", {"session": sid})
    for method, params in (
            ("command.exec", {"session": sid, "argv": ["true"]}),
            ("session.close", {"session": sid}),
            ("session.allow_host", {"session": sid, "host": "a.example"}),
            ("file.read", {"session": sid, "path": "x"})):
        e = c.error(method, params)
        assert e.name == "sbox.SessionClosed" and e.code == -32021 and \
            e.field == "session", (method, e)
    e = c.error("command.exec", {"session": "0123456789abcdef",
                                 "argv": ["true"]})
    assert e.name == "sbox.SessionNotFound", e
    c.close()
    d.stop()
    d.start()
    c = d.client()
    e = c.error("command.exec", {"session": sid, "argv": ["true"]})
    assert e.name == "sbox.SessionClosed", e
    c.close()


def test_ping_time_ms_is_milliseconds(ctx):
    """rpc.ping's time_ms is the wall clock in milliseconds (not whole
    seconds times 1000)."""
    import time
    c = SH.client()
    stamps = []
    for _ in range(4):
        before = time.time() * 1000
        t = c.call("rpc.ping")["time_ms"]
        after = time.time() * 1000
        assert before - 1000 <= t <= after + 1000, (before, t, after)
        stamps.append(t)
        time.sleep(0.013)
    assert any(t % 1000 != 0 for t in stamps), stamps


def test_started_examples_carry_request(ctx):
    """Every command.started example of PROTOCOL.md (Terminals too) has
    the fields of the "command start" shape."""
    req, opt = shapes()["command start"]
    text = open(DOC, encoding="utf-8").read()
    found = 0
    for line in text.splitlines():
        if line.startswith("< ") and '"command.started"' in line:
            p = json.loads(line[2:])["params"]
            assert req <= set(p), line
            found += 1
    assert found >= 3, found


def test_detached_exec_answers_as_documented(ctx):
    """A detached command.exec answers the running command (the Shapes
    table's row, which the command.exec table points at)."""
    text = open(DOC, encoding="utf-8").read() if os.path.exists(DOC) \
        else ""
    assert "answered at once with `{command}`" not in text
    c = SH.client()
    job = c.call("command.exec", {"session": session(), "argv": ["sleep",
                                  "60"], "detach": True})
    check_shape("running command", job)
    assert job["state"] == "running" and job["detach"] is True, job
    c.call("command.kill", {"command": job["command"], "signal": 9})
    c.call("command.wait", {"command": job["command"]})


def test_paths_in_answers_normalised(ctx):
    """cwd and file paths given with '.', '..' and '//' are answered
    normalised."""
    c = SH.client()
    proj = project()
    os.makedirs(os.path.join(proj, "app", "sub"), exist_ok=True)
    with open(os.path.join(proj, "app", "f.txt"), "w") as f:
        f.write("x")
    r = c.call("command.exec", {"session": session(), "argv": ["pwd"],
                                "cwd": "app/sub/../.."})
    assert r["cwd"] == proj, r
    assert base64.b64decode(r["stdout"]).decode().strip() == proj, r
    r = c.call("command.exec", {"session": session(), "argv": ["pwd"],
                                "cwd": proj + "/./app//sub/.."})
    assert r["cwd"] == proj + "/app", r
    f = c.call("file.read", {"session": session(),
                             "path": "app/sub/.././f.txt"})
    assert f["path"] == os.path.join(proj, "app", "f.txt"), f
