"""Escape tests of issue 22 items 1, 2 and 6 (part): a sandbox cannot reach
the person's terminal.

1. The sandbox never holds a descriptor of the person's terminal: `sbox
   run`, `session exec --no-tty`, `session send` and `exec </dev/null` on a
   terminal the test owns (its pty, the CLI's controlling terminal, as in a
   terminal emulator) give the command pipes that sbox relays. Inside, the
   attack tries TIOCSETD (N_NULL kills the person's shell), TCSETS,
   TIOCEXCL and TIOCSTI on fds 0, 1, 2 and on /proc/self/fd/N opened again;
   afterwards the test's pty still has line discipline N_TTY, the same
   termios and no exclusive mode, and `ls -l /proc/self/fd/` inside shows
   pipes. sboxd refuses a terminal passed as stdio "fds" by any client.
2. What the CLI prints that a sandbox or client chose (titles, project
   folders, reasons) shows escape sequences, bidi and zero-width
   characters escaped; --json keeps them exact. The relay of `-t` can drop
   OSC 52 and title sequences (--no-osc), split across reads too.
6. /dev/tty opens inside with -t, for writing without O_CREAT as well.

They pass as root and as an unprivileged user."""
import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time

import sboxtest
from sboxtest import RpcError
from sandboxlib import Shared

SH = Shared("escterm", lambda d: {})

TIOCGEXCL = 0x80045440
N_TTY = 0

# The attack: every terminal ioctl that changes the other side, on fds 0-2
# and on each opened again through /proc/self/fd.
ATTACK = r'''
import fcntl, os, struct, termios
fds = [0, 1, 2]
for n in (0, 1, 2):
    for fl in (os.O_RDWR, os.O_WRONLY, os.O_RDONLY):
        try:
            fds.append(os.open("/proc/self/fd/%d" % n, fl | os.O_NOCTTY))
            break
        except OSError as e:
            print("REOPEN", n, fl, e.errno, flush=True)
raw = struct.pack("IIII", 0, 0, 0, 0) + bytes(20)
for fd in fds:
    for name, req, arg in (("TIOCSETD", termios.TIOCSETD,
                            struct.pack("i", 27)),
                           ("TCSETS", termios.TCSETS, raw),
                           ("TIOCEXCL", termios.TIOCEXCL, 0),
                           ("TIOCSTI", termios.TIOCSTI, b"x")):
        try:
            fcntl.ioctl(fd, req, arg)
            print("IOCTL-OK", fd, name, flush=True)
        except OSError as e:
            print("IOCTL", fd, name, e.errno, flush=True)
'''
SCRIPT = ("ls -l /proc/self/fd/ | sed -n 's/.* \\([012]\\) -> /FD \\1 /p'; "
          "python3 -c \"$1\"; echo attack-done")


def teardown_module():
    SH.stop()


def failure_log():
    return SH.log()


def session():
    d = SH.get()
    proj = os.path.join(d.root, "proj")
    os.makedirs(proj, exist_ok=True)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": d.home}
    return d, SH.session("s", proj, env=env)


class Pty:
    """A pty of the test: sbox runs on it (its controlling terminal);
    stdin may be another file."""

    def __init__(self, d, args, stdin=None, typed=b"", env=None):
        e = d.env()
        e["TERM"] = "xterm"
        e.update(env or {})
        self.master, self.slave = pty.openpty()
        self.name = os.ttyname(self.slave)
        self.before = termios.tcgetattr(self.slave)

        def own_terminal():
            os.setsid()
            fcntl.ioctl(1, termios.TIOCSCTTY, 0)

        self.p = subprocess.Popen(
            [os.path.join(sboxtest.BIN, "sbox")] + list(args),
            stdin=self.slave if stdin is None else stdin, stdout=self.slave,
            stderr=self.slave, env=e, preexec_fn=own_terminal)
        if typed:
            os.write(self.master, typed)
        self.buf = b""

    def finish(self, timeout=60):
        """Read to the end; sbox's exit status and what it showed (the test
        holds the slave: its end is sbox's exit, then what is left)."""
        end = time.time() + timeout
        while True:
            done = self.p.poll() is not None
            r, _, _ = select.select([self.master], [], [], 0.1)
            if r:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                self.buf += chunk
                if chunk:
                    continue
            if done:
                break
            if time.time() > end:
                self.p.kill()
                raise AssertionError("sbox did not end: %s" % self.text())
        return self.p.wait(timeout)

    def text(self):
        return self.buf.decode(errors="replace").replace("\r\n", "\n")

    def expect(self, want, timeout=30):
        """Wait until the bytes want show (after what was seen so far)."""
        end = time.time() + timeout
        while want not in self.buf:
            r, _, _ = select.select([self.master], [], [], max(
                0.0, end - time.time()))
            if not r:
                raise AssertionError("%r did not show: %r" % (want, self.buf))
            try:
                self.buf += os.read(self.master, 65536)
            except OSError:
                raise AssertionError("sbox ended before %r: %r" % (
                    want, self.buf))

    def check_unchanged(self):
        """The pty is as the test left it: N_TTY, same termios, not
        exclusive, and it opens again."""
        ldisc = struct.unpack("i", fcntl.ioctl(
            self.slave, termios.TIOCGETD, struct.pack("i", -1)))[0]
        assert ldisc == N_TTY, (ldisc, self.text())
        assert termios.tcgetattr(self.slave) == self.before, self.text()
        excl = struct.unpack("i", fcntl.ioctl(
            self.slave, TIOCGEXCL, struct.pack("i", -1)))[0]
        assert excl == 0, self.text()
        fd = os.open(self.name, os.O_RDWR | os.O_NOCTTY)
        os.close(fd)

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


