"""End-to-end tests of issue 13 item 5: at a terminal (stdin and stdout),
`sbox session exec`, `sbox run` and `sbox session send` ask about what the
sandbox refused: "Allow HOST? [Enter] for this session / [a] and save it to
the profile / [n] no" for a host refused by the allowlist (then the command
runs again, once; issue 23 item 6: one key, Enter allows, `a` saves, `s`
too, `n` refuses), and, for a refused file write, exactly what would run
outside and "Run it outside the sandbox now?", whose answer decides the
request as the terminal (issue 21 item 6). Never through a pipe, with --no-ask, with --json or
for a client inside a sandbox (SBOX_CHANNEL_FD): those get the explanation
lines (what was refused, by which rule, what a person can do) and the exit
code only.

The host is x.test: outside the profile's allowlist, and (through the
config's `resolve` table) a metadata address, so once allowed it is refused
by the address rule instead and nothing is ever sent: the rule changing
proves the allowlist let it through. They pass as root and as an
unprivileged user."""
import json
import os
import pty
import select
import shutil
import signal
import subprocess
import time

import sboxtest
from clilib import run_tty, text

HOST = "x.test"
MARK = "ask-run-mark"
CURL = "echo %s; curl -sS -m 5 -o /dev/null http://%s/; true" % (MARK, HOST)
ASK_HOST = ("Allow %s? [Enter] for this session / [a] and save it to the "
            "profile / [n] no" % HOST)
ASK_OUT = "Run it outside the sandbox now? [y] yes / [n] no (the default)"


def config(extra_hosts=None):
    return {"sandbox": {"profiles": {"mine": {
        "extends": "workspace", "hosts": extra_hosts or ["other.test"]}}},
        "resolve": {HOST: ["169.254.169.254"]}}


def setup(ctx, sandbox="mine"):
    d = ctx.daemon(config())
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj, exist_ok=True)
    r = d.cli("session", "create", "--project", proj, "--sandbox", sandbox)
    sid = r.stdout.decode().strip()
    assert len(sid) == 16, text(r)
    return d, proj, sid


def run_pty(d, args, answers=(), stdin=None, env=None, timeout=40):
    """Run sbox with stdin, stdout and stderr on one pseudo-terminal. answers:
    (question to wait for, bytes to type or a function of the process) in
    order; stdin: bytes typed first
    (then ^D). Fails when sbox waits for an answer it was not given. Returns
    (exit code, everything the terminal showed)."""
    e = d.env()
    if env:
        e.update(env)
    master, slave = pty.openpty()
    p = subprocess.Popen([os.path.join(sboxtest.BIN, "sbox")] + list(args),
                         stdin=slave, stdout=slave, stderr=slave, env=e)
    os.close(slave)
    if stdin is not None:
        os.write(master, stdin + b"\x04")
    answers = list(answers)
    term = b""
    pos = 0
    end = time.time() + timeout
    try:
        while True:
            r, _, _ = select.select([master], [], [],
                                    max(0.0, end - time.time()))
            if not r:
                raise AssertionError("sbox %s waits (for an answer?); the "
                                     "terminal shows:\n%s" % (
                                         args, term.decode(errors="replace")))
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            term += chunk
            if answers:
                at = term.find(answers[0][0].encode(), pos)
                if at >= 0:
                    want, typed = answers.pop(0)
                    pos = at + len(want)
                    if callable(typed):
                        typed(p)
                    else:
                        os.write(master, typed)
    finally:
        try:
            rc = p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        os.close(master)
    shown = term.decode(errors="replace").replace("\r\n", "\n")
    assert not answers, "not asked: %r\n%s" % (answers, shown)
    return rc, shown


def blocked_lines(shown, what=HOST):
    return [l for l in shown.split("\n") if l.startswith("sbox: blocked:")
            and what in l]


def profile_hosts(d):
    with open(d.config) as f:
        return json.load(f)["sandbox"]["profiles"]["mine"].get("hosts", [])


def test_ask_allow_runs_again(ctx):
    d, proj, sid = setup(ctx)
    rc, shown = run_pty(d, ["session", "exec", sid, "--", "sh", "-c", CURL],
                        answers=[(ASK_HOST, b"\r")])
    assert rc == 0, shown
    # the command ran twice: refused by the allowlist, then (allowed) by
    # the address rule; asked once, and nothing was saved
    assert shown.count(MARK) == 2, shown
    assert shown.count(ASK_HOST) == 1, shown
    assert "sbox: running the command again" in shown, shown
    lines = blocked_lines(shown)
    assert len(lines) == 2, shown
    assert 'refused by rule "network allowlist"' in lines[0], lines
    assert "a person can allow it: sbox session allow-host %s %s" % (
        sid, HOST) in lines[0], lines
    assert 'refused by rule "non-public addresses"' in lines[1], lines
    assert "may now pass the proxy of session %s" % sid in shown, shown
    assert profile_hosts(d) == ["other.test"], profile_hosts(d)
    # the session keeps it: a later command is refused by the address rule
    r = d.cli("--json", "session", "exec", sid, "--", "sh", "-c", CURL)
    h = json.loads(r.stdout)["blocked"]["hosts"]
    assert [x["rule"] for x in h] == ["non-public addresses"], h


