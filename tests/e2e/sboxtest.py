"""sboxtest: helpers for sbox's end-to-end tests.

Each test gets private daemons (own socket, state folder, config and HOME
under a temporary directory), real bwrap containers and real commands.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

BIN = os.environ.get("SBOX_BIN", "bin")


class Skip(Exception):
    """Raise to skip a test, with the reason."""


class RpcError(Exception):
    """A JSON-RPC error reply."""

    def __init__(self, err):
        self.code = err.get("code")
        self.message = err.get("message", "")
        data = err.get("data") or {}
        self.name = data.get("name")
        self.field = data.get("field")
        super().__init__("%s %s: %s" % (self.code, self.name, self.message))


def sbox_for_sandbox():
    """An sbox binary that can run inside a sandbox: a sanitizer build
    reserves more address space than a sandbox allows, so prefer the plain
    build beside it (bin/ next to bin-san/). Skip when there is none."""
    for cand in (os.path.join(BIN, "sbox"),
                 os.path.join(os.path.dirname(BIN), "bin", "sbox")):
        try:
            with open(cand, "rb") as f:
                if b"__asan_init" not in f.read():
                    return cand
        except OSError:
            pass
    raise Skip("no sbox build that can run inside a sandbox (only a "
               "sanitizer build)")


def is_root():
    return os.geteuid() == 0


def wait_for(pred, timeout=10.0, step=0.02, what="condition"):
    """Poll pred() until it is true; fail after timeout seconds."""
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    raise AssertionError("timed out waiting for " + what)


class Client:
    """A raw JSON-RPC client on the daemon's socket."""

    def __init__(self, path, hello=True, timeout=30):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""
        self.next_id = 1
        self.pending = {}      # id -> reply kept while waiting for another
        self.notifications = []
        if hello:
            self.call("rpc.hello", {"protocol": 1, "client": "sboxtest"})

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send_raw(self, data, fds=None):
        if fds:
            socket.send_fds(self.sock, [data], fds)
        else:
            self.sock.sendall(data)

    def send(self, method, params=None, id=None, fds=None):
        if id is None:
            id = self.next_id
            self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send_raw(json.dumps(msg).encode() + b"\n", fds)
        return id

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send_raw(json.dumps(msg).encode() + b"\n")

    def recv(self):
        """The next message (reply or notification); None on EOF."""
        while b"\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def wait_reply(self, id):
        if id in self.pending:
            return self.pending.pop(id)
        while True:
            m = self.recv()
            if m is None:
                raise ConnectionError("daemon closed the connection")
            if "method" in m and "id" not in m:
                self.notifications.append(m)
                continue
            if m.get("id") == id:
                return m
            self.pending[m.get("id")] = m

    def result(self, reply):
        if "error" in reply:
            raise RpcError(reply["error"])
        return reply["result"]

    def call(self, method, params=None, fds=None):
        return self.result(self.wait_reply(self.send(method, params, fds=fds)))

    def error(self, method, params=None):
        """Call expecting an error; returns the RpcError."""
        try:
            r = self.call(method, params)
        except RpcError as e:
            return e
        raise AssertionError("%s succeeded unexpectedly: %r" % (method, r))

    def wait_notification(self, method, pred=lambda p: True, timeout=10):
        end = time.time() + timeout
        while True:
            for i, n in enumerate(self.notifications):
                if n["method"] == method and pred(n.get("params")):
                    return self.notifications.pop(i)["params"]
            left = end - time.time()
            if left <= 0:
                raise AssertionError("no %s notification" % method)
            self.sock.settimeout(left)
            try:
                m = self.recv()
            except socket.timeout:
                continue
            finally:
                self.sock.settimeout(30)
            if m is None:
                raise ConnectionError("daemon closed the connection")
            if "method" in m and "id" not in m:
                self.notifications.append(m)
            else:
                self.pending[m.get("id")] = m


