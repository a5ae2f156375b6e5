"""End-to-end tests of the sbox CLI's core commands (issue 2): version,
help, usage errors and exit codes, daemon status/stop, events, and starting
sboxd when nobody listens.

Every test runs against a private sboxd (ctx.daemon()); they pass as root
and as an unprivileged user."""
import json
import os
import signal
import stat
import subprocess
import time

import sboxtest
from sboxtest import wait_for
from daemonlib import out, pid_alive, sbox


# ---------------------------------------------------------------- the CLI

def test_cli_version_and_help(ctx):
    d = ctx.daemon()
    r = sbox(d, "version")
    o = r.stdout.decode()
    assert r.returncode == 0, out(r)
    assert o.startswith("sbox 0.") and "sboxd 0." in o, o
    assert "pid %d" % d.proc.pid in o, o
    r = sbox(d, "--json", "version")
    assert r.returncode == 0, out(r)
    j = json.loads(r.stdout)
    assert j["client"] == j["daemon"], j
    r = sbox(d, "--version")
    assert r.returncode == 0 and r.stdout.decode().startswith("sbox ")
    r = sbox(d, "help")
    assert r.returncode == 0, out(r)
    for cmd in ("version", "daemon", "events", "help"):
        assert cmd in r.stdout.decode(), r.stdout
    r = sbox(d, "help", "daemon")
    assert r.returncode == 0 and "sbox daemon" in r.stdout.decode(), out(r)
    r = sbox(d, "--help")
    assert r.returncode == 0 and "usage" in r.stdout.decode()
    d.stop()
    r = sbox(d, "version")
    assert r.returncode == 0 and "not running" in r.stdout.decode(), out(r)
    assert not os.path.exists(d.sock), "sbox version must not start sboxd"


def test_cli_usage_errors(ctx):
    d = ctx.daemon()
    for args in ([], ["nope"], ["daemon"], ["daemon", "frob"],
                 ["daemon", "status", "extra"], ["--bogus", "version"],
                 ["help", "nope"], ["version", "extra"], ["events", "--x"],
                 ["--socket"]):
        r = sbox(d, *args)
        assert r.returncode == 2, (args, r.returncode, out(r))
        err = r.stderr.decode()
        assert err.strip(), (args, "no message")
        assert "sbox" in err, (args, err)
    assert d.proc.poll() is None


def test_cli_daemon_status_and_stop(ctx):
    d = ctx.daemon()
    r = sbox(d, "daemon", "status")
    assert r.returncode == 0, out(r)
    o = r.stdout.decode()
    assert "pid %d" % d.proc.pid in o and d.sock in o, o
    assert "sbox.db" in o and "connections" in o, o
    r = sbox(d, "--json", "daemon", "status")
    assert r.returncode == 0, out(r)
    j = json.loads(r.stdout)
    assert j["pid"] == d.proc.pid and j["socket"] == d.sock, j
    # --socket overrides SBOX_SOCKET
    r = sbox(d, "--socket", d.sock, "--json", "daemon", "status",
             env={"SBOX_SOCKET": "/nonexistent/x.sock"})
    assert r.returncode == 0, out(r)
    r = sbox(d, "daemon", "stop")
    assert r.returncode == 0, out(r)
    assert "stopped" in r.stdout.decode(), out(r)
    # it returns once sboxd has exited (issue 15)
    assert d.proc.poll() == 0, "sbox daemon stop returned before sboxd exited"
    assert d.proc.wait(10) == 0
    # nobody listens now: 69 with a hint on how to start it
    r = sbox(d, "--no-start", "daemon", "status")
    assert r.returncode == 69, out(r)
    err = r.stderr.decode()
    assert err.startswith("sbox: ") and len(err.strip().splitlines()) == 1, err
    assert d.sock in err and "sboxd" in err, err
    # a socket named explicitly is never autostarted
    r = sbox(d, "daemon", "status")
    assert r.returncode == 69, out(r)
    r = sbox(d, "daemon", "stop")
    assert r.returncode == 69, out(r)
    assert "no-start" not in r.stderr.decode(), out(r)
    assert "no sboxd is running" in r.stderr.decode(), out(r)


