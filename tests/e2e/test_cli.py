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