class Daemon:
    """A private sboxd under a temporary folder."""

    def __init__(self, config=None, name="d"):
        self.root = tempfile.mkdtemp(prefix="sbox-e2e-%s-" % name)
        os.chmod(self.root, 0o755)
        self.run_dir = os.path.join(self.root, "run")
        self.state = os.path.join(self.root, "state")
        self.home = os.path.join(self.root, "home")
        self.sock = os.path.join(self.run_dir, "sboxd.sock")
        self.config = os.path.join(self.root, "config.json")
        self.log = os.path.join(self.root, "sboxd.log")
        os.makedirs(self.home, mode=0o755)
        if config is not None:
            self.write_config(config)
        self.proc = None

    def write_config(self, config):
        with open(self.config, "w") as f:
            if isinstance(config, str):
                f.write(config)
            else:
                json.dump(config, f)

    def env(self):
        e = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.home,
            "LANG": "C.UTF-8",
            "SBOX_SOCKET": self.sock,
        }
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TMPDIR",
                  "SBOX_BENCH_NO_GUARD", "SBOX_READS_BY"):
            if k in os.environ:
                e[k] = os.environ[k]
        # Under ASan, freed memory waits in a quarantine (256 MB by default),
        # which would make every RSS measurement meaningless: keep it small.
        asan = e.get("ASAN_OPTIONS", "")
        e["ASAN_OPTIONS"] = (asan + ":" if asan else "") + \
            "quarantine_size_mb=8:malloc_context_size=4"
        return e

    def args(self):
        return [os.path.join(BIN, "sboxd"), "--foreground", "--socket",
                self.sock, "--state-dir", self.state, "--config",
                self.config, "--log-level", "debug"]

    def start(self, wait=True, extra=()):
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen(self.args() + list(extra), env=self.env(),
                                     stdin=subprocess.DEVNULL, stdout=logf,
                                     stderr=logf)
        logf.close()
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout=15):
        def ready():
            if self.proc.poll() is not None:
                raise AssertionError("sboxd exited with %s:\n%s" %
                                     (self.proc.returncode, self.read_log()))
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.sock)
                s.close()
                return True
            except OSError:
                return False
        wait_for(ready, timeout, what="sboxd to listen")

    def read_log(self):
        try:
            with open(self.log, "rb") as f:
                return f.read().decode(errors="replace")[-4000:]
        except OSError:
            return ""

    def client(self, hello=True):
        return Client(self.sock, hello=hello)

    def cli(self, *args, input=None, timeout=60, env=None):
        e = self.env()
        if env:
            e.update(env)
        return subprocess.run([os.path.join(BIN, "sbox")] + list(args),
                              input=input, capture_output=True, env=e,
                              timeout=timeout)

    def stop(self, sig=signal.SIGTERM, timeout=15):
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("sboxd did not stop within %ss" % timeout)

    def kill(self):
        return self.stop(signal.SIGKILL)

    def rss_kb(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def kill_leftovers(self):
        """Kill what this daemon started that outlived it (a background
        question to npm keeps running after a SIGKILL and would recreate
        HOME/.npm after the folder is removed): every process whose
        environment holds this daemon's HOME."""
        key = ("HOME=%s" % self.home).encode()
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == os.getpid():
                continue
            try:
                with open("/proc/%s/environ" % name, "rb") as f:
                    env = f.read().split(b"\0")
            except OSError:
                continue
            if key in env:
                try:
                    os.kill(int(name), signal.SIGKILL)
                except OSError:
                    pass

    def cleanup(self):
        if self.proc is not None and self.proc.poll() is None:
            # in order first: sboxd then stops what it started
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.kill_leftovers()
        shutil.rmtree(self.root, ignore_errors=True)
        if os.path.exists(self.root):
            time.sleep(0.2)
            self.kill_leftovers()
            shutil.rmtree(self.root, ignore_errors=True)


class Context:
    """What a test gets: make daemons; everything is cleaned up after."""

    def __init__(self):
        self.daemons = []
        self.tmp = tempfile.mkdtemp(prefix="sbox-e2e-t-")
        os.chmod(self.tmp, 0o755)

    def daemon(self, config=None, start=True, name="d"):
        d = Daemon(config, name)
        self.daemons.append(d)
        if start:
            d.start()
        return d

    def cleanup(self):
        for d in self.daemons:
            d.cleanup()
        shutil.rmtree(self.tmp, ignore_errors=True)