def test_cli_events(ctx):
    d = ctx.daemon(config={})
    p = subprocess.Popen([os.path.join(sboxtest.BIN, "sbox"), "events",
                          "--follow", "config.*"], env=d.env(),
                         stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        c = d.client()
        # wait until the CLI has subscribed (it is the second connection)
        wait_for(lambda: c.call("daemon.status")["connections"] >= 2,
                 what="sbox events to connect")
        time.sleep(0.2)
        d.proc.send_signal(signal.SIGHUP)
        line = p.stdout.readline()
        assert line, p.stderr.read()
        ev = json.loads(line)
        assert ev["topic"] == "config.reloaded", ev
        assert ev["data"]["path"] == d.config, ev
        d.write_config("{bad")
        d.proc.send_signal(signal.SIGHUP)
        ev = json.loads(p.stdout.readline())
        assert ev["topic"] == "config.rejected", ev
        # the daemon goes away: sbox events ends with 69
        d.stop()
        rc = p.wait(10)
        assert rc == 69, (rc, p.stderr.read())
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_cli_autostart(ctx):
    """With the default socket and no daemon, sbox starts sboxd in the
    background (as tmux does)."""
    run = os.path.join(ctx.tmp, "xdg")
    home = os.path.join(ctx.tmp, "home")
    os.makedirs(run, mode=0o700)
    os.chmod(run, 0o700)
    os.makedirs(home)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
           "XDG_RUNTIME_DIR": run, "LANG": "C.UTF-8"}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    sbox_bin = os.path.join(sboxtest.BIN, "sbox")
    sock = os.path.join(run, "sbox", "sboxd.sock")

    def cli(*args):
        return subprocess.run([sbox_bin] + list(args), env=env,
                              capture_output=True, timeout=30)
    # --no-start: 69 and no daemon
    r = cli("--no-start", "daemon", "status")
    assert r.returncode == 69, out(r)
    assert not os.path.exists(sock)
    pid = None
    try:
        r = cli("--json", "daemon", "status")
        assert r.returncode == 0, out(r)
        st = json.loads(r.stdout)
        pid = st["pid"]
        assert st["socket"] == sock, st
        assert st["state_dir"] == os.path.join(home, ".local", "state",
                                               "sbox"), st
        assert pid_alive(pid)
        assert stat.S_IMODE(os.stat(os.path.dirname(sock)).st_mode) == 0o700
        # it runs detached: a second call talks to the same daemon
        r = cli("--json", "daemon", "status")
        assert json.loads(r.stdout)["pid"] == pid
        r = cli("daemon", "stop")
        assert r.returncode == 0, out(r)
        wait_for(lambda: not pid_alive(pid), what="sboxd to exit")
        pid = None
        assert not os.path.exists(sock)
        assert os.path.exists(os.path.join(home, ".local", "state", "sbox",
                                           "sboxd.log"))
    finally:
        if pid is not None and pid_alive(pid):
            os.kill(pid, signal.SIGKILL)


def _fake_sboxd(path, hello_error):
    """A one-connection sboxd stand-in on path: answers rpc.hello (with
    sbox.ProtocolVersion when hello_error) and session.list (no sessions);
    returns (thread, the methods it got, in order)."""
    import socket
    import threading
    got = []
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(path)
    srv.listen(1)

    def serve():
        conn, _ = srv.accept()
        f = conn.makefile("rb")
        while True:
            try:
                line = f.readline()
            except OSError:  # the CLI left with a reply unread
                break
            if not line:
                break
            req = json.loads(line)
            got.append(req["method"])
            if req["method"] == "rpc.hello" and hello_error:
                rep = {"jsonrpc": "2.0", "id": req["id"], "error": {
                    "code": -32000, "message": "client speaks protocol 1, "
                    "sboxd speaks 2; use an sbox client of the same version",
                    "data": {"name": "sbox.ProtocolVersion",
                             "field": "protocol"}}}
            elif req["method"] == "rpc.hello":
                rep = {"jsonrpc": "2.0", "id": req["id"], "result": {
                    "protocol": 1, "server": "sboxd", "version": "0.1.0",
                    "methods": [], "limits": {}}}
            else:
                rep = {"jsonrpc": "2.0", "id": req["id"],
                       "result": {"sessions": []}}
            try:
                conn.sendall(json.dumps(rep).encode() + b"\n")
            except OSError:
                break
        conn.close()
        srv.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return t, got


def test_cli_hello_not_waited_for(ctx):
    """The CLI sends its first request right behind rpc.hello (one round
    trip fewer), and a refused hello still fails the command with the
    daemon's own message, whatever the request's reply said."""
    cli = os.path.join(sboxtest.BIN, "sbox")
    for refused in (True, False):
        sock = os.path.join(ctx.tmp, "fake-%d.sock" % refused)
        t, got = _fake_sboxd(sock, refused)
        r = subprocess.run([cli, "--socket", sock, "--no-start", "session",
                            "list"], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=30)
        t.join(10)
        assert got[:2] == ["rpc.hello", "session.list"], got
        if refused:
            assert r.returncode != 0, out(r)
            assert "sboxd speaks 2" in r.stderr.decode(), out(r)
        else:
            assert r.returncode == 0, out(r)
