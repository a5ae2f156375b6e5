"""End-to-end tests of commands on a terminal of their sandbox (issue 15,
"Terminals"): `sbox session exec` at a terminal (or with -t) and `sbox
session shell` run the command on a pseudo-terminal that sbox-init makes in
the container's own devpts; the CLI's terminal is raw meanwhile, its window
size follows (command.resize), and Ctrl-C, Ctrl-Z and Ctrl-\\ are signals
for the foreground process group inside, not for sbox. Each test gives the
CLI a real terminal (a pty of the test, the CLI's controlling terminal, so
that the kernel sends it SIGWINCH). The protocol tests drive command.exec
with tty in pipes mode and command.resize. They pass as root and as an
unprivileged user."""
import base64
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time

import sboxtest
from sboxtest import RpcError, Skip
from sandboxlib import Shared, create

SH = Shared("tty", lambda d: {})


def teardown_module():
    SH.stop()


def failure_log():
    return SH.log()


def session():
    """The module's session (workspace) on a project of its own."""
    d = SH.get()
    proj = os.path.join(d.root, "proj")
    os.makedirs(proj, exist_ok=True)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": d.home}
    return d, SH.session("s", proj, env=env)


def set_size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class Term:
    """sbox on a pseudo-terminal of the test, which is its controlling
    terminal (as in a terminal emulator)."""

    def __init__(self, d, args, rows=33, cols=101, env=None):
        e = d.env()
        e["TERM"] = "xterm"
        if env:
            e.update(env)
        self.master, slave = pty.openpty()
        set_size(slave, rows, cols)
        self.host_tty = os.fstat(slave)
        self.slave_name = os.ttyname(slave)
        self.cooked = termios.tcgetattr(slave)

        def own_terminal():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.p = subprocess.Popen(
            [os.path.join(sboxtest.BIN, "sbox")] + list(args), stdin=slave,
            stdout=slave, stderr=slave, env=e, preexec_fn=own_terminal)
        os.close(slave)
        self.buf = b""
        self.pos = 0
        self.args = args

    def text(self):
        return self.buf.decode(errors="replace")

    def read_some(self, end):
        r, _, _ = select.select([self.master], [], [],
                                max(0.0, end - time.time()))
        if not r:
            return None
        try:
            chunk = os.read(self.master, 65536)
        except OSError:
            chunk = b""
        self.buf += chunk
        return chunk

    def expect(self, pattern, timeout=30):
        """Wait until pattern (a regex of bytes) shows after what earlier
        expects matched; returns the match."""
        rx = re.compile(pattern)
        end = time.time() + timeout
        while True:
            m = rx.search(self.buf, self.pos)
            if m:
                self.pos = m.end()
                return m
            chunk = self.read_some(end)
            if chunk is None:
                raise AssertionError("%r did not show within %ss; the "
                                     "terminal shows:\n%s" % (
                                         pattern, timeout, self.text()))
            if not chunk:
                raise AssertionError("sbox ended before %r showed; the "
                                     "terminal shows:\n%s" % (
                                         pattern, self.text()))

    def send(self, data):
        os.write(self.master, data)

    def resize(self, rows, cols):
        """As a terminal emulator does: the kernel sends SIGWINCH to sbox."""
        set_size(self.master, rows, cols)

    def finish(self, timeout=30):
        """Read to the end; sbox's exit status."""
        end = time.time() + timeout
        while True:
            chunk = self.read_some(end)
            if chunk is None:
                self.p.kill()
                raise AssertionError("sbox %s did not end; the terminal "
                                     "shows:\n%s" % (self.args, self.text()))
            if not chunk:
                break
        try:
            return self.p.wait(timeout)
        finally:
            os.close(self.master)

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        try:
            os.close(self.master)
        except OSError:
            pass


def run_term(d, args, steps=(), timeout=30, **kw):
    """Run sbox on a terminal; steps: (regex to wait for, bytes to type or a
    function of the Term). Returns (exit status, Term)."""
    t = Term(d, args, **kw)
    try:
        for want, then in steps:
            t.expect(want, timeout)
            if callable(then):
                then(t)
            elif then:
                t.send(then)
        rc = t.finish(timeout)
    finally:
        t.close()
    return rc, t


