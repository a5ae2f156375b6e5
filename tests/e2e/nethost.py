"""nethost: the network tests' own remote hosts, and the probe that runs
inside a sandbox.

RemoteHost makes a network namespace (sboxe-<pid>-N) joined to this one by
a veth pair on 192.168.231.X/29, gives the far end two addresses (a, b) and
runs `nethost.py serve` inside it: an HTTP server on port 80 (its answer
names the Host header, the address it was reached on and the body length),
a TLS-less "https" echo on port 443, an ssh-like echo on port 22 (a banner,
then echo) and a DNS server on UDP 53 that answers from a table and logs
every name it is asked. Nothing is sent anywhere but the veth pair and
loopback. Needs root.

`nethost.py probe ...` is copied into the sandbox's project folder and run
there (python3 inside the sandbox); see probe_main.
"""
import base64
import json
import os
import socket
import socketserver
import struct
import subprocess
import sys
import threading
import time

SUBNET = "192.168.231"
_counter = [0]


def _ip(*args, check=True):
    return subprocess.run(["ip"] + list(args), capture_output=True,
                          check=check, timeout=30)


class RemoteHost:
    """A namespace with two addresses and the upstream servers."""

    def __init__(self, workdir, dns_table=None):
        self.workdir = workdir
        self.ns = None
        self.proc = None
        _counter[0] += 1
        n = _counter[0]
        self.ns = "sboxe-%d-%d" % (os.getpid(), n)
        tag = "%d%d" % (os.getpid() % 100000, n)
        self.veth_a, self.veth_b = "sbe%sa" % tag, "sbe%sb" % tag
        self.log = os.path.join(workdir, "%s.log" % self.ns)
        self.dns_log = os.path.join(workdir, "%s.dns" % self.ns)
        self.table = os.path.join(workdir, "%s.table" % self.ns)
        with open(self.table, "w") as f:
            json.dump(dns_table or {}, f)
        try:
            self._up()
        except BaseException:
            self.close()
            raise

    def _free_slot(self):
        used = _ip("-4", "-o", "addr", "show").stdout.decode()
        start = os.getpid() % 32
        for i in range(32):
            k = (start + i) % 32
            if "%s.%d/" % (SUBNET, 8 * k + 1) not in used:
                return k
        raise RuntimeError("no free %s.0/24 slot" % SUBNET)

    def _up(self):
        k = self._free_slot()
        base = 8 * k
        self.here = "%s.%d" % (SUBNET, base + 1)
        self.a = "%s.%d" % (SUBNET, base + 2)
        self.b = "%s.%d" % (SUBNET, base + 3)
        _ip("netns", "add", self.ns)
        _ip("link", "add", self.veth_a, "type", "veth", "peer", "name",
            self.veth_b)
        _ip("link", "set", self.veth_b, "netns", self.ns)
        _ip("addr", "add", self.here + "/29", "dev", self.veth_a)
        _ip("link", "set", self.veth_a, "up")
        for a in (self.a, self.b):
            _ip("-n", self.ns, "addr", "add", a + "/29", "dev", self.veth_b)
        _ip("-n", self.ns, "link", "set", self.veth_b, "up")
        _ip("-n", self.ns, "link", "set", "lo", "up")
        logf = open(os.path.join(self.workdir, "%s.out" % self.ns), "ab")
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", self.ns, sys.executable,
             os.path.abspath(__file__), "serve", self.log, self.dns_log,
             self.table], stdin=subprocess.DEVNULL, stdout=logf, stderr=logf)
        logf.close()
        end = time.time() + 10
        while True:
            try:
                socket.create_connection((self.a, 443), timeout=1).close()
                break
            except OSError:
                if time.time() > end or self.proc.poll() is not None:
                    raise RuntimeError("the namespace's servers did not start")
                time.sleep(0.05)

    def requests(self):
        """Request lines the HTTP server saw (with Host), oldest first."""
        try:
            with open(self.log) as f:
                return [json.loads(x) for x in f if x.strip()]
        except OSError:
            return []

    def dns_queries(self):
        """Names the DNS server was asked, oldest first."""
        try:
            with open(self.dns_log) as f:
                return [x.strip() for x in f if x.strip()]
        except OSError:
            return []

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.ns is not None:
            _ip("netns", "del", self.ns, check=False)
            _ip("link", "del", self.veth_a, check=False)


# ------------------------------------------------------------ the servers

class _Http(socketserver.ThreadingMixIn, socketserver.TCPServer):
    allow_reuse_address = True
    daemon_threads = True


def _append(path, line):
    with open(path, "a") as f:
        f.write(line + "\n")


