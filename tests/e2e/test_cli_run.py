"""End-to-end tests of issue 16: `sbox run` never runs a command unsandboxed
without saying so. With nothing configured it uses `workspace` (and says so
on stderr); a profile the config chooses stands, `none` included, and is
named; SBOX_SANDBOX chooses below --sandbox; `session create` warns on a
terminal when the session is not sandboxed; --json results carry
`sandboxed`. They pass as root and as an unprivileged user."""
import json
import os

from clilib import run_tty, text
from sandboxlib import SECRET, make_home

DEFAULT_NOTE = ("sbox: sandbox workspace (the default for sbox run; choose "
                "with --sandbox or in the config)")


def project(ctx, d):
    make_home(d.home)
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj, exist_ok=True)
    return proj


def read_cred():
    return ["sh", "-c", "cat \"$HOME/.ssh/id_rsa\"; echo pid1=$(cat /proc/1/comm)"]


def test_run_empty_config_uses_workspace(ctx):
    d = ctx.daemon()
    proj = project(ctx, d)
    r = d.cli("run", "--project", proj, "--", *read_cred())
    o = r.stdout.decode()
    assert SECRET not in o, "sbox run with an empty config ran unsandboxed: " + text(r)
    assert "pid1=sbox-init" in o or "pid1=init" in o, text(r)
    assert DEFAULT_NOTE in r.stderr.decode(), text(r)
    # --json: one document, sandboxed and the profile named
    r = d.cli("--json", "run", "--project", proj, "--", "echo", "hi")
    assert r.returncode == 0, text(r)
    j = json.loads(r.stdout)
    assert j["sandboxed"] is True and j["profile"] == "workspace", j
    assert j["stdout_text"] == "hi\n", j
    assert DEFAULT_NOTE in r.stderr.decode(), text(r)


def test_run_config_none_runs_unsandboxed_and_says_so(ctx):
    d = ctx.daemon({"sandbox": {"all_sessions": "none"}})
    proj = project(ctx, d)
    r = d.cli("run", "--project", proj, "--", *read_cred())
    assert r.returncode == 0, text(r)
    assert SECRET in r.stdout.decode(), "all_sessions none must stand: " + text(r)
    assert DEFAULT_NOTE not in r.stderr.decode(), text(r)
    # on a terminal: said once, with where it came from
    rc, out, term = run_tty(d, "run", "--project", proj, "--", "echo", "x")
    assert rc == 0 and out == b"x\n", (rc, out, term)
    assert term.count("not sandboxed") == 1, term
    assert "none, from all_sessions" in term, term
    r = d.cli("--json", "run", "--project", proj, "--", "true")
    j = json.loads(r.stdout)
    assert j["sandboxed"] is False and j["profile"] == "none", j


def test_run_config_choice_named_on_terminal(ctx):
    d = ctx.daemon({"sandbox": {"all_sessions": "strict"}})
    proj = project(ctx, d)
    rc, out, term = run_tty(d, "run", "--project", proj, "--", "true")
    assert rc == 0, (rc, term)
    assert "sbox: sandbox strict, from all_sessions" in term, term
    r = d.cli("run", "--project", proj, "--", "true")
    assert r.returncode == 0 and r.stderr == b"", text(r)


def test_run_sbox_sandbox_variable(ctx):
    d = ctx.daemon({"sandbox": {"all_sessions": "none"}})
    proj = project(ctx, d)
    r = d.cli("--json", "run", "--project", proj, "--", *read_cred(),
              env={"SBOX_SANDBOX": "strict"})
    j = json.loads(r.stdout)
    assert j["profile"] == "strict" and j["sandboxed"] is True, j
    assert SECRET not in j.get("stdout_text", ""), j
    # --sandbox beats the variable
    r = d.cli("run", "--json", "--sandbox", "workspace", "--project", proj,
              "--", "true", env={"SBOX_SANDBOX": "strict"})
    assert json.loads(r.stdout)["profile"] == "workspace", text(r)
    # and session create takes it too
    r = d.cli("--json", "session", "create", "--project", proj,
              env={"SBOX_SANDBOX": "strict"})
    j = json.loads(r.stdout)
    assert j["profile"] == "strict", j
    d.cli("session", "close", j["session"])


