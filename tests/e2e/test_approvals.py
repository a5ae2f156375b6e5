"""End-to-end tests of running a command outside the sandbox (issue 6):
approvals (allow once, deny, never, headless, timeout, cancel, session
close), `exclude` patterns, a sandbox trying to approve itself, the audit
and the session timeline after a daemon SIGKILL, the sbox CLI, and the
interactive prompt of `sbox approvals --watch` driven through a pty.

They pass as root and as an unprivileged user."""
import base64
import json
import os
import pty
import select
import signal
import subprocess
import time

import sboxtest
from sboxtest import RpcError, Skip, wait_for

DENIED = "sbox.Denied"


def project(ctx, name="proj"):
    p = os.path.join(ctx.tmp, name)
    os.makedirs(p, exist_ok=True)
    return p


def session(c, proj, sandbox="none"):
    return c.call("session.create", {"project": proj, "sandbox": sandbox})[
        "session"]


def sandboxed(c, proj, sandbox="workspace"):
    """A sandboxed session, or Skip when containers cannot run here."""
    try:
        return session(c, proj, sandbox)
    except RpcError as e:
        if e.name in ("sbox.SandboxUnavailable", "sbox.SandboxSetupFailed"):
            raise Skip("no sandbox here: %s" % e.message)
        raise


def approver(d):
    """A host client that watches for requests (so requests are asked)."""
    a = d.client()
    a.call("events.subscribe", {"topics": ["approval.requested",
                                           "approval.decided"]})
    return a


def next_event(a, topic, pred=lambda data: True, timeout=10):
    return a.wait_notification(
        "events.event",
        lambda p: p["topic"] == topic and pred(p["data"]), timeout)["data"]


def next_request(a, timeout=10):
    return next_event(a, "approval.requested", timeout=timeout)


def audit(c, **params):
    return c.call("audit.list", params)["approvals"]


def record(c, aid):
    for r in audit(c):
        if r["approval"] == aid:
            return r
    raise AssertionError("approval %s not in the audit" % aid)


def out(result):
    return base64.b64decode(result.get("stdout") or "").decode()


class Cli:
    """sbox running in the background, its output in files."""

    def __init__(self, ctx, d, *args):
        self.out = os.path.join(ctx.tmp, "cli-%d.out" % time.monotonic_ns())
        with open(self.out, "wb") as o, open(self.out + ".err", "wb") as e:
            self.p = subprocess.Popen(
                [os.path.join(sboxtest.BIN, "sbox")] + list(args),
                env=d.env(), stdin=subprocess.DEVNULL, stdout=o, stderr=e)

    def wait(self, timeout=30):
        rc = self.p.wait(timeout)
        with open(self.out, "rb") as o, open(self.out + ".err", "rb") as e:
            return rc, o.read(), e.read()


