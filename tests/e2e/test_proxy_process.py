"""End-to-end tests of the proxy process (issue 26 item 4): sboxd runs the
proxy, which parses what sandboxes send, in a child process of its own,
named `sboxd: proxy`, confined (seccomp filter, no_new_privs, no files it
can reach, the unprivileged sandbox uid for a root sboxd), and restarted
when it dies: connections that were open end, new ones work.

The connections go through a local_ports forward (the proxy process accepts
inside the sandbox and connects to this computer's 127.0.0.1), so these
tests also run as an unprivileged user."""
import json
import os
import signal
import socket
import subprocess
import threading

from sandboxlib import create, run
from sboxtest import is_root, wait_for

NAME = "sboxd: proxy"

# Inside the sandbox: connect to the forwarded port, check the echo, say
# so, wait for the test's word, then see what the open connection does, and
# connect again until a new connection works.
CLIENT = r"""
import json, os, socket, sys, time
port, d = int(sys.argv[1]), sys.argv[2]
def echo(s, b):
    s.sendall(b)
    return s.recv(100)
s = socket.create_connection(("127.0.0.1", port), timeout=20)
first = echo(s, b"one").decode()
open(os.path.join(d, "ready"), "w").close()
while not os.path.exists(os.path.join(d, "killed")):
    time.sleep(0.05)
s.settimeout(20)
try:
    s.sendall(b"two")
    got = s.recv(100)
    after = "eof" if got == b"" else "data:" + got.decode()
except OSError as e:
    after = "error:" + type(e).__name__
again = None
end = time.time() + 30
while again is None and time.time() < end:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as t:
            t.settimeout(5)
            r = echo(t, b"three")
            if r:
                again = r.decode()
    except OSError:
        pass
    if again is None:
        time.sleep(0.1)
print(json.dumps({"first": first, "after": after, "again": again}))
"""


def echo_server():
    """A local echo server (b"echo:" + what it reads), its port and a stop."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    srv.settimeout(0.2)
    stop = threading.Event()

    def conn(c):
        with c:
            c.settimeout(30)
            try:
                while True:
                    d = c.recv(100)
                    if not d:
                        return
                    c.sendall(b"echo:" + d)
            except OSError:
                pass

    def serve():
        while not stop.is_set():
            try:
                c, _ = srv.accept()
            except OSError:
                continue
            threading.Thread(target=conn, args=(c,), daemon=True).start()
        srv.close()
    threading.Thread(target=serve, daemon=True).start()
    return srv.getsockname()[1], stop


def proxy_pids(d):
    """The pids of sboxd's children named `sboxd: proxy`."""
    out = []
    kids = []
    for t in os.listdir("/proc/%d/task" % d.proc.pid):
        with open("/proc/%d/task/%s/children" % (d.proc.pid, t)) as f:
            kids += [int(x) for x in f.read().split()]
    for p in kids:
        try:
            with open("/proc/%d/comm" % p) as f:
                if f.read().strip() == NAME:
                    out.append(p)
        except OSError:
            pass
    return out


def the_proxy(d):
    pids = wait_for(lambda: proxy_pids(d) or None, timeout=10,
                    what="the proxy process")
    assert len(pids) == 1, pids
    return pids[0]


def status(pid):
    with open("/proc/%d/status" % pid) as f:
        return dict(l.rstrip("\n").split(":\t", 1) for l in f if ":\t" in l)


def setup(ctx, port):
    cfg = {"sandbox": {"profiles": {"fwd": {
        "extends": "workspace", "network": "registries",
        "local_ports": [port]}}}}
    d = ctx.daemon(cfg)
    c = d.client()
    sid = create(c, ctx.tmp, "fwd")
    return d, c, sid