def test_ask_save_into_custom_profile(ctx):
    d, proj, sid = setup(ctx)
    rc, shown = run_pty(d, ["session", "exec", sid, "--", "sh", "-c", CURL],
                        answers=[(ASK_HOST, b"a")])
    assert rc == 0, shown
    assert shown.count(MARK) == 2, shown
    assert "(saved in the profile)" in shown, shown
    assert HOST in profile_hosts(d), profile_hosts(d)
    assert 'rule "non-public addresses"' in blocked_lines(shown)[-1], shown
    # saved means in force: a new session of the profile lets it through
    # the allowlist at once
    sid2 = d.cli("session", "create", "--project", proj, "--sandbox",
                 "mine").stdout.decode().strip()
    r = d.cli("--json", "session", "exec", sid2, "--", "sh", "-c", CURL)
    h = json.loads(r.stdout)["blocked"]["hosts"]
    assert [x["rule"] for x in h] == ["non-public addresses"], h


def test_ask_save_builtin_profile_is_yes_for_run(ctx):
    """sbox run in workspace (built in): save cannot write it, says so, and
    the host is allowed for the one-shot session; the command runs again."""
    d, proj, sid = setup(ctx)
    rc, shown = run_pty(d, ["run", "--sandbox", "workspace", "--project",
                            proj, "--", "sh", "-c", CURL],
                        answers=[(ASK_HOST, b"s\n")])
    assert rc == 0, shown
    assert "built-in profile" in shown, shown
    assert "allowed for this session only" in shown, shown
    assert shown.count(MARK) == 2, shown
    lines = blocked_lines(shown)
    assert 'rule "network allowlist"' in lines[0], lines
    # a one-shot session is not named in the advice
    assert "allow-host" not in lines[0] and "hosts" in lines[0], lines
    assert 'rule "non-public addresses"' in lines[1], lines


def test_ask_deny_no_rerun(ctx):
    d, proj, sid = setup(ctx)
    for typed in (b"n", b"N", b"x"):
        rc, shown = run_pty(d, ["session", "exec", sid, "--", "sh", "-c",
                                CURL + "; exit 3"],
                            answers=[(ASK_HOST, typed)])
        assert rc == 3, (typed, shown)
        assert shown.count(MARK) == 1, (typed, shown)
        assert "running the command again" not in shown, shown
        assert 'rule "network allowlist"' in blocked_lines(shown)[0], shown
    assert profile_hosts(d) == ["other.test"]


def test_ask_send_allow_runs_again(ctx):
    """session send --stdin with the script typed at the terminal: the
    question reads the terminal, not the script's /dev/null."""
    d, proj, sid = setup(ctx)
    rc, shown = run_pty(d, ["session", "send", sid, "--stdin"],
                        stdin=(CURL + "\n").encode(),
                        answers=[(ASK_HOST, b"y")])
    assert rc == 0, shown
    assert shown.count(MARK + "\n") >= 2, shown
    assert 'rule "non-public addresses"' in blocked_lines(shown)[-1], shown


WRITE = ["sh", "-c", "echo ran; echo x > .envrc"]