def attack(d, args, stdin=None, typed=b"", want_stdin="pipe:"):
    """Run the attack through sbox on a pty of the test; check the pty and
    what the command held."""
    t = Pty(d, args + ["sh", "-c", SCRIPT, "sh", ATTACK], stdin=stdin,
            typed=typed)
    try:
        rc = t.finish()
        out = t.text()
        t.check_unchanged()
    finally:
        t.close()
    assert rc == 0 and "attack-done" in out, (args, rc, out)
    fds = dict(re.findall(r"^FD (\d) (.*)$", out, re.M))
    assert fds.get("0", "").startswith(want_stdin), (args, out)
    assert fds.get("1", "").startswith("pipe:"), (args, out)
    assert fds.get("2", "").startswith("pipe:"), (args, out)
    assert "/dev/pts" not in out.split("attack-done")[0].replace(
        "IOCTL", ""), (args, out)
    # nothing went through; each refused (ENOTTY on a pipe, EPERM by the
    # filter, EBADF for /dev/null opened read-only)
    assert "IOCTL-OK" not in out, (args, out)
    assert len(re.findall(r"^IOCTL \d+ \w+ \d+$", out, re.M)) >= 12, out
    return out


def test_escape_terminal_run_gets_pipes(ctx):
    """sbox run at a terminal: the one-shot sandbox holds pipes."""
    d, _ = session()
    proj = os.path.join(d.root, "proj")
    attack(d, ["run", "--project", proj, "--no-ask", "--"])


def test_escape_terminal_exec_no_tty_gets_pipes(ctx):
    """sbox session exec --no-tty at a terminal: pipes."""
    d, sid = session()
    attack(d, ["session", "exec", sid, "--no-tty", "--no-ask", "--"])


def test_escape_terminal_exec_devnull_stdin(ctx):
    """exec </dev/null with stdout and stderr still the terminal: stdin is
    /dev/null as it was, stdout and stderr pipes."""
    d, sid = session()
    with open(os.devnull, "rb") as null:
        attack(d, ["session", "exec", sid, "--no-ask", "--"],
               stdin=null, want_stdin="/dev/null")


def test_escape_terminal_send_gets_pipes(ctx):
    """sbox session send (the script from stdin, typed on the terminal):
    the child session's command holds pipes."""
    d, sid = session()
    script = ("set -- %s\n%s\n" % (shlex_quote(ATTACK), SCRIPT)).encode()
    path = os.path.join(d.root, "proj", "script.sh")
    t = Pty(d, ["session", "send", sid, "--sandbox", "workspace", "--stdin",
                "--no-ask"])
    try:
        # the terminal is canonical: type the script, then ^D
        fcntl.ioctl(t.master, termios.TIOCSWINSZ,
                    struct.pack("HHHH", 24, 80, 0, 0))
        with open(path, "wb") as f:
            f.write(script)
        os.write(t.master, b". " + path.encode()
                 + b"\n\x04")
        rc = t.finish()
        out = t.text()
        t.check_unchanged()
    finally:
        t.close()
    assert rc == 0 and "attack-done" in out, (rc, out)
    fds = dict(re.findall(r"^FD (\d) (.*)$", out, re.M))
    assert fds.get("1", "").startswith("pipe:"), out
    assert fds.get("2", "").startswith("pipe:"), out
    assert "IOCTL-OK" not in out, out