def _serve_http(log):
    class H(socketserver.StreamRequestHandler):
        def handle(self):
            while True:
                line = self.rfile.readline(65536)
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    continue
                head = {}
                while True:
                    h = self.rfile.readline(65536)
                    if h in (b"\r\n", b"\n", b""):
                        break
                    k, _, v = h.decode("latin-1").partition(":")
                    head[k.strip().lower()] = v.strip()
                n = int(head.get("content-length", "0") or 0)
                body = self.rfile.read(n) if n else b""
                req = {"line": line.decode("latin-1").strip(),
                       "host": head.get("host"),
                       "local": self.connection.getsockname()[0],
                       "body": len(body),
                       "headers": sorted(head)}
                _append(log, json.dumps(req))
                out = json.dumps(req).encode()
                close = head.get("connection", "").lower() == "close"
                self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: "
                                 b"application/json\r\nContent-Length: %d\r\n"
                                 b"%s\r\n" % (len(out), b"Connection: close\r\n"
                                              if close else b"") + out)
                self.wfile.flush()
                if close:
                    return
    s = _Http(("0.0.0.0", 80), H)
    threading.Thread(target=s.serve_forever, daemon=True).start()


def _serve_echo(port, banner):
    class H(socketserver.BaseRequestHandler):
        def handle(self):
            if banner:
                self.request.sendall(banner)
            while True:
                d = self.request.recv(65536)
                if not d:
                    return
                self.request.sendall(d)
    s = _Http(("0.0.0.0", port), H)
    threading.Thread(target=s.serve_forever, daemon=True).start()


def _dns_answer(q, table):
    """A DNS answer for query q from table {name: [addresses]}."""
    qid, flags, qd = struct.unpack(">HHH", q[:6])
    i, labels = 12, []
    while q[i] != 0:
        labels.append(q[i + 1:i + 1 + q[i]].decode("ascii", "replace"))
        i += 1 + q[i]
    qtype, = struct.unpack(">H", q[i + 1:i + 3])
    question = q[12:i + 5]
    name = ".".join(labels).lower()
    answers = []
    for a in table.get(name, []):
        fam = socket.AF_INET6 if ":" in a else socket.AF_INET
        t = 28 if fam == socket.AF_INET6 else 1
        if t == qtype:
            rd = socket.inet_pton(fam, a)
            answers.append(b"\xc0\x0c" + struct.pack(">HHIH", t, 1, 5, len(rd))
                           + rd)
    rcode = 0 if name in table else 3
    hdr = struct.pack(">HHHHHH", qid, 0x8180 | rcode, 1, len(answers), 0, 0)
    return name, hdr + question + b"".join(answers)


def _serve_dns(log, table_path):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", 53))

    def loop():
        while True:
            q, peer = s.recvfrom(4096)
            try:
                with open(table_path) as f:
                    table = json.load(f)
                name, ans = _dns_answer(q, table)
            except Exception:   # a malformed query: ignore it
                continue
            _append(log, name)
            s.sendto(ans, peer)
    threading.Thread(target=loop, daemon=True).start()


def serve_main(log, dns_log, table):
    _serve_http(log)
    _serve_echo(443, b"")
    _serve_echo(22, b"SSH-2.0-sboxe\r\n")
    _serve_dns(dns_log, table)
    while True:
        time.sleep(3600)


# ------------------------------------------------------------ the probe

PROXY = ("127.0.0.1", 3128)