def test_allow_once_runs_once_then_asks_again(ctx):
    d = ctx.daemon()
    proj = project(ctx)
    marker = os.path.join(ctx.tmp, "outside-marker")
    c = d.client()
    a = approver(d)
    sid = sandboxed(c, proj)
    # Inside the sandbox the folder next to the project is out of reach.
    c.call("command.exec", {"session": sid, "argv": [
        "sh", "-c", "echo in >> %s" % marker]})
    assert not os.path.exists(marker)
    argv = ["sh", "-c", "echo out >> %s; pwd; echo err >&2" % marker]
    rid = c.send("command.run_outside", {"session": sid, "argv": argv,
                                         "reason": "writes next to the project"})
    req = next_request(a)
    assert req["argv"] == argv and req["session"] == sid, req
    assert req["reason"] == "writes next to the project", req
    assert req["cwd"] == os.path.realpath(proj), req
    assert req["profile"] == "workspace", req
    # Still pending: listed, and nothing ran yet.
    pend = c.call("approval.list", {})["approvals"]
    assert [p["approval"] for p in pend] == [req["approval"]], pend
    assert not os.path.exists(marker)
    dec = a.call("approval.decide", {"approval": req["approval"],
                                     "decision": "allow_once",
                                     "client": "e2e"})
    assert dec["decision"] == "allow_once", dec
    assert dec["decided_by"].startswith("uid %d pid " % os.geteuid()), dec
    assert dec["decided_by"].endswith("(e2e)"), dec
    res = c.result(c.wait_reply(rid))
    assert res["exit_code"] == 0 and res["outside"] is True, res
    assert res["approval"] == req["approval"], res
    assert res["decision"] == "allow_once", res
    assert res["decided_by"] == dec["decided_by"], res
    assert out(res).strip() == os.path.realpath(proj), res
    assert base64.b64decode(res["stderr"]) == b"err\n", res
    with open(marker) as f:
        assert f.read() == "out\n"
    # Deciding it again is refused: it is no longer pending.
    e = a.error("approval.decide", {"approval": req["approval"],
                                    "decision": "allow_once"})
    assert e.name == "sbox.InvalidParams" and e.field == "approval", e
    assert "allow_once" in e.message, e
    e = a.error("approval.decide", {"approval": 9999, "decision": "deny"})
    assert e.name == "sbox.ApprovalNotFound", e
    # The same request again asks again (allow once is one run).
    rid = c.send("command.run_outside", {"session": sid, "argv": argv,
                                         "reason": "writes next to the project"})
    req2 = next_request(a)
    assert req2["approval"] != req["approval"], req2
    a.call("approval.decide", {"approval": req2["approval"], "decision": "deny"})
    e = None
    try:
        c.result(c.wait_reply(rid))
    except RpcError as x:
        e = x
    assert e is not None and e.name == DENIED, e
    with open(marker) as f:
        assert f.read() == "out\n", "the denied run ran"
    rec = record(c, req["approval"])
    assert rec["decision"] == "allow_once" and rec["exit_code"] == 0, rec
    assert rec["command"] == res["command"], rec
    assert rec["duration_ms"] is not None, rec
    assert record(c, req2["approval"])["decision"] == "deny"


def test_deny(ctx):
    d = ctx.daemon()
    c = d.client()
    a = approver(d)
    sid = session(c, project(ctx))
    rid = c.send("command.run_outside", {
        "session": sid, "argv": ["touch", "denied-file"], "reason": "test"})
    req = next_request(a)
    dec = a.call("approval.decide", {"approval": req["approval"], "decision": "deny"})
    try:
        c.result(c.wait_reply(rid))
        raise AssertionError("a denied request ran")
    except RpcError as e:
        assert e.name == DENIED, e
        assert "denied by uid" in e.message, e
        assert "approval %d" % req["approval"] in e.message, e
    assert not os.path.exists(os.path.join(project(ctx), "denied-file"))
    rec = record(c, req["approval"])
    assert rec["decision"] == "deny", rec
    assert rec["decided_by"] == dec["decided_by"], rec
    assert rec["command"] is None and rec["exit_code"] is None, rec
    ev = next_event(a, "approval.decided",
                    lambda x: x["approval"] == req["approval"])
    assert ev["decision"] == "deny", ev
    # Bad decisions and a missing reason are refused before anything.
    e = a.error("approval.decide", {"approval": req["approval"],
                                    "decision": "allow_always"})
    assert e.name == "sbox.InvalidParams" and e.field == "decision", e
    for bad in ({"reason": ""}, {}):
        p = {"session": sid, "argv": ["true"]}
        p.update(bad)
        e = c.error("command.run_outside", p)
        assert e.name == "sbox.InvalidParams" and e.field == "reason", e
    # A relative cwd may not lead out of the project.
    e = c.error("command.run_outside", {"session": sid, "argv": ["true"],
                                        "reason": "x", "cwd": "../.."})
    assert e.name == "sbox.InvalidParams" and e.field == "cwd", e