def shlex_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def test_escape_terminal_relay_types_and_ends(ctx):
    """What the person types reaches the command through the relay, and ^D
    is its end of input; the exit status is the command's."""
    d, sid = session()
    t = Pty(d, ["session", "exec", sid, "--no-tty", "--", "sh", "-c",
                "cat; echo cat-ended; exit 4"], typed=b"typed line\n\x04")
    try:
        rc = t.finish()
        out = t.text()
        t.check_unchanged()
    finally:
        t.close()
    assert rc == 4, (rc, out)
    assert "typed line\ntyped line\ncat-ended" in out or \
        re.search(r"typed line\n(.*\n)?cat-ended", out), out


def test_escape_terminal_daemon_refuses_a_terminal(ctx):
    """Any client: sboxd refuses a terminal passed as stdio "fds" for a
    command inside a sandbox (a clear error naming the descriptor)."""
    d, sid = session()
    c = d.client()
    master, slave = pty.openpty()
    try:
        # the slave, and a terminal of another kind: the master side
        for fds, which in (([slave, slave, slave], "stdin"),
                           ([os.open(os.devnull, os.O_RDONLY), slave, slave],
                            "stdout"),
                           ([os.open(os.devnull, os.O_RDONLY), master,
                             master], "stdout")):
            call = c.send("command.exec", {
                "session": sid, "stdio": "fds", "argv": ["true"]}, fds=fds)
            try:
                c.result(c.wait_reply(call))
                raise AssertionError("a terminal was taken as %s" % which)
            except RpcError as e:
                assert e.name == "sbox.InvalidParams" and \
                    e.field == "stdio", e
                assert "the %s passed is a terminal" % which in e.message, e
            if fds[0] != slave:
                os.close(fds[0])
        # pipes and /dev/null still go as they are
        rd, wr = os.pipe()
        null = os.open(os.devnull, os.O_RDONLY)
        call = c.send("command.exec", {
            "session": sid, "stdio": "fds", "argv": ["sh", "-c",
                                                     "echo via-pipe"]},
            fds=[null, wr, wr])
        os.close(wr)
        res = c.result(c.wait_reply(call))
        assert res["exit_code"] == 0, res
        assert os.read(rd, 100) == b"via-pipe\n"
        os.close(rd)
        os.close(null)
    finally:
        os.close(master)
        os.close(slave)
        c.close()


def test_escape_terminal_dev_tty_opens_with_t(ctx):
    """With -t, /dev/tty opens inside for reading, for writing without
    O_CREAT and for both (it gave "Permission denied"), and is the
    sandbox's own pty."""
    d, sid = session()
    prog = ("import os\n"
            "for f in ('O_WRONLY', 'O_RDWR', 'O_RDONLY'):\n"
            "    fd = os.open('/dev/tty', getattr(os, f) | os.O_CLOEXEC)\n"
            "    print('opened', f, os.ttyname(fd), flush=True)\n"
            "    if f != 'O_RDONLY': os.write(fd, b'wrote-' + f.encode() + "
            "b'\\n')\n")
    t = Pty(d, ["session", "exec", sid, "-t", "--", "python3", "-c", prog])
    try:
        rc = t.finish()
        out = t.text()
    finally:
        t.close()
    assert rc == 0, (rc, out)
    for f in ("O_WRONLY", "O_RDWR", "O_RDONLY"):
        assert re.search(r"^opened %s /dev/(pts/\d+|tty)$" % f, out,
                         re.M), out
    assert "wrote-O_WRONLY" in out and "wrote-O_RDWR" in out, out
    assert "Permission denied" not in out, out


# Item 2: text a sandbox or a client chose, through every CLI command.
EVIL = ("T\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07\x1b[2J\u2028L\u2029P\u200bZ"
        "\ufeffB\u202eR\u2066I\x9bC\x1b\\")
RAW = [b"\x1b", b"\x07", "\u2028".encode(), "\u2029".encode(),
       "\u200b".encode(), "\ufeff".encode(), "\u202e".encode(),
       "\u2066".encode(), b"\xc2\x9b"]