def _recv_response(s):
    """One HTTP response (head + Content-Length body), or what came before
    the connection closed."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            return buf
        buf += d
    head, _, rest = buf.partition(b"\r\n\r\n")
    n = 0
    for h in head.split(b"\r\n")[1:]:
        k, _, v = h.partition(b":")
        if k.strip().lower() == b"content-length":
            n = int(v.strip())
    while len(rest) < n:
        d = s.recv(65536)
        if not d:
            break
        rest += d
    return head + b"\r\n\r\n" + rest


def _bytes(arg):
    """A probe argument: base64, or @PATH for the bytes of a file."""
    if arg.startswith("@"):
        with open(arg[1:], "rb") as f:
            return f.read()
    return base64.b64decode(arg)


def _closed(s):
    """Has the proxy closed (its side of) the connection within a second?"""
    s.settimeout(1)
    try:
        return s.recv(1) == b""
    except socket.timeout:
        return False
    except OSError:
        return True


def probe_main(args):
    """Modes (each prints one JSON object):
    (a DATA_B64 argument may be @PATH: the bytes of that file)
    http REQ_B64...       send each request on one connection to the proxy,
                          read one response after each; responses + closed
    raw DATA_B64          send bytes, read until close; answer + closed
    connect HOST:PORT DATA  CONNECT, then send DATA and read it back
    socks HOST PORT DATA  SOCKS5 with a domain name, then DATA
    direct ADDR PORT      a plain connection (ignoring the proxy)
    tcp PORT DATA         a plain connection to 127.0.0.1:PORT, echo DATA
    flood N HOST          N requests for HOST, each on a new connection;
                          the count of 403 answers and the seconds taken
    cap N                 hold N idle connections to the proxy; is one more
                          closed at once? and after one is freed?
    """
    mode, rest = args[0], args[1:]
    out = {}
    try:
        if mode == "http":
            s = socket.create_connection(PROXY, timeout=10)
            out["responses"] = []
            for r in rest:
                s.sendall(_bytes(r))
                out["responses"].append(_recv_response(s).decode("latin-1"))
            out["closed"] = _closed(s)
        elif mode == "raw":
            s = socket.create_connection(PROXY, timeout=10)
            try:
                s.sendall(_bytes(rest[0]))
            except OSError as e:    # the proxy answered before the end
                out["send_error"] = str(e)
            buf = b""
            while True:
                try:
                    d = s.recv(65536)
                except OSError as e:
                    out["recv_error"] = str(e)
                    break
                if not d:
                    break
                buf += d
            out["answer"] = buf.decode("latin-1")
            out["closed"] = True
        elif mode == "connect":
            s = socket.create_connection(PROXY, timeout=10)
            s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" %
                      (rest[0].encode(), rest[0].encode()))
            head = _recv_response(s).decode("latin-1")
            out["head"] = head
            if head.startswith("HTTP/1.1 200"):
                s.sendall(rest[1].encode())
                got = b""
                while len(got) < len(rest[1]):
                    d = s.recv(65536)
                    if not d:
                        break
                    got += d
                out["echo"] = got.decode("latin-1")
        elif mode == "socks":
            s = socket.create_connection(PROXY, timeout=10)
            s.sendall(b"\x05\x01\x00")
            out["method"] = s.recv(2).hex()
            h = rest[0].encode()
            s.sendall(b"\x05\x01\x00\x03" + bytes([len(h)]) + h +
                      struct.pack(">H", int(rest[1])))
            rep = b""
            while len(rep) < 10:
                d = s.recv(10 - len(rep))
                if not d:
                    break
                rep += d
            out["reply"] = rep[1] if len(rep) > 1 else None
            if out["reply"] == 0:
                out["banner"] = s.recv(100).decode("latin-1")
                s.sendall(rest[2].encode())
                out["echo"] = s.recv(100).decode("latin-1")
        elif mode == "direct":
            fam = socket.AF_INET6 if ":" in rest[0] else socket.AF_INET
            s = socket.socket(fam, socket.SOCK_STREAM)
            s.settimeout(5)
            try:
                s.connect((rest[0], int(rest[1])))
                out["connected"] = True
            except OSError as e:
                out["connected"] = False
                out["errno"] = e.errno
                out["error"] = os.strerror(e.errno) if e.errno else str(e)
        elif mode == "flood":
            req = ("GET http://%s/ HTTP/1.1\r\n\r\n" % rest[1]).encode()
            t0, refused = time.time(), 0
            for _ in range(int(rest[0])):
                s = socket.create_connection(PROXY, timeout=10)
                s.sendall(req)
                refused += _recv_response(s).startswith(b"HTTP/1.1 403 ")
                s.close()
            out = {"refused": refused, "seconds": time.time() - t0}
        elif mode == "cap":
            held = [socket.create_connection(PROXY, timeout=5)
                    for _ in range(int(rest[0]))]
            time.sleep(0.5)

            def shut():
                s = socket.create_connection(PROXY, timeout=2)
                try:
                    return s.recv(1) == b""
                except socket.timeout:
                    return False
                except OSError:
                    return True
            out["over_closed"] = shut()
            held.pop().close()
            time.sleep(0.5)
            out["after_free_closed"] = shut()
        elif mode == "tcp":
            try:
                s = socket.create_connection(("127.0.0.1", int(rest[0])),
                                             timeout=5)
                s.sendall(rest[1].encode())
                out["echo"] = s.recv(100).decode("latin-1")
                out["connected"] = True
            except OSError as e:
                out["connected"] = False
                out["error"] = str(e)
    except OSError as e:
        out["oserror"] = str(e)
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve_main(*sys.argv[2:5])
    elif sys.argv[1] == "probe":
        probe_main(sys.argv[2:])