def test_never_profile_refused_at_once(ctx):
    d = ctx.daemon()
    c = d.client()
    a = approver(d)
    sid = sandboxed(c, project(ctx), "strict")
    t0 = time.time()
    e = c.error("command.run_outside", {
        "session": sid, "argv": ["git", "push"], "reason": "needs my key"})
    assert time.time() - t0 < 5
    assert e.name == DENIED, e
    assert "never" in e.message and "ask the person" in e.message, e
    recs = audit(c, session=sid)
    assert len(recs) == 1 and recs[0]["decision"] == "refused_never", recs
    assert recs[0]["reason"] == "needs my key", recs
    # The approver was never asked; it saw the outcome only.
    ev = next_event(a, "approval.decided")
    assert ev["decision"] == "refused_never", ev
    assert not [n for n in a.notifications
                if n["params"]["topic"] == "approval.requested"]
    # The CLI exits 77 with the reason.
    p = d.cli("session", "outside", sid, "--reason", "again", "--", "true")
    assert p.returncode == 77, p
    assert b"ask the person" in p.stderr, p.stderr


def test_headless_refused(ctx):
    d = ctx.daemon()
    c = d.client()
    sid = session(c, project(ctx))
    # A subscriber of other topics is no approver.
    other = d.client()
    other.call("events.subscribe", {"topics": ["host.*"]})
    # Nor is a logger of every topic.
    logger = d.client()
    logger.call("events.subscribe", {})
    logger2 = d.client()
    logger2.call("events.subscribe", {"topics": ["*"]})
    e = c.error("command.run_outside", {
        "session": sid, "argv": ["true"], "reason": "publish"})
    assert e.name == DENIED and "no one is connected" in e.message, e
    recs = audit(c, session=sid, decision="refused_headless")
    assert len(recs) == 1, recs
    assert recs[0]["decided_by"].startswith("sboxd"), recs
    # The logger saw the outcome.
    ev = logger.wait_notification("events.event",
                                  lambda p: p["topic"] == "approval.decided")
    assert ev["data"]["decision"] == "refused_headless", ev
    # approval.* makes an approver: the request now waits.
    w = d.client()
    w.call("events.subscribe", {"topics": ["approval.*"]})
    rid = c.send("command.run_outside", {"session": sid, "argv": ["true"],
                                         "reason": "publish"})
    req = next_request(w)
    w.call("approval.decide", {"approval": req["approval"], "decision": "allow_once"})
    assert c.result(c.wait_reply(rid))["exit_code"] == 0


def test_timeout_denies(ctx):
    d = ctx.daemon({"approvals": {"timeout_s": 1}})
    c = d.client()
    a = approver(d)
    sid = session(c, project(ctx))
    t0 = time.time()
    rid = c.send("command.run_outside", {
        "session": sid, "argv": ["true"], "reason": "slow person"})
    req = next_request(a)
    assert req["timeout_s"] == 1, req
    try:
        c.result(c.wait_reply(rid))
        raise AssertionError("ran without an answer")
    except RpcError as e:
        assert e.name == DENIED and "in time" in e.message, e
    assert 0.8 < time.time() - t0 < 10
    assert record(c, req["approval"])["decision"] == "timeout"
    e = a.error("approval.decide", {"approval": req["approval"],
                                    "decision": "allow_once"})
    assert "timeout" in e.message, e


def test_cancel_and_session_close_deny(ctx):
    d = ctx.daemon()
    c = d.client()
    a = approver(d)
    sid = session(c, project(ctx))
    # The client that asked goes away: denied (cancelled), recorded.
    gone = d.client()
    gone.send("command.run_outside", {"session": sid, "argv": ["true"],
                                      "reason": "then I leave"})
    req = next_request(a)
    gone.close()
    ev = next_event(a, "approval.decided",
                    lambda x: x["approval"] == req["approval"])
    assert ev["decision"] == "deny" and "cancelled" in ev["decided_by"], ev
    # $/cancelRequest does the same, and the asker is answered.
    rid = c.send("command.run_outside", {"session": sid, "argv": ["true"],
                                         "reason": "cancel me"})
    req = next_request(a)
    c.notify("$/cancelRequest", {"id": rid})
    try:
        c.result(c.wait_reply(rid))
        raise AssertionError("a cancelled request ran")
    except RpcError as e:
        # the one cancel rule: a cancelled request is answered
        # sbox.Cancelled (here the request was denied as a side effect)
        assert e.name == "sbox.Cancelled", e
    assert "cancelled" in record(c, req["approval"])["decided_by"]
    # The session closes: its pending request is denied.
    rid = c.send("command.run_outside", {"session": sid, "argv": ["true"],
                                         "reason": "closing soon"})
    req = next_request(a)
    d.client().call("session.close", {"session": sid})
    try:
        c.result(c.wait_reply(rid))
        raise AssertionError("ran after its session closed")
    except RpcError as e:
        assert e.name == DENIED, e
    rec = record(c, req["approval"])
    assert rec["decision"] == "deny" and "closed" in rec["decided_by"], rec
    assert c.call("approval.list", {})["approvals"] == []