def no_raw(what, data):
    """None of the terminal-driving bytes is in data; their escaped forms
    are."""
    for b in RAW:
        assert b not in data, (what, b, data)
    assert b"\\x1b]52;c;cHduZWQ=\\x07" in data, (what, data)


def evil_session():
    """A session whose title and project folder hold escape sequences,
    separators, zero-width and bidi characters."""
    d = SH.get()
    proj = os.path.join(d.root, "p\x1b]52;c;cHduZWQ=\x07\u202eq\u2028")
    os.makedirs(proj, exist_ok=True)
    if "evil" not in SH.sessions:
        SH.sessions["evil"] = SH.client().call("session.create", {
            "project": proj, "sandbox": "workspace", "title": EVIL})[
                "session"]
    return d, proj, SH.sessions["evil"]


def test_escape_terminal_text_session_commands(ctx):
    """session list, info and status show the title and folder escaped;
    --json keeps them exact."""
    d, proj, sid = evil_session()
    for args in (["session", "list"], ["session", "info", sid],
                 ["session", "status", sid]):
        r = d.cli(*args)
        assert r.returncode == 0, r
        if args[1] != "status":
            no_raw(args, r.stdout)
        else:
            for b in RAW:
                assert b not in r.stdout, (args, r.stdout)
    r = d.cli("session", "info", sid)
    assert b"\\u2028L\\u2029P\\u200bZ\\ufeffB\\u202eR\\u2066I\\u009bC" in \
        r.stdout, r.stdout
    r = d.cli("--json", "session", "info", sid)
    info = json.loads(r.stdout)
    assert info["title"] == EVIL, info
    assert info["project"] == os.path.realpath(proj), info
    r = d.cli("--json", "session", "list")
    titles = [s.get("project") for s in json.loads(r.stdout)["sessions"]]
    assert os.path.realpath(proj) in titles, titles


def test_escape_terminal_text_approvals_audit_log_events(ctx):
    """A run-outside request whose reason and argv hold escape sequences:
    sbox approvals, audit, session log and events show them escaped;
    --json keeps them exact."""
    d, proj, sid = evil_session()
    c = d.client()
    a = d.client()
    a.call("events.subscribe", {"topics": ["approval.requested",
                                           "approval.decided"]})
    rid = c.send("command.run_outside", {"session": sid, "argv": [
        "echo", EVIL], "reason": EVIL})
    req = a.wait_notification(
        "events.event", lambda p: p["topic"] == "approval.requested")[
            "data"]
    try:
        r = d.cli("approvals")
        assert r.returncode == 0, r
        no_raw("approvals", r.stdout)
        assert "Run outside the sandbox?" in r.stdout.decode(), r.stdout
        r = d.cli("--json", "approvals")
        pend = json.loads(r.stdout)["approvals"]
        assert [p["reason"] for p in pend] == [EVIL], pend
        assert pend[0]["argv"] == ["echo", EVIL], pend
    finally:
        a.call("approval.decide", {"approval": req["approval"],
                                   "decision": "deny", "client": EVIL})
        try:
            c.result(c.wait_reply(rid))
        except RpcError:
            pass
    for args in (["audit"], ["session", "log", sid]):
        r = d.cli(*args)
        assert r.returncode == 0, r
        no_raw(args, r.stdout)
    r = d.cli("--json", "audit")
    rec = [x for x in json.loads(r.stdout)["approvals"]
           if x["approval"] == req["approval"]]
    assert rec and rec[0]["reason"] == EVIL, rec
    # events: JSON lines, every character beyond ASCII escaped
    p = subprocess.Popen([os.path.join(sboxtest.BIN, "sbox"), "events",
                          "--since", "0", "approval.requested"],
                         stdout=subprocess.PIPE, env=d.env())
    try:
        buf = b""
        end = time.time() + 30
        while b"approval.requested" not in buf and time.time() < end:
            if select.select([p.stdout], [], [], 1)[0]:
                buf += os.read(p.stdout.fileno(), 65536)
        assert b"approval.requested" in buf, buf
        for b in RAW:
            assert b not in buf, ("events", b, buf)
        ev = [json.loads(line) for line in buf.splitlines()
              if b"approval.requested" in line]
        assert any(e["data"].get("reason") == EVIL for e in ev), ev
    finally:
        p.kill()
        p.wait()
    c.close()
    a.close()