def test_ask_file_write_outside(ctx):
    """At the person's terminal, no approver connected: what would run is
    shown, and the key answers it (decided_by "terminal")."""
    d, proj, sid = setup(ctx)
    # declined: the command's status, nothing ran outside, the audit says
    # the terminal said no
    rc, shown = run_pty(d, ["session", "exec", sid, "--"] + WRITE,
                        answers=[(ASK_OUT, b"\r")])
    assert rc == 2, shown
    line = blocked_lines(shown, ".envrc")
    assert line and ".envrc refused: read-only, files that run programs " \
        "later (.envrc: direnv" in line[0], shown
    assert "a person can run the command outside the sandbox, with " \
        "approval: sbox session outside %s" % sid in line[0], line
    assert "not run outside the sandbox" in shown, shown
    # exactly what would run, before the question
    before = shown[:shown.index(ASK_OUT)]
    assert "runs %s" % os.path.realpath(shutil.which("sh")) in before, shown
    assert "in %s" % os.path.realpath(proj) in before, shown
    assert not os.path.exists(os.path.join(proj, ".envrc"))
    recs = json.loads(d.cli("--json", "audit", "--session", sid).stdout)[
        "approvals"]
    assert [(r["decision"], r["decided_by"]) for r in recs] == [
        ("deny", "terminal")], recs
    # yes: it runs outside (the host's .envrc is written), decided here
    rc, shown = run_pty(d, ["session", "exec", sid, "--"] + WRITE,
                        answers=[(ASK_OUT, b"y")])
    assert rc == 0, shown
    assert shown.count("ran\n") == 2, shown
    assert os.path.exists(os.path.join(proj, ".envrc"))
    recs = json.loads(d.cli("--json", "audit", "--session", sid).stdout)[
        "approvals"]
    assert len(recs) == 2 and recs[1]["argv"] == WRITE, recs
    assert recs[1]["decision"] == "allow_once", recs
    assert recs[1]["decided_by"] == "terminal", recs
    assert recs[1]["exit_code"] == 0, recs
    assert ".envrc" in recs[1]["reason"], recs
    shown = d.cli("audit", "--session", sid).stdout.decode()
    assert "decided by terminal (the person at the terminal that asked)" \
        in shown, shown


def test_terminal_answer_with_another_approver(ctx):
    """Another approver connected sees the request (marked as asked at a
    terminal) and may answer first; the audit says who decided."""
    d, proj, sid = setup(ctx)
    a = d.client()
    a.call("events.subscribe", {"topics": ["approval.requested"]})

    def other_decides(p):
        req = a.wait_notification("events.event", lambda n: n["topic"] ==
                                  "approval.requested", 15)["data"]
        assert req["terminal"] is True, req
        a.call("approval.decide", {"approval": req["approval"],
                                   "decision": "deny"})
    rc, shown = run_pty(d, ["session", "exec", sid, "--"] + WRITE,
                        answers=[(ASK_OUT, other_decides)])
    # the question ends by itself: answered elsewhere
    assert rc == 77, shown
    assert "answered elsewhere" in shown, shown
    recs = json.loads(d.cli("--json", "audit", "--session", sid).stdout)[
        "approvals"]
    assert len(recs) == 1 and recs[0]["decision"] == "deny", recs
    assert recs[0]["decided_by"].startswith("uid "), recs
    assert not os.path.exists(os.path.join(proj, ".envrc"))
    # the sandbox cannot claim to be a terminal
    e = a.error("approval.decide", {"approval": recs[0]["approval"],
                                    "decision": "allow_once",
                                    "terminal": True})
    assert e.name in ("sbox.InvalidParams", "sbox.PermissionDenied"), e


def test_ask_file_write_strict_not_asked(ctx):
    """A profile that never runs outside is not asked about it, and says
    so."""
    d, proj, sid = setup(ctx, sandbox="strict")
    rc, shown = run_pty(d, ["session", "exec", sid, "--"] + WRITE)
    assert rc == 2 and ASK_OUT not in shown, shown
    assert "profile strict never runs a command outside" in shown, shown


def test_no_question_without_terminal(ctx):
    d, proj, sid = setup(ctx)
    # through pipes
    r = d.cli("session", "exec", sid, "--", "sh", "-c", CURL)
    assert r.returncode == 0 and b"Allow" not in r.stderr, text(r)
    assert r.stdout.decode().count(MARK) == 1, text(r)
    err = r.stderr.decode()
    assert 'connection to x.test:80 refused by rule "network allowlist": ' \
        'x.test is not in the allowlist of profile mine; a person can allow ' \
        'it: sbox session allow-host %s x.test' % sid in err, err
    r = d.cli("session", "send", sid, "--stdin", input=CURL.encode())
    assert r.returncode == 0 and b"Allow" not in r.stderr, text(r)
    # send --sandbox: a child session closed after, so the advice names none
    r = d.cli("session", "send", sid, "--no-ask", "--sandbox", "mine",
              "--stdin", input=CURL.encode())
    assert r.returncode == 0 and b"Allow" not in r.stderr, text(r)
    assert b'rule "network allowlist"' in r.stderr, text(r)
    assert b"allow-host" not in r.stderr, text(r)
    # stdin a terminal, stdout a pipe
    rc, out, term = run_tty(d, "session", "exec", sid, "--", "sh", "-c", CURL)
    assert rc == 0 and "Allow" not in term and out.count(MARK.encode()) == 1, \
        (out, term)
    # a terminal, but --no-ask / --json / a client inside a sandbox
    for args, env in (
            (["session", "exec", sid, "--no-ask", "--", "sh", "-c", CURL], None),
            (["run", "--no-ask", "--sandbox", "mine", "--project", proj, "--",
              "sh", "-c", CURL], None),
            (["session", "exec", sid, "--", "sh", "-c", CURL],
             {"SBOX_CHANNEL_FD": "99"}),
            (["session", "exec", sid, "--"] + WRITE, {"SBOX_CHANNEL_FD": "99"}),
            (["session", "exec", sid, "--no-ask", "--"] + WRITE, None)):
        rc, shown = run_pty(d, args, env=env)
        assert "Allow" not in shown and "outside the sandbox?" not in shown, \
            (args, shown)
        assert "running the command again" not in shown, shown
        assert shown.count("sbox: blocked:") == 1, shown
    rc, shown = run_pty(d, ["session", "send", sid, "--stdin", "--no-ask"],
                        stdin=(CURL + "\n").encode())
    assert "Allow" not in shown and rc == 0, shown
    # --json never asks; the result says what, which rule, what to do
    rc, shown = run_pty(d, ["--json", "session", "exec", sid, "--", "sh",
                            "-c", CURL + "; echo x > .envrc"])
    assert "Allow" not in shown and "outside the sandbox?" not in shown, shown
    doc = json.loads(shown[shown.index("{"):])
    h = doc["blocked"]["hosts"][0]
    assert h["rule"] == "network allowlist", h
    assert "allow-host %s x.test" % sid in h["explanation"], h
    f = doc["blocked"]["files"][0]
    assert "read-only, files that run programs later" in f["explanation"], f
    assert "sbox session outside %s" % sid in f["explanation"], f