def test_session_create_warns_on_terminal_and_through_a_pipe(ctx):
    d = ctx.daemon()
    proj = project(ctx, d)
    rc, out, term = run_tty(d, "session", "create", "--project", proj)
    assert rc == 0, term
    sid = out.decode().strip()
    assert len(sid) == 16, out
    assert "warning: not sandboxed" in term, term
    assert "none, by default" in term, term
    assert "\x1b[33m" in term, "a warning on a terminal is yellow: %r" % term
    rc, out, term = run_tty(d, "session", "create", "--project", proj,
                            env={"NO_COLOR": "1"})
    assert "warning: not sandboxed" in term and "\x1b[" not in term, term
    d.cli("session", "close", out.decode().strip())
    d.cli("session", "close", sid)
    # through a pipe too (issue 21, item 5): an unsandboxed session always
    # says so on stderr, with no colour
    r = d.cli("session", "create", "--project", proj)
    assert r.returncode == 0 and b"warning: not sandboxed" in r.stderr, \
        text(r)
    assert b"\x1b[" not in r.stderr, text(r)
    d.cli("session", "close", r.stdout.decode().strip())
    # a sandboxed session names its profile on a terminal, no warning
    rc, out, term = run_tty(d, "session", "create", "--project", proj,
                            "--sandbox", "strict")
    assert "sbox: sandbox strict, from session" in term and "warning" not in term, term
    d.cli("session", "close", out.decode().strip())


def test_session_exec_none_says_so_on_terminal(ctx):
    d = ctx.daemon()
    proj = project(ctx, d)
    sid = d.cli("session", "create", "--project", proj).stdout.decode().strip()
    rc, out, term = run_tty(d, "session", "exec", sid, "--", "echo", "hi")
    assert rc == 0 and "hi" in term, term
    assert term.count("not sandboxed") == 1, term
    r = d.cli("session", "exec", sid, "--json", "--", "echo", "hi")
    j = json.loads(r.stdout)
    assert j["sandboxed"] is False and j["stdout_text"] == "hi\n", j
    d.cli("session", "close", sid)


def test_run_from_root_folder_and_verbose(ctx):
    d = ctx.daemon()
    project(ctx, d)
    r = d.cli("run", "--project", "/", "--", "true")
    assert r.returncode == 1, text(r)
    err = r.stderr.decode()
    assert "cannot use / as the project folder" in err, err
    assert "placeholder" not in err, err
    proj = os.path.join(ctx.tmp, "proj")
    r = d.cli("run", "-v", "--project", proj, "--", "true")
    assert r.returncode == 0, text(r)
    sid = [l for l in r.stderr.decode().splitlines() if l.startswith("sbox: session ")]
    assert sid and len(sid[0].split()[2]) == 16, text(r)


def _log(d):
    with open(d.log, "rb") as f:
        return f.read().decode(errors="replace")


def test_run_spare_made_ahead_is_fresh_and_unlisted(ctx):
    """Issue 38: a closed `sbox run` session has the next one made ahead,
    which the next run takes (no fresh bwrap on its path); what runs there
    is a new sandbox (its own /tmp, sbox-init as pid 1), the spare is in no
    list before it is taken (one row a run), and a run whose plan
    differs (another TZ passed in) does not take it: it gets what it asked
    for."""
    import re
    from sboxtest import wait_for
    d = ctx.daemon()
    proj = project(ctx, d)
    r = d.cli("run", "--project", proj, "--", "sh", "-c",
              "echo one > /tmp/mark; cat /proc/1/comm")
    assert r.returncode == 0, text(r)
    wait_for(lambda: "session spare" in _log(d) and
             re.search(r"session spare \S+ ready", _log(d)), 30,
             what="the spare session to be ready")
    c = d.client()
    live = [s for s in c.call("session.list", {"all": True})["sessions"]
            if s.get("state") in ("starting", "ready")]
    assert live == [], live
    r = d.cli("run", "--project", proj, "--", "sh", "-c",
              "cat /tmp/mark 2>&1; echo pid1=$(cat /proc/1/comm); echo TZ=$TZ")
    assert r.returncode == 0, text(r)
    o = r.stdout.decode()
    assert "made ahead" in _log(d), _log(d)[-3000:]
    assert "one" not in o, "a spare shared the last run's /tmp: " + text(r)
    assert "pid1=sbox-init" in o or "pid1=init" in o, text(r)
    assert DEFAULT_NOTE in r.stderr.decode(), text(r)
    # recorded as any session: one row per run, all closed now
    rows = c.call("session.list", {"all": True})["sessions"]
    assert len(rows) == 2 and all(s["state"] == "closed" for s in rows), rows
    # another environment the profile passes in: the spare is not taken
    n = _log(d).count("made ahead")
    wait_for(lambda: len(re.findall(r"session spare \S+ ready", _log(d))) >= 2,
             30, what="the next spare")
    r = d.cli("run", "--project", proj, "--", "sh", "-c", "echo TZ=$TZ",
              env={"TZ": "Europe/Paris"})
    assert r.returncode == 0, text(r)
    assert "TZ=Europe/Paris" in r.stdout.decode(), text(r)
    assert _log(d).count("made ahead") == n, _log(d)[-3000:]
    assert "its plan differs" in _log(d), _log(d)[-3000:]
