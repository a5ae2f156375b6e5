"""proxy_bench: the figures of bench-proxy.sh: a session proxy's CONNECT
tunnel against a direct connection, tinyproxy and squid (Debian's packages),
all with the same allowlist (one host, bulk.bench) and the same upstream.

As root the upstream is this run's own host: a network namespace
(sboxb-PID) joined by a veth pair on 192.168.232.X/30, with a bulk source
(port 9000: send the number of bytes asked for) and an echo (port 9001, one
thread for thousands of connections). A session's proxy refuses loopback, so
the upstream cannot be on this computer's loopback; the name is listed in
private_hosts. tinyproxy and squid listen on 127.0.0.1 and are pointed at
the same name through a private hosts file. No traffic leaves the veth pair
and loopback. As a user (no namespace to make) the upstream listens on
ports of its choosing on an address of this computer's own interfaces
(private_hosts lets the proxy reach it; the kernel keeps the traffic on
this computer), and the columns are direct and sboxd.

Each figure is measured in rounds, the columns in turn within a round, and
a column's ratio to direct is the median of its rounds' ratios, so a busy
moment of the machine is shared by both sides of a ratio. The goals
(issue 24): a new tunnel to the first byte within 1.5x a direct connection,
bulk throughput at least 0.8x direct.

Modes: `run` (the whole benchmark; root), `upstream` (inside the
namespace), `client ...` (the measuring side, run inside the sandbox for
sboxd and on this computer for the others). Figures are reported, never
judged."""
import json
import os
import resource
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "bulk.bench"
BULK, ECHO = 9000, 9001
BULK_BYTES = int(os.environ.get("BENCH_PROXY_BYTES", 200 * 1024 * 1024))
LAT_N = int(os.environ.get("BENCH_PROXY_LATENCY_N", 500))
HOLD_N = int(os.environ.get("BENCH_PROXY_TUNNELS", 5000))
ROUNDS = int(os.environ.get("BENCH_PROXY_ROUNDS", 5))
GOAL_TUNNEL = 1.5   # new tunnel + first byte, x direct, at most
GOAL_BULK = 0.8     # bulk throughput, x direct, at least
GOAL_FLOOR_TUNNEL = 1.1   # issue 38: new tunnel, x connect-floor, at most
GOAL_FLOOR_BULK = 0.95    # issue 38: bulk, x connect-floor, at least


def raise_nofile(n=65536):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(n, soft)
    if hard != resource.RLIM_INFINITY and want > hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
            return
        except (ValueError, OSError):
            want = hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


# ------------------------------------------------------------ upstream

def upstream_main(args):
    """The upstream: ports 9000/9001 on every address (in its own network
    namespace), or with ADDR PORTSFILE ports of its choosing on ADDR,
    written to PORTSFILE as "BULK ECHO"."""
    raise_nofile()
    where, ports = (args[0], args[1]) if len(args) >= 2 else ("0.0.0.0",
                                                              None)
    chunk = memoryview(b"\0" * (1 << 20))

    def bulk(c):
        with c:
            f = c.makefile("rb")
            n = int(f.readline().strip() or 0)
            while n > 0:
                k = min(n, len(chunk))
                c.sendall(chunk[:k])
                n -= k

    def bulk_loop(s):
        while True:
            c, _ = s.accept()
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=bulk, args=(c,), daemon=True).start()

    sb = socket.socket()
    sb.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sb.bind((where, BULK if ports is None else 0))
    sb.listen(128)
    threading.Thread(target=bulk_loop, args=(sb,), daemon=True).start()

    sel = selectors.DefaultSelector()
    se = socket.socket()
    se.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    se.bind((where, ECHO if ports is None else 0))
    se.listen(4096)
    if ports is not None:
        with open(ports + ".tmp", "w") as f:
            f.write("%d %d\n" % (sb.getsockname()[1], se.getsockname()[1]))
        os.rename(ports + ".tmp", ports)
    se.setblocking(False)
    sel.register(se, selectors.EVENT_READ)
    while True:
        for key, _ in sel.select():
            s = key.fileobj
            if s is se:
                try:
                    c, _ = se.accept()
                except OSError:
                    continue
                c.setblocking(False)
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sel.register(c, selectors.EVENT_READ)
                continue
            try:
                d = s.recv(65536)
            except OSError:
                d = b""
            if not d:
                sel.unregister(s)
                s.close()
                continue
            try:
                s.sendall(d)
            except OSError:
                pass