# The -t relay without clipboard and title sequences, split across reads:
# each part comes only after the test typed a line, so sbox reads them
# apart.
OSC_PROG = ("import os, sys, termios\n"
            "t = termios.tcgetattr(0)\n"
            "t[3] &= ~termios.ECHO\n"   # the typed lines stay out of it
            "termios.tcsetattr(0, termios.TCSANOW, t)\n"
            "os.write(1, b'A\\x1b]5')\n"
            "sys.stdin.readline()\n"
            "os.write(1, b'2;c;cHduZWQ=\\x07B\\x1b]')\n"
            "sys.stdin.readline()\n"
            "os.write(1, b'2;title\\x1b\\\\C\\x1b[1mD\\xc2\\x9d52;c;eA==')\n"
            "sys.stdin.readline()\n"
            "os.write(1, b'\\xc2\\x9cE\\n')\n")


def osc_run(d, args):
    """Run the split sequences through sbox -t; what the terminal got."""
    t = Pty(d, args + ["--", "python3", "-c", OSC_PROG])
    try:
        for mark in (b"A", b"B", b"D"):
            t.expect(mark)
            os.write(t.master, b"\r")
        rc = t.finish()
    finally:
        t.close()
    assert rc == 0, (rc, t.buf)
    return t.buf


def test_escape_terminal_osc_dropped_across_reads(ctx):
    """By default (and with --drop-osc): OSC 52 (clipboard) and OSC 2
    (title), each split across reads, never reach our terminal; other
    sequences do. With --keep-osc the bytes pass as they are (as ssh
    does)."""
    d, sid = session()
    for flags in ([], ["--drop-osc"]):
        out = osc_run(d, ["session", "exec", sid, "-t"] + flags)
        for bad in (b"52;", b"cHduZWQ", b"title", b"eA==", b"\x1b]",
                    b"\xc2\x9d"):
            assert bad not in out, (bad, out)
        assert re.search(rb"A.*B.*C\x1b\[1mD.*E", out, re.S), out
    out = osc_run(d, ["session", "exec", sid, "-t", "--keep-osc"])
    assert b"\x1b]52;c;cHduZWQ=\x07" in out.replace(b"\r\n", b""), out


def test_escape_terminal_osc_config(ctx):
    """The config's "terminal": {"drop_osc": false} (the opt-in) passes
    them on both paths; --drop-osc drops them again; "drop_osc": true is
    the default said again."""
    d = ctx.daemon({"terminal": {"drop_osc": False}})
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    sid = d.client().call("session.create", {
        "project": proj, "sandbox": "workspace"})["session"]
    out = osc_run(d, ["session", "exec", sid])
    assert b"\x1b]52;c;cHduZWQ=\x07" in out.replace(b"\r\n", b""), out
    out = machine_run(d, ["session", "exec", sid, "--no-tty"])
    assert b"\x1b]52;c;PAYLOAD52=\x07" in out, out
    args = ["session", "exec", sid, "--no-tty", "--drop-osc"]
    check_machine_dropped(machine_run(d, args), args)
    out = osc_run(d, ["session", "exec", sid, "--drop-osc"])
    assert b"cHduZWQ" not in out and b"title" not in out, out
    assert re.search(rb"A.*B.*C\x1b\[1mD.*E", out, re.S), out
    r = d.cli("config", "check")
    assert r.returncode == 0, r
    d2 = ctx.daemon({"terminal": {"drop_osc": True}})
    os.makedirs(os.path.join(ctx.tmp, "proj2"))
    sid2 = d2.client().call("session.create", {
        "project": os.path.join(ctx.tmp, "proj2"),
        "sandbox": "workspace"})["session"]
    args = ["session", "exec", sid2, "--no-tty"]
    check_machine_dropped(machine_run(d2, args), args)


# Issue 43 item 7: each sequence that acts on the person's machine rather
# than the screen, split in two writes, to stdout and to stderr; each
# payload says "PAYLOAD" and must not show.
MACHINE_SEQS = [b"\x1b]52;c;PAYLOAD52=\x07", b"\x1b]52;c;PAYLOAD52=\x1b\\",
                b"\xc2\x9d52;c;PAYLOADc1\xc2\x9c", b"\x1b]0;PAYLOAD0\x07",
                b"\x1b]1;PAYLOAD1\x07", b"\x1b]2;PAYLOAD2\x1b\\",
                b"\x1bkPAYLOADscreen\x1b\\"] + [
    b"\x1b]%d;PAYLOAD%d\x07" % (n, n)
    for n in (3, 7, 9, 20, 46, 50, 51, 99, 633, 710, 777, 1337, 5113, 5522)
] + [b"\x1b]1337;File=name=UEFZTE9BRA==;inline=0:PAYLOADfile\x07",
     b"\x1b]777;notify;PAYLOADnotify;body\x1b\\",
     b"\x1b[21t", b"\x1b[20t", b"\x1b[2t", b"\x1b[3;0;0t", b"\x1b[8;1;1t",
     b"\x1b[9;1t", b"\x1b[13t", b"\x1b[0021t"]