def test_tty_is_the_sandboxes_own(ctx):
    """At a terminal, session exec runs the command on a pty of the
    container's devpts: tty names /dev/pts/N, stdin is a terminal, its size
    is ours, /dev/tty opens (through the file guard: the caller's terminal),
    no descriptor is the host's terminal, and the exit status is the
    command's."""
    d, sid = session()
    script = ("tty; test -t 0 && echo stdin-is-a-tty; stty size; "
              "echo via-dev-tty > /dev/tty; "
              "for f in /proc/self/fd/*; do readlink $f; done | sort -u | "
              "sed 's/^/fd: /'; stat -L -c 'dev: %d' /proc/self/fd/0; "
              "python3 -c \"import fcntl, termios\n"
              "try: fcntl.ioctl(0, termios.TIOCSTI, b'x')\n"
              "except OSError as e: print('tiocsti', e.errno)\"; "
              "exit 7")
    rc, t = run_term(d, ["session", "exec", sid, "--", "sh", "-c", script])
    out = t.text().replace("\r\n", "\n")
    assert rc == 7, out
    m = re.search(r"^(/dev/pts/\d+)$", out, re.M)
    assert m, out
    inner = m.group(1)
    assert "stdin-is-a-tty" in out, out
    assert "\n33 101\n" in out, out
    assert "via-dev-tty" in out, out
    fds = re.findall(r"^fd: (.*)$", out, re.M)
    # stdin, stdout, stderr: the sandbox's pty; nothing else is a terminal
    assert inner in fds, out
    assert not [f for f in fds if f.startswith("/dev/pts/") and f != inner], \
        out
    # that pty lives on the container's devpts, not on the host's
    dev = re.search(r"^dev: (\d+)$", out, re.M)
    assert dev and int(dev.group(1)) != t.host_tty.st_dev, (out,
                                                           t.host_tty)
    # typing into the terminal's input stays refused (seccomp)
    assert re.search(r"^tiocsti 1$", out, re.M), out


def test_tty_resize_follows_the_window(ctx):
    """A change of our window size reaches the command: SIGWINCH inside and
    the new size for stty."""
    d, sid = session()
    prog = ("import os, signal, sys\n"
            "signal.signal(signal.SIGWINCH, lambda *a: os.write(1, b'winch "
            "%d %d\\n' % os.get_terminal_size(0)[::-1]))\n"
            "print('re' + 'ady', flush=True)\n"
            "sys.stdin.readline()\n")
    rc, t = run_term(d, [
        "session", "exec", sid, "--", "sh", "-c",
        'stty size; python3 -c "$0"; stty size', prog], steps=[
        (rb"33 101\r?\n", None),
        (rb"ready", lambda t: t.resize(40, 120)),
        (rb"winch 40 120", b"\r"),
        (rb"\n40 120\r?\n", None)])
    assert rc == 0, t.text()


def test_tty_repl_gets_ctrl_c(ctx):
    """Ctrl-C is a KeyboardInterrupt for a Python REPL inside, which goes on
    (the command is not killed); exit() ends it with its code."""
    d, sid = session()
    rc, t = run_term(d, ["session", "exec", sid, "--", "python3", "-q"], steps=[
        # short sleeps in a loop: a SIGINT that lands between Python's
        # last signal check and the start of one long sleep would wait for
        # its end (a CPython race, not the terminal's)
        (rb">>> ", b"import time; print('sl' + 'eeping', flush=True); "
                   b"[time.sleep(0.1) for _ in range(600)]\r"),
        (rb"sleeping", b"\x03"),
        (rb"KeyboardInterrupt", None),
        (rb">>> ", b"print(6 * 7)\r"),
        (rb"42", None),
        (rb">>> ", b"exit(5)\r")])
    assert rc == 5, t.text()


def bash(d, sid):
    """Skip unless the sandbox has bash."""
    c = SH.client()
    r = c.call("command.exec", {"session": sid, "argv": [
        "sh", "-c", "command -v bash"], "stdio": "pipes"})
    if r.get("exit_code") != 0:
        raise Skip("no bash in the sandbox")