def test_exclude_patterns_go_through_approval(ctx):
    d = ctx.daemon({"sandbox": {"profiles": {"ex": {
        "extends": "workspace", "exclude": ["echo *", "make deploy"]}}}})
    c = d.client()
    a = approver(d)
    sid = sandboxed(c, project(ctx), "ex")
    # Not excluded: runs in the sandbox at once.
    r = c.call("command.exec", {"session": sid, "argv": ["true"]})
    assert r["exit_code"] == 0 and r["outside"] is False, r
    rid = c.send("command.exec", {"session": sid, "argv": ["echo", "hi"]})
    req = next_request(a)
    assert req["reason"] == "excluded by profile", req
    assert req["argv"] == ["echo", "hi"], req
    a.call("approval.decide", {"approval": req["approval"],
                               "decision": "allow_once"})
    res = c.result(c.wait_reply(rid))
    assert res["outside"] is True and out(res) == "hi\n", res
    assert res["approval"] == req["approval"], res
    # Denied: the excluded command does not run at all, not even inside.
    rid = c.send("command.exec", {"session": sid, "argv": ["make", "deploy"]})
    req = next_request(a)
    a.call("approval.decide", {"approval": req["approval"], "decision": "deny"})
    try:
        c.result(c.wait_reply(rid))
        raise AssertionError("an excluded command ran after a denial")
    except RpcError as e:
        assert e.name == DENIED, e
    # Without an approver an excluded command is refused (headless).
    a.close()
    e = c.error("command.exec", {"session": sid, "argv": ["echo", "x"]})
    assert e.name == DENIED, e
    decisions = [r["decision"] for r in audit(c, session=sid)]
    assert decisions == ["allow_once", "deny", "refused_headless"], decisions


SELF_APPROVE = r"""
import json, socket, sys
path, aid = sys.argv[1], int(sys.argv[2])
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    s.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "rpc.hello",
        "params": {"protocol": 1}}) + "\n" + json.dumps({"jsonrpc": "2.0",
        "id": 2, "method": "approval.decide", "params": {"approval": aid,
        "decision": "allow_once"}}) + "\n").encode())
    print("REACHED", s.recv(65536).decode())
except OSError as e:
    print("UNREACHABLE", e.errno, e)
"""


def test_sandbox_cannot_approve_itself(ctx):
    d = ctx.daemon()
    c = d.client()
    a = approver(d)
    proj = project(ctx)
    sid = sandboxed(c, proj)
    with open(os.path.join(proj, "selfapprove.py"), "w") as f:
        f.write(SELF_APPROVE)
    marker = os.path.join(ctx.tmp, "self-approved")
    rid = c.send("command.run_outside", {
        "session": sid, "argv": ["touch", marker], "reason": "let me out"})
    req = next_request(a)
    aid = req["approval"]
    # From inside, the daemon's socket cannot be reached (python, then sh).
    inner = d.client()
    r = inner.call("command.exec", {"session": sid, "argv": [
        "sh", "-c", "if command -v python3 >/dev/null; then "
        "python3 selfapprove.py \"$0\" \"$1\"; else echo NOPYTHON; fi; "
        "if [ -e \"$0\" ]; then echo SOCKET-VISIBLE; fi; "
        "ls -a \"$(dirname \"$0\")\" 2>&1 | head -n 5",
        d.sock, str(aid)]})
    text = out(r)
    assert "REACHED" not in text, text
    assert "SOCKET-VISIBLE" not in text, text
    if "NOPYTHON" not in text:
        assert "UNREACHABLE" in text, text
    # Still pending: nothing decided it.
    pend = c.call("approval.list", {})["approvals"]
    assert [p["approval"] for p in pend] == [aid], pend
    assert not os.path.exists(marker)
    a.call("approval.decide", {"approval": aid, "decision": "deny"})
    try:
        c.result(c.wait_reply(rid))
        raise AssertionError("ran")
    except RpcError as e:
        assert e.name == DENIED
    assert not os.path.exists(marker)