# ------------------------------------------------------------ client

def dial(proxy, host, addr, port):
    """A connection to host:port, through proxy (HOST:PORT) or to addr
    directly when proxy is "-"; returns the socket, ready for bytes."""
    if proxy == "-":
        s = socket.create_connection((addr, port), timeout=30)
    else:
        ph, pp = proxy.rsplit(":", 1)
        s = socket.create_connection((ph, int(pp)), timeout=30)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(b"CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" %
                  (host.encode(), port, host.encode(), port))
        head = b""
        while b"\r\n\r\n" not in head:
            d = s.recv(4096)
            if not d:
                raise OSError("proxy closed: %r" % head)
            head += d
        if not head.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200")):
            raise OSError("proxy refused: %r" % head[:200])
        rest = head.split(b"\r\n\r\n", 1)[1]
        assert rest == b"", rest
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def client_bulk(proxy, host, addr, nbytes, port=BULK):
    best = []
    buf = bytearray(1 << 20)
    mv = memoryview(buf)
    for _ in range(1):
        t0 = time.perf_counter()
        s = dial(proxy, host, addr, port)
        s.sendall(b"%d\n" % nbytes)
        got = 0
        while got < nbytes:
            n = s.recv_into(mv)
            if n == 0:
                break
            got += n
        s.close()
        dt = time.perf_counter() - t0
        if got != nbytes:
            raise OSError("short read: %d of %d" % (got, nbytes))
        best.append(nbytes / dt / 1e6)
    return {"mb_s": best[0]}


def client_latency(proxy, host, addr, n, port=ECHO):
    times = []
    for i in range(n + 20):
        t0 = time.perf_counter_ns()
        s = dial(proxy, host, addr, port)
        s.sendall(b"x")
        if s.recv(1) != b"x":
            raise OSError("no echo")
        t1 = time.perf_counter_ns()
        s.close()
        if i >= 20:                       # the first ones warm up
            times.append((t1 - t0) / 1000)
    return {"us": times}