def test_tty_bash_job_control(ctx):
    """bash has job control: Ctrl-Z stops the foreground job, jobs lists it,
    kill %1 ends it; Ctrl-\\ sends SIGQUIT (status 131); exit's code is
    sbox's."""
    d, sid = session()
    bash(d, sid)
    started = b"sh -c 'echo job''-started; exec sleep 60'\r"
    rc, t = run_term(d, ["session", "exec", sid, "--env", "PS1=P> ", "--",
                         "bash", "--norc", "--noprofile", "-i"], steps=[
        (rb"P> ", started),
        (rb"job-started", b"\x1a"),
        (rb"Stopped", None),
        (rb"P> ", b"jobs\r"),
        (rb"\[1\]\+\s+Stopped\s+sh -c", None),
        (rb"P> ", b"kill %1\r"),
        (rb"P> ", b"jobs; echo jobs-" b"done\r"),
        (rb"jobs-done", None),
        (rb"P> ", started),
        (rb"job-started", b"\x1c"),
        (rb"P> ", b"echo status=$?\r"),
        (rb"status=131", None),
        (rb"P> ", b"exit 3\r")])
    out = t.text()
    assert rc == 3, out
    assert "no job control" not in out, out
    assert "Terminated" in out, out


def test_tty_session_shell(ctx):
    """sbox session shell: an interactive shell on a terminal of the
    sandbox; its exit code is sbox's. Without a terminal it says so."""
    d, sid = session()
    rc, t = run_term(d, ["session", "shell", sid], steps=[
        (rb"[$#] $", b"tty; echo $((6 * 7))\r"),
        (rb"/dev/pts/\d+\r\n42", b"exit 4\r")])
    assert rc == 4, t.text()
    r = d.cli("session", "shell", sid, input=b"")
    assert r.returncode == 2, r
    assert b"needs a terminal" in r.stderr, r.stderr


def test_tty_flag_needs_a_terminal(ctx):
    """-t through pipes is an error that says why; --no-tty at a terminal
    has no terminal of the sandbox, and never ours: pipes that sbox
    relays (issue 22)."""
    d, sid = session()
    r = d.cli("session", "exec", sid, "-t", "--", "true", input=b"")
    assert r.returncode != 0, r
    assert b"-t needs stdin and stdout to be terminals" in r.stderr, r.stderr
    rc, t = run_term(d, ["session", "exec", sid, "--no-tty", "--", "sh", "-c",
                         "readlink /proc/self/fd/0; exit 0"])
    out = t.text()
    assert rc == 0, out
    # the command's stdin is a pipe, not our terminal
    assert re.search(r"^pipe:\[\d+\]\r?$", out, re.M), out
    assert "/dev/pts" not in out, out


def test_tty_terminal_restored_after_a_signal(ctx):
    """sbox stopped by a signal from outside (SIGTERM) while the command
    runs on a terminal: the command is stopped and our terminal is put
    back as it was (not left raw)."""
    d, sid = session()
    t = Term(d, ["session", "exec", sid, "--", "sh", "-c",
                 "echo sl''eeping; exec sleep 60"])
    try:
        t.expect(rb"sleeping")
        slave = os.open(t.slave_name, os.O_RDWR | os.O_NOCTTY)
        try:
            raw = termios.tcgetattr(slave)
            assert not raw[3] & termios.ICANON, raw  # raw while it runs
            t.p.send_signal(signal.SIGTERM)
            rc = t.p.wait(30)
            back = termios.tcgetattr(slave)
        finally:
            os.close(slave)
    finally:
        t.close()
    assert rc != 0, (rc, t.text())
    assert back[3] & termios.ICANON and back[3] & termios.ECHO, back
    assert back == t.cooked, (back, t.cooked)


def b64(s):
    return base64.b64encode(s).decode()