def test_audit_and_timeline_after_sigkill(ctx):
    d = ctx.daemon()
    c = d.client()
    a = approver(d)
    proj = project(ctx)
    sid = session(c, proj)
    r = c.call("command.exec", {"session": sid, "argv": ["true"]})
    assert r["exit_code"] == 0
    # One allowed run that finished (exit 3).
    rid = c.send("command.run_outside", {
        "session": sid, "argv": ["sh", "-c", "exit 3"],
        "reason": "needs the host's \x1b[31mdocker"})
    done = next_request(a)
    a.call("approval.decide", {"approval": done["approval"],
                               "decision": "allow_once"})
    res = c.result(c.wait_reply(rid))
    assert res["exit_code"] == 3, res
    # One denied.
    rid = c.send("command.run_outside", {"session": sid, "argv": ["false"],
                                         "reason": "no"})
    denied = next_request(a)
    a.call("approval.decide", {"approval": denied["approval"], "decision": "deny"})
    try:
        c.result(c.wait_reply(rid))
    except RpcError:
        pass
    # One pending when the daemon is killed.
    c.send("command.run_outside", {"session": sid, "argv": ["rm", "-rf", "x"],
                                   "reason": "pending at the crash"})
    pending = next_request(a)
    d.kill()
    d.start()
    c = d.client()
    recs = {r["approval"]: r for r in audit(c, session=sid)}
    assert recs[done["approval"]]["decision"] == "allow_once"
    assert recs[done["approval"]]["exit_code"] == 3
    assert recs[denied["approval"]]["decision"] == "deny"
    crashed = recs[pending["approval"]]
    assert crashed["decision"] == "not_run_crash", crashed
    assert crashed["reason"] == "pending at the crash", crashed
    assert c.call("approval.list", {})["approvals"] == []
    # since: ISO time and unix ms.
    assert len(audit(c, since="2000-01-01T00:00:00Z")) == 3
    assert audit(c, since=int(time.time() * 1000) + 60000) == []
    e = c.error("audit.list", {"since": "yesterday"})
    assert e.name == "sbox.InvalidParams" and e.field == "since", e
    # The timeline: the sandboxed command, then the three requests in order.
    log = c.call("session.log", {"session": sid})["commands"]
    assert [x["outside"] for x in log] == [False, True, True, True], log
    assert log[1]["exit_code"] == 3 and log[1]["decision"] == "allow_once"
    assert log[1]["approval"] == done["approval"], log[1]
    assert log[1]["decided_by"].startswith("uid "), log[1]
    assert log[2]["state"] == "not_run" and log[2]["decision"] == "deny"
    assert log[3]["state"] == "not_run", log[3]
    assert log[3]["decision"] == "not_run_crash", log[3]
    # The CLI prints it readably, outside runs marked, escapes escaped.
    p = d.cli("session", "log", sid)
    assert p.returncode == 0, p
    text = p.stdout.decode()
    assert text.count("OUTSIDE") == 3, text
    assert "exited 3" in text and "not_run_crash" in text, text
    assert "pending at the crash" in text, text
    assert "\x1b" not in text and "\\x1b[31mdocker" in text, text
    p = d.cli("session", "log", sid, "--json")
    assert json.loads(p.stdout)["commands"][1]["exit_code"] == 3
    p = d.cli("audit", "--session", sid)
    assert p.returncode == 0, p
    text = p.stdout.decode()
    assert "not_run_crash" in text and "allow_once" in text, text
    assert "exit 3" in text and "\x1b" not in text, text
    p = d.cli("audit", "--since", "1h", "--json")
    assert len(json.loads(p.stdout)["approvals"]) == 3, p.stdout
    p = d.cli("audit", "--since", "soon")
    assert p.returncode == 2, p


