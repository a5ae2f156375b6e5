"""End-to-end tests of `exclude` patterns matched at execve (issue 13,
item 4): a program that a sandboxed command starts (through `sh -c`, a
script sent with `session send --stdin`, Python's subprocess) and that
matches a pattern does not run inside; it goes through approval and, when
allowed, runs on the host with the program's own stdin, stdout and stderr,
and the program inside ends with its exit status. Denied, timed out or
without an approver it ends with 126, a line on its stderr and an `exec`
refusal in the command's blocked files. The host is checked with the file
the program writes there (a folder the sandbox cannot see).

They pass as root and as an unprivileged user."""
import base64
import os
import shutil
import subprocess

import sboxtest
from sboxtest import Skip, wait_for
from test_approvals import approver, sandboxed

PATTERN = "sh -c echo sbox-outside-*"


def daemon(ctx, extra=None):
    # the shim is sbox-init itself: a sanitizer build cannot start inside
    # a sandbox (its shadow memory is far over the address-space limit)
    if os.path.basename(os.path.normpath(sboxtest.BIN)) == "bin-san":
        raise Skip("the exclusion shim of a sanitizer build cannot run "
                   "inside a sandbox")
    prof = {"extends": "workspace", "exclude": [PATTERN, "touch */nope-*"]}
    prof.update(extra or {})
    return ctx.daemon({"sandbox": {"profiles": {"ex": prof}}})


def next_request(a, timeout=15):
    return a.wait_notification(
        "events.event", lambda p: p["topic"] == "approval.requested",
        timeout)["data"]


def out(res, key="stdout"):
    return base64.b64decode(res.get(key) or "").decode()


def setup(ctx, d):
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj, exist_ok=True)
    host = os.path.join(ctx.tmp, "host-side")   # not visible inside
    os.makedirs(host, exist_ok=True)
    c = d.client()
    return c, sandboxed(c, proj, "ex"), proj, host


def inner(host, name, status=0):
    """The excluded command line: writes a marker on the host, prints a
    line on stdout and one on stderr, exits with status."""
    marker = os.path.join(host, name)
    return marker, ("echo sbox-outside-%s > %s; echo printed-outside; "
                    "echo err-outside >&2; exit %d" % (name, marker, status))


def test_allowed_through_sh_c_runs_on_the_host(ctx):
    d = daemon(ctx)
    c, sid, proj, host = setup(ctx, d)
    a = approver(d)
    marker, line = inner(host, "m1", 7)
    script = "sh -c '%s'; echo status=$?; echo after" % line
    rid = c.send("command.exec", {"session": sid, "argv": ["sh", "-c", script]})
    req = next_request(a)
    # what the person sees is what the program asked for, not the
    # top-level command line
    assert req["argv"] == ["sh", "-c", line], req
    assert "excluded by profile" in req["reason"], req
    assert PATTERN in req["reason"] and "started inside" in req["reason"], req
    assert req["cwd"] == os.path.realpath(proj), req
    assert not os.path.exists(marker), "ran before the decision"
    a.call("approval.decide", {"approval": req["approval"], "decision": "allow_once"})
    res = c.result(c.wait_reply(rid))
    assert res["exit_code"] == 0, res
    assert out(res) == "printed-outside\nstatus=7\nafter\n", out(res)
    assert "err-outside" in out(res, "stderr"), out(res, "stderr")
    # it ran on the host: the marker is there, with the host's view
    with open(marker) as f:
        assert f.read() == "sbox-outside-m1\n"
    assert res["blocked"]["files"] == [], res["blocked"]
    # the audit has the run outside, with its exit status
    rec = [r for r in c.call("audit.list", {"session": sid})["approvals"]
           if r["approval"] == req["approval"]][0]
    assert rec["decision"] == "allow_once", rec
    assert rec.get("exit_code") == 7, rec