def test_no_ask_option_in_help(ctx):
    d = ctx.daemon()
    for args in (["session", "exec"], ["session", "send"], ["run"]):
        r = d.cli(*(args + ["--help"]))
        assert b"--no-ask" in r.stdout, r
    r = d.cli("session", "outside", "x", "--no-ask", "--", "true")
    assert r.returncode == 2 and b"unknown option --no-ask" in r.stderr, r


def test_no_question_after_ctrl_c(ctx):
    """A person who stopped the command with ^C (SIGINT to sbox, as a
    terminal's foreground process group gets it) is not asked about it."""
    d, proj, sid = setup(ctx)
    rc, shown = run_pty(d, ["session", "exec", sid, "--", "sh", "-c",
                            CURL + "; echo curl-done; sleep 30"],
                        answers=[("curl-done", lambda p: (time.sleep(0.3),
                                  p.send_signal(signal.SIGINT)))])
    assert "Allow" not in shown, shown
    assert 'rule "network allowlist"' in blocked_lines(shown)[0], shown
    assert rc != 0, (rc, shown)


def test_no_question_inside_sandbox(ctx):
    """sbox run inside a sandbox (through its session's channel) with a
    terminal as stdin and stdout: the explanation and the exit code, never a
    question."""
    d, proj, sid = setup(ctx)
    shutil.copy(sboxtest.sbox_for_sandbox(), os.path.join(proj, "sbox"))
    c = d.client()
    master, slave = pty.openpty()
    script = ("[ -t 0 ] && [ -t 1 ] && echo on-a-terminal; "
              "./sbox session exec %s -- sh -c '%s; exit 4'; "
              "echo inner-rc=$?" % (sid, CURL))
    rid = c.send("command.exec", {"session": sid, "argv": ["sh", "-c", script],
                                  "channel": True, "stdio": "fds",
                                  # the sandbox's own terminal, relayed: a
                                  # sandbox never holds ours (issue 22)
                                  "tty": {"rows": 24, "cols": 80},
                                  "timeout": 60}, fds=[slave, slave, slave])
    os.close(slave)
    term = b""
    reply = None
    end = time.time() + 60
    try:
        while reply is None and time.time() < end:
            r, _, _ = select.select([master, c.sock], [], [], 1)
            if master in r:
                try:
                    term += os.read(master, 65536)
                except OSError:
                    pass
            if c.sock in r:
                # command.started comes first; the reply once it ended
                # (after a held command.blocked, maybe in the same read:
                # every whole line read is looked at)
                m = c.recv()
                while m is not None:
                    if m.get("id") == rid and "method" not in m:
                        reply = m
                        break
                    m = c.recv() if b"\n" in c.buf else None
            if b"Allow " in term:
                break
        # what the terminal still holds
        while select.select([master], [], [], 0.5)[0]:
            try:
                more = os.read(master, 65536)
            except OSError:
                break
            if not more:
                break
            term += more
    finally:
        os.close(master)
    shown = term.decode(errors="replace")
    assert "Allow" not in shown, shown
    assert reply is not None and "result" in reply, (reply, shown)
    assert "on-a-terminal" in shown and "inner-rc=4" in shown, shown
    assert 'rule "network allowlist"' in shown, shown