def test_tty_protocol_pipes_and_resize(ctx):
    """command.exec with tty in pipes mode: command.started gives the id,
    command.write types on the terminal, command.output has stream "tty",
    command.resize changes the size; sizes out of range, a terminal with
    stdio none, eof on a terminal and resizing a command without one are
    refused with clear errors."""
    d, sid = session()
    c = d.client()
    call = c.send("command.exec", {
        "session": sid, "stdio": "pipes", "tty": {"rows": 20, "cols": 70},
        "argv": ["sh", "-c", "stty size; read a; stty size; read b; "
                 "echo got $a $b; exit 9"]})
    st = c.wait_notification("command.started")
    cid = st["command"]
    assert st["tty"] == {"rows": 20, "cols": 70}, st
    c.wait_notification("command.output", lambda p: p["command"] == cid and
                        b"20 70" in base64.b64decode(p["data"]))
    for bad, field in (({"rows": 0, "cols": 10}, "rows"),
                       ({"rows": 10, "cols": 5000}, "cols"),
                       ({"rows": -3, "cols": 10}, "rows")):
        e = c.error("command.resize", dict(bad, command=cid))
        assert e.name == "sbox.InvalidParams" and e.field == field, e
        assert "from 1 to 4096" in e.message, e
    e = c.error("command.write", {"command": cid, "eof": True})
    assert e.name == "sbox.InvalidParams" and "terminal" in e.message, e
    r = c.call("command.resize", {"command": cid, "rows": 50, "cols": 132})
    assert r == {"command": cid, "rows": 50, "cols": 132}, r
    c.call("command.write", {"command": cid, "data": b64(b"one\r")})
    c.wait_notification("command.output", lambda p: p["command"] == cid and
                        b"50 132" in base64.b64decode(p["data"]))
    c.call("command.write", {"command": cid, "data": b64(b"two\r")})
    res = c.result(c.wait_reply(call))
    assert res["exit_code"] == 9, res
    assert res["tty"] == {"rows": 50, "cols": 132}, res
    out = base64.b64decode(res["stdout"])
    assert b"got one two\r\n" in out, out
    outputs = [n["params"] for n in c.notifications
               if n["method"] == "command.output"]
    assert all(p["stream"] == "tty" for p in outputs), outputs
    # what is refused
    for tty, what in (({"rows": 0, "cols": 5}, "tty.rows"),
                      ({"rows": 5, "cols": 4097}, "tty.cols"),
                      ({"rows": 5, "cols": 5, "x": 1}, "unknown member")):
        e = c.error("command.exec", {"session": sid, "argv": ["true"],
                                     "tty": tty})
        assert e.name == "sbox.InvalidParams" and e.field == "tty", e
        assert what in e.message, e
    e = c.error("command.exec", {"session": sid, "argv": ["true"],
                                 "stdio": "none", "tty": {"rows": 5,
                                                          "cols": 5}})
    assert e.field == "tty" and "stdio" in e.message, e
    r = c.call("command.exec", {"session": sid, "argv": ["true"],
                                "detach": True, "stdio": "none"})
    e = c.error("command.resize", {"command": r["command"], "rows": 5,
                                   "cols": 5})
    assert e.name == "sbox.InvalidParams", e
    c.close()


def test_tty_refused_without_sandbox(ctx):
    """A session that is not sandboxed has no terminal of its own: tty is
    refused, and the CLI at a terminal runs the command the old way."""
    d = ctx.daemon()
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    c = d.client()
    sid = c.call("session.create", {"project": proj, "sandbox": "none"})[
        "session"]
    e = c.error("command.exec", {"session": sid, "argv": ["true"],
                                 "tty": {"rows": 5, "cols": 5}})
    assert e.field == "tty" and "not sandboxed" in e.message, e
    rc, t = run_term(d, ["session", "exec", sid, "--", "sh", "-c", "exit 6"])
    assert rc == 6, t.text()


def test_tty_protocol_fds_relay(ctx):
    """command.exec with tty and stdio fds that are pipes: sboxd reads the
    client's stdin into the terminal and writes what the command shows to
    the client's stdout; the command sees only the sandbox's pty. A regular
    file is refused (sboxd cannot watch it)."""
    d, sid = session()
    c = d.client()
    rd, wr = os.pipe()
    ord_, owr = os.pipe()
    os.write(wr, b"typed\r")
    try:
        call = c.send("command.exec", {
            "session": sid, "stdio": "fds", "tty": {"rows": 12, "cols": 34},
            "argv": ["sh", "-c", "read x; echo got=$x; stty size; tty; "
                     "exit 2"]}, fds=[rd, owr, owr])
        os.close(owr)
        owr = -1
        res = c.result(c.wait_reply(call))
        text = b""
        while True:
            chunk = os.read(ord_, 65536)
            if not chunk:
                break
            text += chunk
    finally:
        for fd in (rd, wr, ord_, owr):
            if fd >= 0:
                os.close(fd)
    assert res["exit_code"] == 2 and res["stdio"] == "fds", res
    assert b"got=typed\r\n12 34\r\n/dev/pts/" in text, text
    path = os.path.join(ctx.tmp, "file")
    with open(path, "wb") as f:
        f.write(b"x")
    f = os.open(path, os.O_RDWR)
    try:
        call = c.send("command.exec", {
            "session": sid, "stdio": "fds", "tty": {"rows": 5, "cols": 5},
            "argv": ["true"]}, fds=[f, f, f])
        e = None
        try:
            c.result(c.wait_reply(call))
        except RpcError as err:
            e = err
    finally:
        os.close(f)
    assert e is not None and e.field == "stdio", e
    assert "terminals or pipes" in e.message, e
    c.close()