def test_cli_outside_approve_deny(ctx):
    d = ctx.daemon()
    c = d.client()
    a = approver(d)
    proj = project(ctx)
    sid = session(c, proj)
    # Allowed from `sbox approve`: the command's own exit status.
    p = Cli(ctx, d, "session", "outside", sid, "--reason", "publish",
            "--cwd", ".", "--", "sh", "-c", "echo out; exit 5")
    req = next_request(a)
    lst = d.cli("approvals")
    assert lst.returncode == 0 and b"publish" in lst.stdout, lst
    assert ("sbox approve %d" % req["approval"]).encode() in lst.stdout, lst
    ok = d.cli("approve", str(req["approval"]))
    assert ok.returncode == 0, ok
    rc, so, se = p.wait()
    assert rc == 5, (rc, so, se)
    assert so == b"out\n", so
    assert "sbox approve" in record(c, req["approval"])["decided_by"]
    # Denied from `sbox deny`: 77 and the reason on stderr.
    p = Cli(ctx, d, "session", "outside", sid, "--reason", "again", "--",
            "true")
    req = next_request(a)
    assert d.cli("deny", str(req["approval"])).returncode == 0
    rc, so, se = p.wait()
    assert rc == 77, (rc, so, se)
    assert b"denied" in se, se
    again = d.cli("deny", str(req["approval"]))
    assert again.returncode == 1 and b"no longer pending" in again.stderr
    assert d.cli("approve", "x").returncode == 2
    assert d.cli("session", "outside", sid, "--", "true").returncode == 2
    assert d.cli("approvals").stdout.startswith(b"no request")


def pty_read_until(fd, needle, timeout=15):
    buf = b""
    end = time.time() + timeout
    while needle not in buf:
        left = end - time.time()
        if left <= 0:
            raise AssertionError("no %r in %r" % (needle, buf))
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
    if needle not in buf:
        raise AssertionError("no %r in %r" % (needle, buf))
    return buf


def test_watch_prompt_on_a_pty(ctx):
    d = ctx.daemon()
    c = d.client()
    proj = project(ctx)
    sid = session(c, proj)
    master, slave = pty.openpty()
    w = subprocess.Popen([os.path.join(sboxtest.BIN, "sbox"), "approvals",
                          "--watch"], env=d.env(), stdin=slave, stdout=slave,
                         stderr=slave, start_new_session=True)
    os.close(slave)
    try:
        pty_read_until(master, b"Watching")
        # The watcher is the approver: a request is now asked, not refused.
        wait_for(lambda: d.client().call("daemon.status") is not None)
        rid = c.send("command.run_outside", {
            "session": sid, "argv": ["sh", "-c", "echo ran > ran.txt"],
            "reason": "Publishing needs the API key\x1b]0;pwned\x07"})
        text = pty_read_until(master, b"[d] Deny").decode(errors="replace")
        assert "Run outside the sandbox?" in text, text
        assert "sh -c 'echo ran > ran.txt'" in text, text
        assert "in " + os.path.realpath(proj) in text, text
        assert '"Publishing needs the API key\\x1b]0;pwned\\x07"' in text, text
        assert "\x1b" not in text, text
        assert "[a] Allow once  [d] Deny" in text, text
        os.write(master, b"a")
        res = c.result(c.wait_reply(rid))
        assert res["exit_code"] == 0 and res["outside"] is True, res
        assert res["decided_by"].endswith("(sbox approvals --watch)"), res
        with open(os.path.join(proj, "ran.txt")) as f:
            assert f.read() == "ran\n"
        pty_read_until(master, b"allowed once")
        # A second request, denied with d.
        rid = c.send("command.run_outside", {
            "session": sid, "argv": ["touch", "nope"], "reason": "r2"})
        pty_read_until(master, b"[d] Deny")
        os.write(master, b"d")
        try:
            c.result(c.wait_reply(rid))
            raise AssertionError("ran")
        except RpcError as e:
            assert e.name == DENIED, e
        pty_read_until(master, b"denied")
        assert not os.path.exists(os.path.join(proj, "nope"))
        # A request decided elsewhere leaves the prompt.
        rid = c.send("command.run_outside", {
            "session": sid, "argv": ["true"], "reason": "r3"})
        pty_read_until(master, b"[d] Deny")
        aid = c.call("approval.list", {})["approvals"][0]["approval"]
        d.cli("deny", str(aid))
        pty_read_until(master, b"decided elsewhere")
        try:
            c.result(c.wait_reply(rid))
        except RpcError:
            pass
    finally:
        w.send_signal(signal.SIGTERM)
        try:
            w.wait(10)
        except subprocess.TimeoutExpired:
            w.kill()
            w.wait()
            raise AssertionError("sbox approvals --watch ignored SIGTERM")
        os.close(master)
    assert w.returncode == 0, w.returncode