def test_named_and_confined(ctx):
    port, stop = echo_server()
    try:
        d, c, sid = setup(ctx, port)
        pid = the_proxy(d)
        # ps names it
        ps = subprocess.run(["ps", "-o", "comm=,args=", "-p", str(pid)],
                            capture_output=True, text=True).stdout
        assert ps.count(NAME) == 2, ps
        st = status(pid)
        assert st["Seccomp"].strip() == "2", st
        assert st["NoNewPrivs"].strip() == "1", st
        assert st["CapEff"].strip() == "0" * 16, st
        assert st["CapPrm"].strip() == "0" * 16, st
        uids = st["Uid"].split()
        if is_root():
            assert "0" not in uids, st
            assert st["Groups"].strip() == "", st
        else:
            assert uids[0] == str(os.getuid()), st
        # no files: its root is empty (or not ours to see)
        try:
            listing = os.listdir("/proc/%d/root/" % pid)
        except OSError:
            listing = []
        assert listing == [], listing
        try:
            cwd = os.listdir("/proc/%d/cwd/" % pid)
        except OSError:
            cwd = []
        assert cwd == [], cwd
        # it holds no descriptor of sboxd's state (store, log is stderr)
        try:
            fds = [os.readlink("/proc/%d/fd/%s" % (pid, f))
                   for f in os.listdir("/proc/%d/fd" % pid)]
        except OSError:
            fds = []
        assert not [f for f in fds if f.startswith("/") and
                    f not in ("/dev/null",) and not f.endswith(".log")], fds
        # it is sboxd's binary run again, not a fork holding sboxd's memory:
        # none of sboxd's environment (HOME, PATH) is in it
        try:
            with open("/proc/%d/environ" % pid, "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            env = None
        if env is not None:
            names = sorted(e.split(b"=", 1)[0] for e in env if e)
            assert not [n for n in names if n not in (
                b"SBOX_PROXY_CHILD", b"TZ", b"ASAN_OPTIONS", b"UBSAN_OPTIONS",
                b"LSAN_OPTIONS")], names
        with open("/proc/%d/environ" % d.proc.pid, "rb") as f:
            assert b"HOME=" in f.read()
        # and it works
        r = run(c, sid, None, argv=["python3", "-c",
                "import socket; s = socket.create_connection(('127.0.0.1', "
                "%d), timeout=10); s.sendall(b'hi'); print(s.recv(100))"
                % port])
        assert r.code == 0 and "echo:hi" in r.out, r
    finally:
        stop.set()


def test_killed_and_restarted(ctx):
    port, stop = echo_server()
    try:
        d, c, sid = setup(ctx, port)
        pid = the_proxy(d)
        work = os.path.join(ctx.tmp, "w")
        os.makedirs(work)
        os.chmod(work, 0o777)
        script = os.path.join(ctx.tmp, "client.py")
        with open(script, "w") as f:
            f.write(CLIENT)
        out = os.path.join(work, "out")
        c.call("command.exec", {"session": sid, "argv": [
            "sh", "-c", 'python3 "$0" "$1" "$2" > "$2/out" 2>&1',
            script, str(port), work], "detach": True, "stdio": "none"})
        wait_for(lambda: os.path.exists(os.path.join(work, "ready")),
                 timeout=30, what="the connection through the proxy")
        os.kill(pid, signal.SIGKILL)
        with open(os.path.join(work, "killed"), "w"):
            pass

        def result():
            try:
                with open(out) as f:
                    return json.loads(f.read())
            except (OSError, ValueError):
                return None
        r = wait_for(result, timeout=60, what="the client's result")
        assert r["first"] == "echo:one", r
        # the open connection ended cleanly: EOF or a reset, never data
        assert r["after"] in ("eof", "error:ConnectionResetError",
                              "error:BrokenPipeError"), r
        # a new connection works through the new process
        assert r["again"] == "echo:three", r
        # sboxd is up, answers, and runs another proxy process
        assert d.proc.poll() is None
        new = the_proxy(d)
        assert new != pid
        assert status(new)["Seccomp"].strip() == "2"
        c.call("daemon.status", {})
        with open(d.log) as f:
            log = f.read()
        assert "proxy process (pid %d) was killed by signal 9" % pid in log
        # and it knows the session again: a refusal is still recorded
        r = run(c, sid, None, argv=["python3", "-c",
                "import socket; s = socket.create_connection(('127.0.0.1', "
                "3128), timeout=10); s.sendall(b'CONNECT nope.test:443 "
                "HTTP/1.1\\r\\nHost: nope.test:443\\r\\n\\r\\n'); "
                "print(s.recv(200))"])
        assert r.code == 0 and "403" in r.out, r
        refused = c.call("sandbox.status", {"session": sid})["refused"]
        assert "nope.test" in json.dumps(refused), refused
    finally:
        stop.set()