def test_denied_ends_with_126_and_is_reported(ctx):
    d = daemon(ctx)
    c, sid, proj, host = setup(ctx, d)
    a = approver(d)
    marker, line = inner(host, "m2")
    rid = c.send("command.exec", {"session": sid, "argv": [
        "sh", "-c", "sh -c '%s'; echo status=$?" % line]})
    req = next_request(a)
    a.call("approval.decide", {"approval": req["approval"], "decision": "deny"})
    res = c.result(c.wait_reply(rid))
    assert out(res) == "status=126\n", out(res)
    err = out(res, "stderr")
    assert "was not run" in err and PATTERN in err and "denied" in err, err
    assert not os.path.exists(marker)
    files = [f for f in res["blocked"]["files"] if f["op"] == "exec"]
    assert len(files) == 1 and files[0]["rule"] == "exclude", res["blocked"]
    # the file the kernel was asked to run, by its real path
    assert files[0]["path"] == os.path.realpath(shutil.which("sh")), files
    assert "denied" in files[0]["reason"], files


def test_headless_refused_at_once(ctx):
    d = daemon(ctx)
    c, sid, proj, host = setup(ctx, d)
    marker, line = inner(host, "m3")
    res = c.call("command.exec", {"session": sid, "argv": [
        "sh", "-c", "sh -c '%s'; echo status=$?" % line]})
    assert out(res) == "status=126\n", out(res)
    assert "no one is connected" in out(res, "stderr"), out(res, "stderr")
    assert not os.path.exists(marker)
    assert any(f["op"] == "exec" and f["rule"] == "exclude"
               for f in res["blocked"]["files"]), res["blocked"]
    decisions = [r["decision"] for r in
                 c.call("audit.list", {"session": sid})["approvals"]]
    assert decisions == ["refused_headless"], decisions


def test_python_subprocess_vfork_gets_the_status(ctx):
    """Python's subprocess starts programs with vfork: the caller's memory
    is shared with the child until the exec; it must be intact after."""
    d = daemon(ctx)
    c, sid, proj, host = setup(ctx, d)
    a = approver(d)
    marker, line = inner(host, "m4", 3)
    code = ("import subprocess, sys\n"
            "args = ['sh', '-c', %r]\n"
            "r = subprocess.run(args, capture_output=True, text=True)\n"
            "print('rc', r.returncode, repr(r.stdout))\n"
            "print('args intact', args == ['sh', '-c', %r])\n"
            "r = subprocess.run(['sh', '-c', 'echo inside'], "
            "capture_output=True, text=True)\n"
            "print('then', r.returncode, r.stdout.strip())\n") % (line, line)
    rid = c.send("command.exec", {"session": sid, "argv": [
        "python3", "-c", code]})
    req = next_request(a)
    a.call("approval.decide", {"approval": req["approval"], "decision": "allow_once"})
    res = c.result(c.wait_reply(rid))
    assert out(res) == ("rc 3 'printed-outside\\n'\nargs intact True\n"
                        "then 0 inside\n"), (out(res), out(res, "stderr"))
    assert os.path.exists(marker)