def test_channel_agent_asks_but_cannot_decide(ctx):
    """A sandboxed command with a channel to sboxd (the agent inside) may
    ask to run outside; approving or denying from inside is refused."""
    import shutil
    d = ctx.daemon()
    c = d.client()
    a = approver(d)
    proj = project(ctx)
    shutil.copy(sboxtest.sbox_for_sandbox(), os.path.join(proj, "sbox"))
    sid = c.call("session.create", {"project": proj, "sandbox": "workspace",
                                    "env": {"PATH": "/usr/bin:/bin"}})
    sid = sid["session"]
    marker = os.path.join(ctx.tmp, "made-outside")
    try:
        probe = c.call("command.exec", {"session": sid, "channel": True,
                                        "argv": ["./sbox", "version"]})
    except RpcError as e:
        raise Skip("no session channel: %s" % e.message)
    if "Sanitizer" in base64.b64decode(probe["stderr"]).decode(errors="replace"):
        # An ASan build needs more address space than the sandbox allows.
        raise Skip("this sbox build cannot run inside the sandbox")
    asker = d.client()
    rid = asker.send("command.exec", {
        "session": sid, "channel": True, "argv": [
            "sh", "-c", "./sbox session outside %s --reason 'needs the "
            "host' -- touch %s; echo rc=$?" % (sid, marker)]})
    req = next_request(a)
    assert req["session"] == sid and req["reason"] == "needs the host", req
    aid = req["approval"]
    # From inside (another command with a channel): refused, both ways.
    r = c.call("command.exec", {"session": sid, "channel": True, "argv": [
        "sh", "-c", "./sbox approve %d; echo rc=$?; ./sbox deny %d; "
        "echo rc=$?; ./sbox approvals --watch </dev/null; echo rc=$?"
        % (aid, aid)]})
    so = base64.b64decode(r["stdout"]).decode()
    se = base64.b64decode(r["stderr"]).decode()
    assert so.split() == ["rc=1", "rc=1", "rc=1"], (so, se)
    assert se.count("not available from inside a sandbox") >= 2, se
    pend = c.call("approval.list", {})["approvals"]
    assert [p["approval"] for p in pend] == [aid], pend
    # The person on the host allows it: it runs outside, once.
    a.call("approval.decide", {"approval": aid, "decision": "allow_once"})
    res = asker.result(asker.wait_reply(rid))
    assert base64.b64decode(res["stdout"]).decode().strip() == "rc=0", res
    assert os.path.exists(marker)
    rec = record(c, aid)
    assert rec["decision"] == "allow_once" and rec["exit_code"] == 0, rec