SCREEN_SEQS = b"\x1b[31mRED\x1b[0m\x1b[2;3H\x1b[1mBOLD\x1b[m\x1b[18t"
MACHINE_PROG = r'''
import os, sys, time
seqs = %r
for fd in (1, 2):
    for i, s in enumerate(seqs):
        h = len(s) // 2
        os.write(fd, b"M%%02d" %% i + s[:h])
        time.sleep(0.01)
        os.write(fd, s[h:])
    os.write(fd, %r + b"END%%d\n" %% fd)
    time.sleep(0.05)
''' % (MACHINE_SEQS, SCREEN_SEQS)


def machine_run(d, args):
    """Run MACHINE_PROG through sbox on a pty of the test (stdout and
    stderr the terminal); what the terminal got."""
    t = Pty(d, args + ["--", "python3", "-c", MACHINE_PROG],
            stdin=None if "-t" in args else subprocess.DEVNULL)
    try:
        rc = t.finish()
    finally:
        t.close()
    assert rc == 0, (rc, t.buf)
    return t.buf


def check_machine_dropped(out, args):
    """None of the machine's sequences came through; the markers between
    them, the colours and the cursor moves did."""
    assert b"PAYLOAD" not in out, (args, out)
    for bad in (b"\x1b]", b"\xc2\x9d", b"\x1bk", b"[21t", b"[20t", b"[2t",
                b"[3;0;0t", b"[8;1;1t", b"[13t", b"0021t"):
        assert bad not in out, (args, bad, out)
    for fd in (1, 2):
        assert b"END%d" % fd in out, (args, out)
    assert out.count(SCREEN_SEQS) == 2, (args, out)
    assert len(re.findall(rb"M\d\d", out)) == 2 * len(MACHINE_SEQS), (
        args, out)


def test_escape_terminal_machine_sequences_dropped_by_default(ctx):
    """By default, on the terminal path (-t) and the pipe path (--no-tty
    with stdout and stderr a terminal), each sequence that acts on the
    person's machine is dropped, split across writes too; colours and
    cursor moves stay. --keep-osc passes them on both paths."""
    d, sid = session()
    for path in (["-t"], ["--no-tty"]):
        args = ["session", "exec", sid] + path
        check_machine_dropped(machine_run(d, args), args)
        check_machine_dropped(machine_run(d, args + ["--drop-osc"]), args)
        out = machine_run(d, args + ["--keep-osc"]).replace(b"\r\n", b"\n")
        assert b"\x1b]52;c;PAYLOAD52=\x07" in out, (path, out)
        assert b"\x1b[21t" in out and b"\x1b]1337;" in out, (path, out)


def test_escape_terminal_machine_sequences_run(ctx):
    """sbox run at a terminal (the pipe path of a one-shot session) drops
    them too; its --keep-osc passes them."""
    d, _ = session()
    args = ["run", "--project", os.path.join(d.root, "proj"), "--no-ask"]
    check_machine_dropped(machine_run(d, args), args)
    out = machine_run(d, args + ["--keep-osc"])
    assert b"\x1b]52;c;PAYLOAD52=\x07" in out, out


def test_escape_terminal_machine_sequences_follow_and_read(ctx):
    """A detached job's output shown at a terminal, by `sbox command
    follow` and `sbox command read`: the same sequences dropped, colours
    kept."""
    d, sid = session()
    c = SH.client()
    r = c.call("command.exec", {"session": sid, "detach": True,
                                "stdio": "pipes", "argv": [
                                    "python3", "-c", MACHINE_PROG]})
    cid = r["command"]
    for args in (["command", "follow", str(cid)],
                 ["command", "read", str(cid)]):
        t = Pty(d, args, stdin=subprocess.DEVNULL)
        try:
            rc = t.finish()
        finally:
            t.close()
        assert rc == 0, (args, rc, t.buf)
        check_machine_dropped(t.buf, args)