def test_send_stdin_script_through_the_cli(ctx):
    d = daemon(ctx)
    c, sid, proj, host = setup(ctx, d)
    a = approver(d)
    marker, line = inner(host, "m5")
    cli = subprocess.Popen(
        [os.path.join(sboxtest.BIN, "sbox"), "session", "send", sid,
         "--stdin", "--no-ask"],
        env=d.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    cli.stdin.write(("echo start\nsh -c '%s'\necho status=$?\n" % line)
                    .encode())
    cli.stdin.close()
    req = next_request(a)
    assert req["argv"] == ["sh", "-c", line], req
    a.call("approval.decide", {"approval": req["approval"], "decision": "allow_once"})
    o = cli.stdout.read().decode()
    cli.wait(30)
    assert "start\n" in o and "printed-outside\n" in o and "status=0" in o, o
    assert os.path.exists(marker)


def test_not_matching_runs_inside_and_shim_alone_does_nothing(ctx):
    d = daemon(ctx)
    c, sid, proj, host = setup(ctx, d)
    a = approver(d)
    # the same program with other arguments: inside, no request
    res = c.call("command.exec", {"session": sid, "argv": [
        "sh", "-c", "sh -c 'echo plain'; touch %s/x 2>/dev/null; echo $?" %
        host]})
    assert out(res) == "plain\n1\n", out(res)
    # the shim run by hand (no socket from sbox-init): refuses, asks nothing
    res = c.call("command.exec", {"session": sid, "argv": [
        "sh", "-c", "/.x sh -c 'echo sbox-outside-forged'; echo rc=$?"]})
    assert out(res) == "rc=126\n", (out(res), out(res, "stderr"))
    # the shim given a socket of the program's own (not sbox-init's):
    # it finds no sbox-init to talk to
    forged = ("import socket, os\n"
              "a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)\n"
              "os.set_inheritable(b.fileno(), True)\n"
              "os.execv('/.x', ['forged', 'sbox-outside-forged'])\n")
    res = c.call("command.exec", {"session": sid, "argv": [
        "python3", "-c", forged]})
    assert res["exit_code"] == 126, (res, out(res, "stderr"))
    pend = c.call("approval.list", {})["approvals"]
    assert pend == [], pend
    assert c.call("audit.list", {"session": sid})["approvals"] == []


def test_started_from_an_open_file_is_refused(ctx):
    """fexecve has no path sbox can redirect: refused and reported."""
    d = daemon(ctx)
    c, sid, proj, host = setup(ctx, d)
    approver(d)
    code = ("import os\n"
            "fd = os.open('/usr/bin/touch', os.O_RDONLY)\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    try:\n"
            "        os.execve(fd, ['touch', '/tmp/nope-1'], {})\n"
            "    except OSError as e:\n"
            "        os.write(1, b'refused %d\\n' % e.errno); os._exit(0)\n"
            "os.waitpid(pid, 0)\n"
            "print('exists', os.path.exists('/tmp/nope-1'))\n")
    res = c.call("command.exec", {"session": sid, "argv": ["python3", "-c",
                                                           code]})
    assert out(res) == "refused 13\nexists False\n", (res, out(res),
                                                       out(res, "stderr"))
    files = [f for f in res["blocked"]["files"] if f["op"] == "exec"]
    assert files and files[0]["rule"] == "exclude", res["blocked"]


def test_program_gone_withdraws_the_request(ctx):
    """The command that started the program ends (its timeout) while the
    request waits: the request is withdrawn, nothing runs outside later."""
    d = daemon(ctx)
    c, sid, proj, host = setup(ctx, d)
    a = approver(d)
    marker, line = inner(host, "m6")
    rid = c.send("command.exec", {"session": sid, "timeout": 2,
                                  "argv": ["sh", "-c", "sh -c '%s'" % line]})
    req = next_request(a)
    res = c.result(c.wait_reply(rid))
    assert res["timed_out"] is True, res
    dec = a.wait_notification(
        "events.event", lambda p: p["topic"] == "approval.decided" and
        p["data"]["approval"] == req["approval"], 15)["data"]
    assert dec["decision"] == "deny" and "cancelled" in dec["decided_by"], dec
    e = a.error("approval.decide", {"approval": req["approval"],
                                    "decision": "allow_once"})
    assert "no longer pending" in e.message, e
    assert not os.path.exists(marker)


# Issue 21, item 1: what runs outside is the file the kernel was asked to
# run, never a name looked up again from argv[0].

EVIL = "#!/bin/sh\necho evil-ran >> %s\n"


def make_daemon(ctx):
    if shutil.which("make") is None:
        raise Skip("no make on the host")
    if os.path.basename(os.path.normpath(sboxtest.BIN)) == "bin-san":
        raise Skip("the exclusion shim of a sanitizer build cannot run "
                   "inside a sandbox")
    return ctx.daemon({"sandbox": {"profiles": {"ex": {
        "extends": "workspace", "exclude": ["make *"]}}}})


def write_evil(proj, host, name="evil.sh"):
    marker = os.path.join(host, "evil-ran")
    path = os.path.join(proj, name)
    with open(path, "w") as f:
        f.write(EVIL % marker)
    os.chmod(path, 0o755)
    return marker


def test_argv0_never_picks_the_program(ctx):
    """execve("/usr/bin/make", ["./evil.sh", "all"]) with exclude "make *":
    the host runs /usr/bin/make (argv[0] only shown), never ./evil.sh."""
    d = make_daemon(ctx)
    c, sid, proj, host = setup(ctx, d)
    a = approver(d)
    marker = write_evil(proj, host)
    make = os.path.realpath(shutil.which("make"))
    code = ("import os\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    os.execve(%r, ['./evil.sh', 'all'], dict(os.environ))\n"
            "_, st = os.waitpid(pid, 0)\n"
            "print('status', os.waitstatus_to_exitcode(st))\n") % make
    rid = c.send("command.exec", {"session": sid, "argv": ["python3", "-c",
                                                           code]})
    req = next_request(a)
    assert req["program"] == make, req
    assert req["argv"] == ["./evil.sh", "all"], req
    assert make in req["reason"], req
    a.call("approval.decide", {"approval": req["approval"],
                               "decision": "allow_once"})
    res = c.result(c.wait_reply(rid))
    # make ran (no makefile: it fails), the script did not
    assert "status 2" in out(res), (out(res), out(res, "stderr"))
    assert not os.path.exists(marker), "the sandbox's script ran outside"
    rec = [r for r in c.call("audit.list", {"session": sid})["approvals"]
           if r["approval"] == req["approval"]][0]
    assert rec["program"] == make and rec["argv"] == ["./evil.sh", "all"]


def test_relative_names_and_written_programs(ctx):
    """A relative name is the file in the caller's folder; a program the
    sandbox wrote (here named make) is refused at once, with the reason,
    and never runs outside; a relative name of a host program is that
    host program."""
    d = make_daemon(ctx)
    c, sid, proj, host = setup(ctx, d)
    a = approver(d)
    marker = write_evil(proj, host, "make")
    res = c.call("command.exec", {"session": sid, "argv": [
        "sh", "-c", "./make all; echo status=$?"]})
    assert "status=126" in out(res), (out(res), out(res, "stderr"))
    err = out(res, "stderr")
    assert "may never run outside" in err, err
    assert "folder the sandbox can write" in err, err
    assert not os.path.exists(marker)
    dec = a.wait_notification("events.event", lambda p: p["topic"] ==
                              "approval.decided", 10)["data"]
    assert dec["program"] == os.path.join(os.path.realpath(proj), "make")
    assert dec["decision"] == "deny", dec
    assert dec["decided_by"].startswith("sboxd: unsafe"), dec
    files = [f for f in res["blocked"]["files"] if f["op"] == "exec"]
    assert files and files[0]["rule"] == "exclude", res["blocked"]
    # a relative name from /usr: the host's make
    make = os.path.realpath(shutil.which("make"))
    rel = os.path.relpath(make, "/usr")
    rid = c.send("command.exec", {"session": sid, "argv": [
        "sh", "-c", "cd /usr && exec %s --version" % rel]})
    req = next_request(a)
    assert req["program"] == make, req
    a.call("approval.decide", {"approval": req["approval"],
                               "decision": "deny"})
    c.result(c.wait_reply(rid))


def test_symlink_swapped_during_the_wait(ctx):
    """The program reached through a symlink of the project is the file it
    led to when the kernel was asked; swapping the link while the request
    waits changes nothing."""
    d = make_daemon(ctx)
    c, sid, proj, host = setup(ctx, d)
    a = approver(d)
    marker = write_evil(proj, host)
    make = os.path.realpath(shutil.which("make"))
    os.symlink(make, os.path.join(proj, "mk"))
    rid = c.send("command.exec", {"session": sid, "argv": [
        "python3", "-c", "import os; os.execv('./mk', ['make', '--version'])"]})
    req = next_request(a)
    assert req["program"] == make, req
    # inside, while the request waits: mk now leads to the script
    r = c.call("command.exec", {"session": sid, "argv": [
        "sh", "-c", "ln -sfn evil.sh mk && readlink mk"]})
    assert out(r) == "evil.sh\n", r
    a.call("approval.decide", {"approval": req["approval"],
                               "decision": "allow_once"})
    res = c.result(c.wait_reply(rid))
    assert "GNU Make" in out(res) or res["exit_code"] == 0, res
    assert not os.path.exists(marker), "the swapped-in script ran outside"


def test_flood_from_processes_and_child_sessions(ctx):
    """Many processes inside (each its own command and channel), and a
    child session made inside, ask to run outside: five wait (the burst),
    the rest are refused at once with sbox.RateLimited (exit 77 inside);
    the store holds only the rows of the five."""
    d = ctx.daemon({"sandbox": {"profiles": {"ex": {
        "extends": "workspace"}}}})
    c, sid, proj, host = setup(ctx, d)
    shutil.copy(sboxtest.sbox_for_sandbox(), os.path.join(proj, "sbox"))
    a = approver(d)
    k = d.client()

    def ask(session, tag, via=None):
        return (via or k).send("command.exec", {
            "session": session, "channel": True, "argv": [
                "./sbox", "session", "outside", session, "--reason",
                "flood", "--", "true", tag]})
    waiting = [ask(sid, str(i)) for i in range(5)]
    wait_for(lambda: len(c.call("approval.list", {})["approvals"]) == 5, 30,
             what="five requests waiting")
    for i in range(7):
        r = c.result(c.wait_reply(ask(sid, "more%d" % i, c)))
        assert r["exit_code"] == 77, r
        assert "too many requests" in out(r, "stderr"), out(r, "stderr")
    # a child session made inside counts against its parent's budget
    r = c.call("command.exec", {"session": sid, "channel": True, "argv": [
        "./sbox", "session", "create", "--project", os.path.realpath(proj),
        "--sandbox", "strict"]})
    child = out(r).strip()
    assert r["exit_code"] == 0 and child, (r, out(r, "stderr"))
    r = c.result(c.wait_reply(ask(child, "child", c)))
    assert r["exit_code"] == 77, (r, out(r, "stderr"))
    assert "too many requests" in out(r, "stderr"), out(r, "stderr")
    pend = c.call("approval.list", {})["approvals"]
    assert len(pend) == 5, pend
    for p in pend:
        a.call("approval.decide", {"approval": p["approval"],
                                   "decision": "deny"})
    for rid in waiting:
        assert k.result(k.wait_reply(rid))["exit_code"] == 77
    rows = c.call("audit.list", {})["approvals"]
    assert len(rows) == 5, rows
    assert all(r["decision"] == "deny" for r in rows), rows


FLIP = r"""
import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
A = b"%s"
B = b"./evil.sh".ljust(len(A), b"\0")
buf = ctypes.create_string_buffer(A, len(A) + 8)

def flip():
    while True:
        ctypes.memmove(buf, B, len(A))
        ctypes.memmove(buf, A, len(A))

for i in range(8):
    pid = os.fork()
    if pid == 0:
        threading.Thread(target=flip, daemon=True).start()
        argv = (ctypes.c_char_p * 3)(b"make", b"--version", None)
        envp = (ctypes.c_char_p * 1)(None)
        libc.execve(buf, argv, envp)
        os._exit(99)
    os.waitpid(pid, 0)
print("done")
open("flip-done", "w").close()
"""


def test_second_thread_rewriting_the_path(ctx):
    """A second thread rewrites the program's path in memory while the
    execve is decided: every request names the file sbox-init opened
    (the host's make, or the sandbox's script, then refused as written by
    the sandbox); the script never runs outside."""
    d = make_daemon(ctx)
    c, sid, proj, host = setup(ctx, d)
    marker = write_evil(proj, host)
    make = os.path.realpath(shutil.which("make"))
    a = approver(d)
    rid = c.send("command.exec", {"session": sid, "timeout": 120, "argv": [
        "python3", "-c", FLIP % make]})
    # answer every request (allow: the host's make runs) until the
    # command inside says it is done
    while not os.path.exists(os.path.join(proj, "flip-done")):
        try:
            n = a.wait_notification("events.event", lambda p: p["topic"] ==
                                    "approval.requested", 1)
        except AssertionError:
            continue
        assert n["data"]["program"] == make, n
        a.call("approval.decide", {"approval": n["data"]["approval"],
                                   "decision": "allow_once"})
    res = c.result(c.wait_reply(rid))
    assert "done" in out(res), (out(res), out(res, "stderr"))
    assert not os.path.exists(marker), "the script ran outside"
    for r in c.call("audit.list", {"session": sid})["approvals"]:
        assert r["program"] in (make, os.path.join(os.path.realpath(proj),
                                                   "evil.sh")), r
        if r["program"] != make:
            assert r["decision"] == "deny" and "unsafe" in r["decided_by"]