def test_run_outside_uses_the_persons_umask(ctx):
    """Issue 21, item 7: a run outside uses the umask of the client that
    asked (passed in the request), 022 when unknown; never sboxd's 0077."""
    d = ctx.daemon()
    c = d.client()
    a = approver(d)
    proj = project(ctx)
    sid = session(c, proj)
    # the CLI passes its own
    old = os.umask(0o027)
    try:
        p = Cli(ctx, d, "session", "outside", sid, "--reason", "umask",
                "--", "touch", "by-cli")
    finally:
        os.umask(old)
    req = next_request(a)
    a.call("approval.decide", {"approval": req["approval"],
                               "decision": "allow_once"})
    assert p.wait()[0] == 0
    assert os.stat(os.path.join(proj, "by-cli")).st_mode & 0o777 == 0o640
    # unknown: 022
    rid = c.send("command.run_outside", {"session": sid, "argv": [
        "touch", "by-rpc"], "reason": "umask"})
    req = next_request(a)
    a.call("approval.decide", {"approval": req["approval"],
                               "decision": "allow_once"})
    c.result(c.wait_reply(rid))
    assert os.stat(os.path.join(proj, "by-rpc")).st_mode & 0o777 == 0o644
    e = c.error("command.run_outside", {"session": sid, "argv": ["true"],
                                        "reason": "x", "umask": 4096})
    assert e.name == "sbox.InvalidParams" and e.field == "umask", e


def test_only_the_asking_terminal_answers_as_terminal(ctx):
    """Issue 21, item 6: answering as "terminal" is for the host client at
    a terminal that asked, on its own connection: not for a request made
    without a terminal, not for another client, never from inside."""
    import shutil
    d = ctx.daemon()
    c = d.client()
    a = approver(d)
    proj = project(ctx)
    sid = session(c, proj)
    # no terminal as stdout: refused
    e = c.error("command.run_outside", {"session": sid, "argv": ["true"],
                                        "reason": "x", "terminal": True})
    assert e.name == "sbox.InvalidParams" and e.field == "terminal", e
    # a plain request cannot be answered as the terminal by anyone
    rid = c.send("command.run_outside", {"session": sid, "argv": [
        "true"], "reason": "plain"})
    req = next_request(a)
    assert req["terminal"] is False, req
    for who in (a, c):
        e = who.error("approval.decide", {"approval": req["approval"],
                                          "decision": "allow_once",
                                          "terminal": True})
        assert e.name == "sbox.PermissionDenied", e
    a.call("approval.decide", {"approval": req["approval"],
                               "decision": "deny"})
    try:
        c.result(c.wait_reply(rid))
    except RpcError as e:
        assert e.name == DENIED
    # from inside a sandbox, through the channel: never
    sid2 = sandboxed(c, proj)
    shutil.copy(sboxtest.sbox_for_sandbox(), os.path.join(proj, "sbox"))
    code = ("import json, os, socket\n"
            "s = socket.socket(fileno=int(os.environ['SBOX_CHANNEL_FD']))\n"
            "def call(i, m, p):\n"
            "    s.sendall((json.dumps({'jsonrpc': '2.0', 'id': i, "
            "'method': m, 'params': p}) + '\\n').encode())\n"
            "    return s.recv(65536).decode()\n"
            "print(call(1, 'rpc.hello', {'protocol': 1}))\n"
            "print(call(2, 'command.run_outside', {'session': %r, "
            "'argv': ['true'], 'reason': 'r', 'terminal': True, "
            "'stdio': 'pipes'}))\n" % sid2)
    try:
        r = c.call("command.exec", {"session": sid2, "channel": True,
                                    "argv": ["python3", "-c", code]})
    except RpcError as e:
        raise Skip("no session channel: %s" % e.message)
    text = base64.b64decode(r["stdout"]).decode()
    if "jsonrpc" not in text:
        raise Skip("no python channel here: %r" % r)
    assert "sbox.PermissionDenied" in text, text
    assert c.call("approval.list", {})["approvals"] == []