def client_hold(proxy, host, addr, n, ready, done, port=ECHO):
    held = []
    t0 = time.perf_counter()
    try:
        raise_nofile(n + 256)
        for _ in range(n):
            held.append(dial(proxy, host, addr, port))
        secs = time.perf_counter() - t0
        # each tunnel works
        for s in held[:: max(1, n // 50)]:
            s.sendall(b"y")
            assert s.recv(1) == b"y"
    except Exception as e:   # say why, rather than leave the caller waiting
        with open(ready + ".tmp", "w") as f:
            json.dump({"error": "%s after %d tunnels" % (e, len(held))}, f)
        os.rename(ready + ".tmp", ready)
        raise
    with open(ready + ".tmp", "w") as f:
        json.dump({"open": len(held), "open_s": secs}, f)
    os.rename(ready + ".tmp", ready)
    end = time.time() + 600
    while not os.path.exists(done) and time.time() < end:
        time.sleep(0.05)
    for s in held:
        s.close()
    return {"open": len(held)}


def client_main(args):
    """MODE PROXY|- HOST ADDR BULKPORT ECHOPORT ARGS..."""
    mode, proxy, host, addr = args[:4]
    bport, eport = int(args[4]), int(args[5])
    rest = args[6:]
    if mode == "bulk":
        out = client_bulk(proxy, host, addr, int(rest[0]), bport)
    elif mode == "latency":
        out = client_latency(proxy, host, addr, int(rest[0]), eport)
    else:
        out = client_hold(proxy, host, addr, int(rest[0]), rest[1], rest[2],
                          eport)
    print(json.dumps(out))


# ------------------------------------------------------------ the run

def ip(*args, check=True):
    return subprocess.run(["ip"] + list(args), capture_output=True,
                          check=check, timeout=30)


class Setup:
    """The namespace, the proxies and a session; cleaned up in close()."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="sbox-bench-proxy-")
        os.chmod(self.tmp, 0o777)
        self.ns = "sboxb-%d" % os.getpid()
        self.veth = "sbb%da" % (os.getpid() % 1000000)
        self.procs = []
        self.daemon = None
        self.daemons = []
        self.ports = (BULK, ECHO)
        self.ns_made = False

    def netns(self):
        used = ip("-4", "-o", "addr", "show").stdout.decode()
        for k in range(64):
            if "192.168.232.%d/" % (4 * k + 1) not in used:
                break
        else:
            raise RuntimeError("no free 192.168.232.0/24 slot")
        self.here = "192.168.232.%d" % (4 * k + 1)
        self.addr = "192.168.232.%d" % (4 * k + 2)
        peer = self.veth[:-1] + "b"
        ip("netns", "add", self.ns)
        self.ns_made = True
        ip("link", "add", self.veth, "type", "veth", "peer", "name", peer)
        ip("link", "set", peer, "netns", self.ns)
        ip("addr", "add", self.here + "/30", "dev", self.veth)
        ip("link", "set", self.veth, "up")
        ip("-n", self.ns, "addr", "add", self.addr + "/30", "dev", peer)
        ip("-n", self.ns, "link", "set", peer, "up")
        ip("-n", self.ns, "link", "set", "lo", "up")
        self.spawn(["ip", "netns", "exec", self.ns, sys.executable,
                    os.path.abspath(__file__), "upstream"], "upstream")
        self.wait_port(self.addr, ECHO)
        self.wait_port(self.addr, BULK)
        with open(os.path.join(self.tmp, "hosts"), "w") as f:
            f.write("127.0.0.1 localhost\n%s %s\n" % (self.addr, NAME))

    def local(self):
        """As a user: the upstream on an address of this computer's own
        interfaces (not loopback), on ports it chooses; False when this
        computer has no such address."""
        out = ip("-4", "-o", "addr", "show", "scope", "global",
                 check=False).stdout.decode().split()
        addrs = [out[i + 1].split("/")[0] for i, w in enumerate(out[:-1])
                 if w == "inet"]
        if not addrs:
            return False
        self.addr = addrs[0]
        ports = os.path.join(self.tmp, "ports")
        p = self.spawn([sys.executable, os.path.abspath(__file__),
                        "upstream", self.addr, ports], "upstream")
        end = time.time() + 30
        while not os.path.exists(ports) and time.time() < end:
            if p.poll() is not None:
                break
            time.sleep(0.05)
        with open(ports) as f:
            self.ports = tuple(int(x) for x in f.read().split())
        self.wait_port(self.addr, self.ports[0])
        self.wait_port(self.addr, self.ports[1])
        return True

    def spawn(self, argv, name, env=None):
        log = open(os.path.join(self.tmp, name + ".log"), "ab")
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                             stderr=log, env=env, start_new_session=True)
        log.close()
        self.procs.append(p)
        return p

    def wait_port(self, host, port, timeout=30, proc=None):
        end = time.time() + timeout
        while time.time() < end:
            try:
                socket.create_connection((host, port), timeout=1).close()
                return
            except OSError:
                if proc is not None and proc.poll() is not None:
                    break
                time.sleep(0.05)
        raise RuntimeError("nothing listens on %s:%d" % (host, port))

    def with_hosts(self, argv):
        """argv in a private mount namespace whose /etc/hosts names
        bulk.bench (tinyproxy resolves with the C library)."""
        return ["unshare", "-m", "--propagation", "private", "sh", "-c",
                'mount --bind "$0" /etc/hosts && exec "$@"',
                os.path.join(self.tmp, "hosts")] + argv

    def tinyproxy(self, port):
        d = os.path.join(self.tmp, "tinyproxy")
        os.makedirs(d, mode=0o777)
        os.chmod(d, 0o777)
        with open(os.path.join(d, "filter"), "w") as f:
            f.write(NAME + "\n")
        conf = os.path.join(d, "tinyproxy.conf")
        with open(conf, "w") as f:
            f.write("\n".join([
                "User tinyproxy", "Group tinyproxy",
                "Port %d" % port, "Listen 127.0.0.1", "Timeout 600",
                "MaxClients 512", "Allow 127.0.0.1",
                "ConnectPort %d" % BULK, "ConnectPort %d" % ECHO,
                "Filter \"%s/filter\"" % d, "FilterType fnmatch",
                "FilterDefaultDeny Yes", "LogLevel Error",
                "LogFile \"%s/tinyproxy.log\"" % d,
                "PidFile \"%s/tinyproxy.pid\"" % d, ""]))
        p = self.spawn(self.with_hosts(["tinyproxy", "-d", "-c", conf]),
                       "tinyproxy")
        self.wait_port("127.0.0.1", port, proc=p)

    def floor(self, port):
        """bin/bench/connect-floor: the least a CONNECT proxy does (no
        policy, log or resolver; one thread), the floor of every proxy
        column on this machine."""
        exe = os.path.join(os.environ.get("BIN", "bin"), "bench",
                           "connect-floor")
        p = self.spawn([exe, str(port), NAME, self.addr], "floor")
        self.wait_port("127.0.0.1", port, proc=p)

    def squid(self, port):
        d = os.path.join(self.tmp, "squid")
        os.makedirs(d, mode=0o777)
        os.chmod(d, 0o777)
        conf = os.path.join(d, "squid.conf")
        with open(conf, "w") as f:
            f.write("\n".join([
                "http_port 127.0.0.1:%d" % port,
                "acl allowed dstdomain %s" % NAME,
                "acl bench_ports port %d %d" % (BULK, ECHO),
                "acl CONNECT method CONNECT",
                "http_access deny CONNECT !bench_ports",
                "http_access allow allowed", "http_access deny all",
                "hosts_file %s/hosts" % self.tmp,
                "dns_nameservers 127.0.0.1",
                "cache deny all", "cache_mem 8 MB",
                "access_log none", "cache_store_log none",
                "cache_log %s/cache.log" % d,
                "pid_filename %s/squid.pid" % d,
                "coredump_dir %s" % d, "shutdown_lifetime 1 seconds",
                "max_filedescriptors 16384", ""]))
        p = self.spawn(["squid", "-N", "-f", conf], "squid")
        self.wait_port("127.0.0.1", port, timeout=60, proc=p)

    def sboxd(self, bin_dir=None, name="bench"):
        """A private sboxd (from bin_dir) with a session of profile bench;
        the first one is self.daemon / self.c / self.sid; returns
        (daemon, client, session)."""
        sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
        import sboxtest
        sboxtest.BIN = bin_dir or os.environ.get("BIN", "bin")
        cfg = {"sandbox": {"profiles": {"bench": {
            "extends": "workspace", "network": "registries",
            "hosts": [NAME], "private_hosts": [NAME],
            "limits": {"nofile": HOLD_N + 1024}}}},
            "resolve": {NAME: [self.addr]}}
        d = sboxtest.Daemon(cfg, name=name)
        d.start(extra=["--proxy-max-conns", str(HOLD_N + 100),
                       "--log-level", "warn"])
        self.daemons.append(d)
        c = d.client()
        self.project = os.path.join(self.tmp, "project")
        if not os.path.isdir(self.project):
            os.makedirs(self.project)
            os.chmod(self.project, 0o777)
        self.script = os.path.join(self.project, "proxy_bench.py")
        shutil.copy(os.path.abspath(__file__), self.script)
        os.chmod(self.script, 0o644)
        sid = c.call("session.create", {
            "project": self.project, "sandbox": "bench"})["session"]
        if self.daemon is None:
            self.daemon, self.c, self.sid = d, c, sid
        return d, c, sid

    def inside(self, args, detach=False, c=None, sid=None):
        """The client inside the session's sandbox (another daemon's
        session with c and sid)."""
        argv = ["python3", self.script, "client"] + args
        r = (c or self.c).call("command.exec", {
            "session": sid or self.sid, "argv": argv, "detach": detach,
            "timeout": 900})
        if detach:
            return r
        import base64
        out = base64.b64decode(r.get("stdout") or "").decode()
        if r.get("exit_code") != 0:
            raise RuntimeError("inside: %s %s" % (r, base64.b64decode(
                r.get("stderr") or "").decode()))
        return json.loads(out)

    def netns_pid(self, c=None, sid=None):
        """A process of the session's container in its network namespace."""
        me = os.readlink("/proc/self/ns/net")
        todo = [(c or self.c).call("session.info", {"session": sid or
                                                     self.sid})[
            "container_pid"]]
        while todo:
            p = todo.pop(0)
            try:
                if os.readlink("/proc/%d/ns/net" % p) != me:
                    return p
                for f in os.listdir("/proc/%d/task" % p):
                    with open("/proc/%d/task/%s/children" % (p, f)) as fh:
                        todo += [int(x) for x in fh.read().split()]
            except OSError:
                continue
        raise RuntimeError("no process in the sandbox's network namespace")

    def outside(self, args, netns_of=None):
        pre = ["nsenter", "-t", str(netns_of), "-n"] if netns_of else []
        r = subprocess.run(pre + [sys.executable, os.path.abspath(__file__),
                                  "client"] + args, capture_output=True,
                           timeout=900)
        if r.returncode != 0:
            raise RuntimeError("client: %s" % r.stderr.decode())
        return json.loads(r.stdout)

    def close(self):
        for d in self.daemons:
            try:
                d.stop()
            except Exception:
                pass
            d.cleanup()
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                    p.wait(10)
                except (OSError, subprocess.TimeoutExpired):
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
        if self.ns_made:
            ip("netns", "del", self.ns, check=False)
            ip("link", "del", self.veth, check=False)
        shutil.rmtree(self.tmp, ignore_errors=True)


def rss_kb(pid):
    """The RSS of pid and of its children named `sboxd: proxy` (the proxy
    process holds the tunnels)."""
    kb = 0
    kids = []
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, t)) as f:
                kids += [int(x) for x in f.read().split()]
    except OSError:
        pass
    for p in [pid] + kids:
        try:
            if p != pid:
                with open("/proc/%d/comm" % p) as f:
                    if f.read().strip() != "sboxd: proxy":
                        continue
            with open("/proc/%d/status" % p) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        kb += int(line.split()[1])
        except OSError:
            pass
    return kb


