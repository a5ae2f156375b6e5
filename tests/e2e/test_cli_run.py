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
