"""End-to-end tests of the CLI rows of issue 14 (items 3 and 5):
`sbox session send ID --sandbox P --stdin` runs one script under a profile
no wider than the session's (a child session, closed after) and is refused
for a wider one; `sbox session status ID` and `sbox session choices`."""
import json
import os

from sboxtest import RpcError


def text(r):
    return r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")


def config(project):
    return {
        "sandbox": {"all_sessions": "workspace",
                    "profiles": {"calm": {"extends": "strict"}}},
        "projects": {project: {"sandbox": "strict"}},
        "providers": {"agent": {"sandbox": "calm"}},
        "models": {"big": {"sandbox": "workspace"}},
        "spaces": {"work": {"sandbox": "lab"}},
    }


def test_send_sandbox_narrower_and_wider(ctx):
    d = ctx.daemon({"sandbox": {"profiles": {"calm": {"extends": "strict"}}}})
    c = d.client()
    sid = c.call("session.create", {"project": ctx.tmp,
                                    "sandbox": "workspace"})["session"]
    r = d.cli("session", "send", sid, "--sandbox", "strict", "--stdin",
              input=b"echo narrow-ok; echo hi > from-child; "
                    b"curl -sS -m 5 -o /dev/null http://x.test/ 2>&1; true\n")
    assert r.returncode == 0, text(r)
    assert b"narrow-ok" in r.stdout, text(r)
    assert os.path.exists(os.path.join(ctx.tmp, "from-child"))
    # the child ran strict: its network is off, and it is closed now
    assert b"network is off" in r.stderr + r.stdout, text(r)
    live = c.call("session.list", {})["sessions"]
    assert [s["session"] for s in live] == [sid], live
    # narrower custom profile, --stdin first
    r = d.cli("session", "send", sid, "--stdin", "--sandbox", "calm",
              input=b"exit 3\n")
    assert r.returncode == 3, text(r)
    # a strict session cannot send under workspace (wider network)
    sid2 = c.call("session.create", {"project": ctx.tmp,
                                     "sandbox": "strict"})["session"]
    r = d.cli("--json", "session", "send", sid2, "--sandbox", "workspace",
              "--stdin", input=b"echo should-not-run\n")
    assert r.returncode == 1, text(r)
    assert b"should-not-run" not in r.stdout, text(r)
    assert b"network" in r.stderr, text(r)
    try:
        c.call("session.create", {"project": ctx.tmp, "sandbox": "none",
                                  "within": sid2})
        raise AssertionError("an unsandboxed session within a sandbox")
    except RpcError as e:
        assert e.name == "sbox.NarrowingViolation", e
    try:
        c.call("session.create", {"project": ctx.tmp, "sandbox": "strict",
                                  "within": "0000000000000000"})
        raise AssertionError("within an unknown session")
    except RpcError as e:
        assert e.name == "sbox.SessionNotFound" and e.field == "within", e


def test_session_status(ctx):
    d = ctx.daemon({})
    c = d.client()
    sid = c.call("session.create", {"project": ctx.tmp,
                                    "sandbox": "strict"})["session"]
    c.call("command.exec", {"session": sid, "argv": ["sh", "-c",
           "curl -sS -m 5 -o /dev/null http://refused.test/; true"]})
    job = c.call("command.exec", {"session": sid, "argv": ["sleep", "30"],
                                  "detach": True, "stdio": "none"})
    r = d.cli("--json", "session", "status", sid)
    assert r.returncode == 0, text(r)
    j = json.loads(r.stdout)
    assert j["state"] == "ready" and j["profile"] == "strict", j
    assert j["runs_here"] is True and j["live"] is True, j
    assert j["refused"][0]["host"] == "refused.test", j
    assert [x["command"] for x in j["running"]] == [job["command"]], j
    assert j["running"][0]["argv"] == ["sleep", "30"], j
    r = d.cli("session", "status", sid)
    out = r.stdout.decode()
    assert r.returncode == 0 and "runs here" in out and "yes" in out, out
    assert "refused.test" in out and "sleep 30" in out, out
    c.call("session.close", {"session": sid})
    j = json.loads(d.cli("--json", "session", "status", sid).stdout)
    assert j["live"] is False and j["running"] == [], j
    r = d.cli("session", "status", "0000000000000000")
    assert r.returncode == 1, text(r)


def test_session_choices(ctx):
    project = os.path.join(ctx.tmp, "lib")
    os.makedirs(project)
    d = ctx.daemon(config(project))
    r = d.cli("--json", "session", "choices", "--project", project,
              "--provider", "agent", "--space", "work")
    assert r.returncode == 0, text(r)
    j = json.loads(r.stdout)
    levels = {x["level"]: x for x in j["levels"]}
    assert [x["level"] for x in j["levels"]] == [
        "session", "model", "provider", "project", "space", "all_sessions",
        "default"], j
    assert levels["provider"]["profile"] == "calm", j
    assert levels["provider"]["wins"] is True, j
    assert levels["project"]["profile"] == "strict", j
    assert levels["project"]["wins"] is False, j
    assert levels["space"]["profile"] == "lab", j
    assert levels["all_sessions"]["profile"] == "workspace", j
    assert levels["model"]["profile"] is None, j
    assert j["profile"] == "calm" and j["provenance"] == \
        "calm, from provider agent", j
    r = d.cli("session", "choices", "--project", project, "--model", "big")
    out = r.stdout.decode()
    assert r.returncode == 0, text(r)
    win = [ln for ln in out.split("\n") if ln.startswith("=>")]
    assert len(win) == 1 and "model big" in win[0] and "workspace" in win[0], out
    assert "workspace, from model big" in out, out
    j = json.loads(d.cli("--json", "session", "choices").stdout)
    assert j["profile"] == "workspace", j
    assert [x["level"] for x in j["levels"] if x["wins"]] == ["all_sessions"]


def test_unsandboxed_always_says_so(ctx):
    """Issue 21, item 5: an unsandboxed session says so on stderr from
    session create, exec and run whatever stdout is (a pipe here), in every
    answer that describes it, and in the session.created event."""
    d = ctx.daemon()
    proj = os.path.join(ctx.tmp, "x")
    os.makedirs(proj)
    a = d.client()
    a.call("events.subscribe", {"topics": ["session.created"]})
    r = d.cli("session", "create", "--project", proj)
    assert r.returncode == 0, text(r)
    sid = r.stdout.decode().strip()
    assert b"not sandboxed" in r.stderr, text(r)
    ev = a.wait_notification("events.event", lambda p: p["topic"] ==
                             "session.created", 10)
    assert ev["session"] == sid and ev["data"]["sandboxed"] is False, ev
    r = d.cli("session", "exec", sid, "--", "true")
    assert r.returncode == 0 and b"not sandboxed" in r.stderr, text(r)
    c = d.client()
    assert c.call("session.info", {"session": sid})["sandboxed"] is False
    rows = [s for s in c.call("session.list", {})["sessions"]
            if s["session"] == sid]
    assert rows and rows[0]["sandboxed"] is False, rows
    # a sandboxed one says nothing of the kind through a pipe
    r = d.cli("session", "create", "--project", proj, "--sandbox",
              "workspace")
    if r.returncode == 0:
        assert b"not sandboxed" not in r.stderr, text(r)
        sid2 = r.stdout.decode().strip()
        rows = [s for s in c.call("session.list", {})["sessions"]
                if s["session"] == sid2]
        assert rows[0]["sandboxed"] is True, rows