def med(v, q=0.5):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * q))]


def run_main():
    root = os.geteuid() == 0
    if root:
        for tool in ("tinyproxy", "squid", "unshare"):
            if shutil.which(tool) is None:
                print("   %s is not installed (make deps)" % tool)
                return 1
    raise_nofile()
    st = Setup()
    try:
        if root:
            st.netns()
            st.tinyproxy(3129)
            st.squid(3130)
        elif not st.local():
            print("   skipped: as a user the upstream needs an address of "
                  "this computer other than loopback, and there is none")
            return 0
        st.floor(3131)
        st.sboxd()
        nspid = st.netns_pid() if root else None
        # BENCH_PROXY_BASE=DIR: another build's sboxd (its bin folder) in
        # the same run, as one more column (base-ns as root, base as a
        # user), for before/after side by side
        base = os.environ.get("BENCH_PROXY_BASE")
        basepid = bc = bsid = None
        if base:
            _, bc, bsid = st.sboxd(os.path.abspath(base), name="bench-base")
            if root:
                basepid = st.netns_pid(bc, bsid)
        # sboxd: the client runs inside the session's sandbox (seccomp,
        # cgroup and all; sbox-init makes each connect() for it); sboxd-ns:
        # the same proxy, the client only in the sandbox's network
        # namespace (nsenter), like the other proxies' clients: the
        # difference is the sandbox's own cost. As a user: direct and sboxd
        # (entering the sandbox's namespaces takes root).
        if root:
            cols = [("direct", None), ("sboxd", "127.0.0.1:3128"),
                    ("sboxd-ns", "127.0.0.1:3128"),
                    ("floor", "127.0.0.1:3131"),
                    ("tinyproxy", "127.0.0.1:3129"),
                    ("squid", "127.0.0.1:3130")]
            if basepid is not None:
                cols.insert(3, ("base-ns", "127.0.0.1:3128"))
        else:
            cols = [("direct", None), ("sboxd", "127.0.0.1:3128"),
                    ("floor", "127.0.0.1:3131")]
            if bc is not None:
                cols.append(("base", "127.0.0.1:3128"))

        def client(name, args):
            if name == "sboxd":
                return st.inside(args)
            if name == "base":
                return st.inside(args, c=bc, sid=bsid)
            if name == "base-ns":
                return st.outside(args, basepid)
            return st.outside(args, nspid if name == "sboxd-ns" else None)
        bulk = {c: [] for c, _ in cols}
        lat = {c: [] for c, _ in cols}        # every tunnel's time
        lat_r = {c: [] for c, _ in cols}      # each round's median
        per_round = max(1, LAT_N // ROUNDS)
        # interleaved rounds, so a busy moment of the machine is shared
        for r in range(ROUNDS):
            for name, proxy in cols:
                args = [proxy or "-", NAME, st.addr, str(st.ports[0]),
                        str(st.ports[1])]
                bulk[name].append(client(name, ["bulk"] + args +
                                         [str(BULK_BYTES)])["mb_s"])
                us = client(name, ["latency"] + args +
                            [str(per_round)])["us"]
                lat[name] += us
                lat_r[name].append(med(us))
        mb = {c: med(bulk[c]) for c, _ in cols}
        us = {c: med(lat[c]) for c, _ in cols}
        p90 = {c: med(lat[c], 0.9) for c, _ in cols}
        # a column's ratio: the median of its rounds' ratios to direct
        mb_x = {c: med([bulk[c][r] / bulk["direct"][r]
                        for r in range(ROUNDS)]) for c, _ in cols}
        us_x = {c: med([lat_r[c][r] / lat_r["direct"][r]
                        for r in range(ROUNDS)]) for c, _ in cols}
        names = [c for c, _ in cols]
        row = "   %-30s" + " %10s" * len(cols)
        num = "   %-30s" + " %10.0f" * len(cols)
        rat = "   %-30s" + " %10.2f" * len(cols)
        print("   upstream %s (%s), %d CPUs; %d rounds, each a transfer "
              "of %d MB and %d new tunnels per column; load average %.1f "
              "%.1f %.1f (a busy machine makes the figures noisy)" % (
                  st.addr, "own network namespace" if root else
                  "an address of this computer; run as a user",
                  os.cpu_count(), ROUNDS, BULK_BYTES >> 20, per_round,
                  *os.getloadavg()))
        print(row % ("", *names))
        print(num % ("bulk throughput MB/s", *[mb[c] for c in names]))
        print(rat % ("  x direct", *[mb_x[c] for c in names]))
        print(num % ("new tunnel + 1st byte, us", *[us[c] for c in names]))
        print(num % ("  p90 us", *[p90[c] for c in names]))
        print(rat % ("  x direct", *[us_x[c] for c in names]))
        for c in [n for n in ("sboxd", "sboxd-ns", "base-ns", "base")
                  if n in mb]:
            line = ("   %-9s new tunnel %.2fx direct (goal <= %.1f: %s); "
                    "bulk %.2fx direct (goal >= %.1f: %s)" % (
                        c, us_x[c], GOAL_TUNNEL,
                        "met" if us_x[c] <= GOAL_TUNNEL else "not met",
                        mb_x[c], GOAL_BULK,
                        "met" if mb_x[c] >= GOAL_BULK else "not met"))
            if "squid" in mb:
                line += "; %.2fx squid's throughput, %.2fx tinyproxy's" % (
                    mb[c] / mb["squid"], mb[c] / mb["tinyproxy"])
            # the floor's own rounds against this column's, side by side
            line += "; new tunnel %.2fx the floor's" % med(
                [lat_r[c][r] / lat_r["floor"][r] for r in range(ROUNDS)])
            print(line)
        print("   floor     new tunnel %.2fx direct, bulk %.2fx direct: the "
              "least a CONNECT proxy costs here (bin/bench/connect-floor: "
              "no policy, log or resolver)" % (us_x["floor"], mb_x["floor"]))
        # issue 38's goal rows, one a line for scripts: sboxd over the
        # floor, the medians of the per-round ratios (side by side)
        who = "root" if root else "user"
        for c in [n for n in ("sboxd", "sboxd-ns") if n in mb]:
            t = med([lat_r[c][r] / lat_r["floor"][r] for r in range(ROUNDS)])
            b = med([bulk[c][r] / bulk["floor"][r] for r in range(ROUNDS)])
            print("bench: proxy-tunnel-%s-%s %.2fx goal <=%.2fx %s" % (
                c, who, t, GOAL_FLOOR_TUNNEL,
                "met" if t <= GOAL_FLOOR_TUNNEL else "unmet"))
            print("bench: proxy-bulk-%s-%s %.2fx goal >=%.2fx %s" % (
                c, who, b, GOAL_FLOOR_BULK,
                "met" if b >= GOAL_FLOOR_BULK else "unmet"))
        # memory with HOLD_N open tunnels
        pid = st.daemon.proc.pid
        before = rss_kb(pid)
        ready = os.path.join(st.project, "hold.ready")
        done = os.path.join(st.project, "hold.done")
        # a session's proxy holds at most its share of sboxd's descriptors
        # (the hard limit may be below what 5,000 tunnels need): ask for
        # what it takes, rather than wait for tunnels it refuses
        share = st.c.call("rpc.hello", {"protocol": 1})["limits"][
            "proxy_max_connections"]
        hold_n = min(HOLD_N, share - 8)
        if hold_n < HOLD_N:
            print("   (%d tunnels, not %d: a session's proxy holds %d "
                  "connections with this descriptor limit)" % (
                      hold_n, HOLD_N, share))
        st.inside(["hold", "127.0.0.1:3128", NAME, st.addr,
                   str(st.ports[0]), str(st.ports[1]), str(hold_n),
                   ready, done], detach=True)
        end = time.time() + 300
        while not os.path.exists(ready) and time.time() < end:
            time.sleep(0.1)
        if not os.path.exists(ready):
            raise RuntimeError("the tunnels did not open")
        time.sleep(0.5)
        with open(ready) as f:
            held = json.load(f)
        if "error" in held:
            raise RuntimeError("the tunnels did not open: %s" % held["error"])
        during = rss_kb(pid)
        with open(done, "w"):
            pass
        print("   sboxd RSS: %.1f MB idle, %.1f MB with %d open tunnels "
              "(%.1f KB per tunnel; opened in %.2f s)" % (
                  before / 1024, during / 1024, held["open"],
                  (during - before) / max(1, held["open"]), held["open_s"]))
        return 0
    finally:
        st.close()


if __name__ == "__main__":
    if sys.argv[1] == "upstream":
        upstream_main(sys.argv[2:])
    elif sys.argv[1] == "client":
        client_main(sys.argv[2:])
    else:
        sys.exit(run_main())
