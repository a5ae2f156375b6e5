"""End-to-end tests of the network path (issue 5): commands inside a
sandboxed session reach hosts only through the session's proxy on
127.0.0.1:3128, which lets through exactly the allowed hosts.

The remote hosts are the test's own (tests/e2e/nethost.py): a network
namespace per test, joined by a veth pair on 192.168.231.X/29, with an HTTP
server, a TLS-less "https" echo, an ssh-like echo and a DNS server; names
point at them through the config's `resolve` table (and `private_hosts`,
since they are private addresses). For those tests sboxd runs in a private
mount namespace whose /etc/resolv.conf names the namespace's DNS server, so
the test sees every name sboxd resolves and no query leaves the machine.
They need root; the rest (refusals, address rules, IP literal spellings,
smuggling shapes, the direct connection, local_ports, allow-host, records
and events, network none) also run as an unprivileged user and never
connect anywhere: every allowed name there resolves to an address the proxy
refuses, or is refused before it is resolved."""
import base64
import json
import os
import shutil
import socket
import subprocess
import threading

import nethost
import sboxtest
from sboxtest import Skip, is_root, wait_for

ALLOWED = ["up-a.test", "up-b.test", "dns-ok.test", "dns-loop.test",
           "loop.test", "meta.test", "ten.test", "v6loop.test", "ula.test",
           "cgnat.test", "mapped.test", "meta-private.test",
           "loop-private.test"]
NONPUBLIC = {
    "loop.test": ["127.0.0.1"],
    "meta.test": ["169.254.169.254"],
    "ten.test": ["10.1.2.3"],
    "v6loop.test": ["::1"],
    "ula.test": ["fd00::1"],
    "cgnat.test": ["100.64.0.1"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "meta-private.test": ["169.254.169.254"],
    "loop-private.test": ["127.0.0.2"],
}


def need_root():
    if not is_root():
        raise Skip("needs root to create network namespaces")


def b64(s):
    return base64.b64encode(s if isinstance(s, bytes) else s.encode()).decode()


class Net:
    """A private sboxd with a custom profile `net`, one session, and helpers
    to run commands and probes inside it."""

    def __init__(self, ctx, remote=None, profile=None, config=None,
                 sandbox="net", daemon_args=()):
        self.ctx = ctx
        self.remote = remote
        resolve = dict(NONPUBLIC)
        # Outside a namespace the test hosts' names point at a metadata
        # address: allowed by the list, refused by the address rule, so
        # nothing is ever sent.
        fake = ["169.254.169.254"]
        resolve["up-a.test"] = [remote.a] if remote else fake
        resolve["up-b.test"] = [remote.b] if remote else fake
        resolve["listed-not-allowed.test"] = [remote.a] if remote else fake
        prof = {"extends": "workspace", "network": "registries",
                "hosts": list(ALLOWED),
                "private_hosts": ["up-a.test", "up-b.test", "dns-ok.test",
                                  "meta-private.test", "loop-private.test"]}
        prof.update(profile or {})
        cfg = {"sandbox": {"profiles": {"net": prof}}, "resolve": resolve}
        cfg.update(config or {})
        self.d = ctx.daemon(cfg, start=False)
        if remote is not None:
            self._in_mount_ns()
        self.d.start(extra=daemon_args)
        self.c = self.d.client()
        self.project = ctx.tmp
        self.probe_path = os.path.join(self.project, "nethost.py")
        shutil.copy(nethost.__file__, self.probe_path)
        os.chmod(self.probe_path, 0o644)
        self.sid = self.c.call("session.create", {
            "project": self.project, "sandbox": sandbox})["session"]

    def _in_mount_ns(self):
        """Run sboxd with /etc/resolv.conf naming the namespace's DNS."""
        conf = os.path.join(self.d.root, "resolv.conf")
        with open(conf, "w") as f:
            f.write("nameserver %s\noptions timeout:2 attempts:1\n" %
                    self.remote.a)
        os.chmod(conf, 0o644)
        orig = self.d.args

        def args():
            return ["unshare", "-m", "--propagation", "private", "sh", "-c",
                    'mount --bind "$0" /etc/resolv.conf && exec "$@"',
                    conf] + orig()
        self.d.args = args

    def run(self, argv, timeout=60):
        """Run argv in the session; the result with stdout/stderr decoded."""
        r = self.c.call("command.exec", {"session": self.sid, "argv": argv,
                                         "timeout": timeout})
        for k in ("stdout", "stderr"):
            r[k] = base64.b64decode(r.get(k) or "").decode(errors="replace")
        return r

    def sh(self, script, timeout=60):
        return self.run(["sh", "-c", script], timeout)

    def probe(self, *args):
        r = self.run(["python3", self.probe_path, "probe"] + list(args))
        assert r["exit_code"] == 0, r
        return json.loads(r["stdout"])

    def file(self, name, data):
        """Write data into the project folder; the probe's @PATH argument."""
        path = os.path.join(self.project, name)
        with open(path, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.chmod(path, 0o644)
        return "@" + path

    def http(self, *requests):
        """Requests on one connection to the proxy, from inside."""
        return self.probe("http", *[b64(x) for x in requests])

    def curl(self, *args):
        """curl inside the sandbox: (exit code, stdout, stderr)."""
        r = self.run(["curl", "-sS", "-m", "20"] + list(args))
        return r["exit_code"], r["stdout"], r["stderr"]


def refused_header(answer):
    for ln in answer.split("\r\n"):
        if ln.lower().startswith("x-sbox-refused:"):
            return ln.split(":", 1)[1].strip()
    return None


def get(host, path="/", extra=""):
    return "GET http://%s%s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (
        host, path, host, extra)


def assert_refused(answer, *words):
    assert answer.startswith("HTTP/1.1 403 Forbidden\r\n"), answer
    h = refused_header(answer)
    assert h, answer
    for w in words:
        assert w in answer, "%r not in %r" % (w, answer)
    return h


def with_remote(ctx, fn, dns_table=None):
    need_root()
    remote = nethost.RemoteHost(ctx.tmp, dns_table)
    try:
        fn(remote)
    finally:
        remote.close()


# ------------------------------------------------------------ allowed hosts

def test_allowed_connect_http_socks(ctx):
    def body(remote):
        n = Net(ctx, remote)
        # absolute-form HTTP through HTTP_PROXY (set in the session's env)
        rc, out, err = n.curl("http://up-a.test/abs?x=1")
        assert rc == 0, err
        seen = json.loads(out)
        assert seen["line"] == "GET /abs?x=1 HTTP/1.1", seen
        assert seen["host"] == "up-a.test" and seen["local"] == remote.a, seen
        assert "proxy-connection" not in seen["headers"], seen
        # CONNECT (curl -p tunnels even an http:// URL)
        rc, out, err = n.curl("-p", "http://up-b.test/tunnel")
        assert rc == 0, err
        seen = json.loads(out)
        assert seen["line"] == "GET /tunnel HTTP/1.1", seen
        assert seen["local"] == remote.b, seen
        # SOCKS5 with the name resolved by the proxy
        rc, out, err = n.curl("--socks5-hostname", "127.0.0.1:3128",
                              "http://up-a.test/socks")
        assert rc == 0, err
        assert json.loads(out)["line"] == "GET /socks HTTP/1.1", out
        # the TLS-less "https" echo through CONNECT, the ssh-like one
        # through SOCKS5
        p = n.probe("connect", "up-a.test:443", "hello through CONNECT")
        assert p["head"].startswith("HTTP/1.1 200"), p
        assert p["echo"] == "hello through CONNECT", p
        p = n.probe("socks", "up-b.test", "22", "ssh-ish")
        assert p["reply"] == 0, p
        assert p["banner"].startswith("SSH-2.0-sboxe"), p
        assert p["echo"] == "ssh-ish", p
        # python's urllib honours the proxy variables too
        r = n.run(["python3", "-c", "import urllib.request as u; print(u."
                   "urlopen('http://up-b.test/py', timeout=10).read()."
                   "decode())"])
        assert r["exit_code"] == 0, r
        assert json.loads(r["stdout"])["line"] == "GET /py HTTP/1.1", r
        # nothing was resolved through DNS: every name is in the table
        assert remote.dns_queries() == [], remote.dns_queries()
    with_remote(ctx, body)


def test_dns_resolution_and_refused_never_resolved(ctx):
    def body(remote):
        n = Net(ctx, remote)
        # an allowed name outside the resolve table goes to DNS (evdns)
        rc, out, err = n.curl("http://dns-ok.test/viadns")
        assert rc == 0, err
        assert json.loads(out)["host"] == "dns-ok.test", out
        assert "dns-ok.test" in remote.dns_queries(), remote.dns_queries()
        # an allowed name whose DNS answer is loopback: the address rule
        p = n.http(get("dns-loop.test"))
        h = assert_refused(p["responses"][0], "non-public addresses")
        assert "loopback" in h, h
        # refused names are never resolved: not by DNS ...
        before = list(remote.dns_queries())
        for port in ("80", "443"):
            p = n.http(get("secret.test:" + port))
            assert_refused(p["responses"][0], "network allowlist")
        p = n.probe("connect", "secret.test:443", "x")
        assert_refused(p["head"], "network allowlist")
        p = n.probe("socks", "secret.test", "22", "x")
        assert p["reply"] == 2, p
        # ... nor through the resolve table (refused by the list, not by
        # its address)
        p = n.http(get("listed-not-allowed.test"))
        assert_refused(p["responses"][0], "network allowlist",
                       "not in the allowlist")
        assert remote.dns_queries() == before, remote.dns_queries()
        assert not any(r["host"] in ("secret.test", "listed-not-allowed.test")
                       for r in remote.requests()), remote.requests()
    table = {"dns-ok.test": None, "dns-loop.test": ["127.0.0.1"],
             "secret.test": None}
    need_root()
    remote = nethost.RemoteHost(ctx.tmp)
    try:
        table["dns-ok.test"] = [remote.a]
        table["secret.test"] = [remote.a]
        with open(remote.table, "w") as f:
            json.dump(table, f)
        body(remote)
    finally:
        remote.close()


def test_keepalive_second_request_checked(ctx):
    def body(remote):
        n = Net(ctx, remote)
        p = n.http(get("up-a.test", "/one"), get("up-b.test", "/two"),
                   get("up-a.test", "/three"), get("secret.test", "/four"))
        r = p["responses"]
        assert r[0].startswith("HTTP/1.1 200"), r
        assert r[1].startswith("HTTP/1.1 200"), r
        assert r[2].startswith("HTTP/1.1 200"), r
        assert_refused(r[3], "secret.test")
        assert p["closed"], p
        seen = [(x["line"], x["host"], x["local"]) for x in remote.requests()]
        assert seen == [("GET /one HTTP/1.1", "up-a.test", remote.a),
                        ("GET /two HTTP/1.1", "up-b.test", remote.b),
                        ("GET /three HTTP/1.1", "up-a.test", remote.a)], seen
    with_remote(ctx, body)


# ------------------------------------------------------------ refusals

def test_refused_host(ctx):
    n = Net(ctx)
    rc, out, err = n.curl("-i", "http://secret.test/")
    assert rc == 0, err
    h = assert_refused(out, "secret.test", "network allowlist",
                       "sbox session allow-host %s secret.test" % n.sid)
    assert h == "secret.test is not in the allowlist of profile net", h
    rc, out, err = n.curl("-p", "https://secret.test/")
    assert rc != 0 and "403" in err, (rc, err)
    # a name that is in the resolve table but not in the allowlist is
    # refused by the list (before its address is looked at)
    p = n.http(get("listed-not-allowed.test"))
    assert_refused(p["responses"][0], "network allowlist")
    assert p["closed"], p


def test_nonpublic_addresses(ctx):
    n = Net(ctx)
    want = {"loop.test": "loopback", "meta.test": "metadata",
            "ten.test": "private", "v6loop.test": "loopback",
            "ula.test": "", "cgnat.test": "", "mapped.test": "loopback",
            "meta-private.test": "metadata",
            "loop-private.test": "loopback"}
    for host, word in sorted(want.items()):
        p = n.http(get(host))
        h = assert_refused(p["responses"][0], "non-public addresses")
        assert host in h and word in h, (host, h)
        assert NONPUBLIC[host][0].split("::ffff:")[-1] in h or \
            NONPUBLIC[host][0] in h, (host, h)
    # the same through CONNECT and SOCKS5
    p = n.probe("connect", "meta.test:443", "x")
    assert_refused(p["head"], "169.254.169.254")
    p = n.probe("socks", "ula.test", "22", "x")
    assert p["reply"] == 2, p
    # private_hosts lets a listed name use a private address, never
    # loopback or metadata (asserted above with *-private.test); the
    # listed test names outside a namespace point at metadata: refused
    p = n.http(get("up-a.test"))
    assert_refused(p["responses"][0], "metadata")


def test_ip_literal_spellings(ctx):
    n = Net(ctx, profile={"network": "internet", "hosts": []})
    for target in ("2130706433", "0x7f.1", "127.1", "0177.0.0.1",
                   "[::ffff:7f00:1]", "[::1]", "169.254.169.254",
                   "0xa9fea9fe", "[::ffff:a9fe:a9fe]"):
        p = n.http("GET http://%s/ HTTP/1.1\r\n\r\n" % target)
        h = assert_refused(p["responses"][0], "non-public addresses")
        assert "address" in h, (target, h)
        p = n.probe("connect", target + ":443", "x")
        assert_refused(p["head"], "non-public addresses")
    p = n.probe("socks", "127.1", "22", "x")
    assert p["reply"] == 2, p
    # with the allowlist, a literal is matched by its canonical form and
    # still classified
    n2 = Net(ctx, profile={"hosts": ["127.0.0.1"]})
    p = n2.http("GET http://2130706433/ HTTP/1.1\r\n\r\n")
    assert_refused(p["responses"][0], "non-public addresses", "loopback")
    p = n2.http("GET http://127.0.0.2/ HTTP/1.1\r\n\r\n")
    assert_refused(p["responses"][0], "network allowlist")


def test_host_header_mismatch(ctx):
    n = Net(ctx)
    p = n.http("GET http://up-a.test/ HTTP/1.1\r\nHost: secret.test\r\n\r\n")
    h = assert_refused(p["responses"][0], "Host header check")
    assert "Host" in h, h
    assert p["closed"], p
    p = n.http("GET http://up-a.test/ HTTP/1.1\r\nHost: up-a.test:8080\r\n\r\n")
    assert_refused(p["responses"][0], "Host header check")
    p = n.http("CONNECT up-a.test:443 HTTP/1.1\r\nHost: secret.test:443\r\n\r\n")
    assert_refused(p["responses"][0], "Host header check")


SMUGGLING = {
    "CL+TE": "POST http://up-a.test/ HTTP/1.1\r\nHost: up-a.test\r\n"
             "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
             "0\r\n\r\n",
    "duplicate CL": "POST http://up-a.test/ HTTP/1.1\r\nHost: up-a.test\r\n"
                    "Content-Length: 4\r\nContent-Length: 5\r\n\r\nabcde",
    "bare LF": "GET http://up-a.test/ HTTP/1.1\nHost: up-a.test\n\n",
    "unknown TE": "POST http://up-a.test/ HTTP/1.1\r\nHost: up-a.test\r\n"
                  "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
    "TE identity": "POST http://up-a.test/ HTTP/1.1\r\nHost: up-a.test\r\n"
                   "Transfer-Encoding: identity\r\n\r\n",
    "obs-fold": "GET http://up-a.test/ HTTP/1.1\r\nHost: up-a.test\r\n"
                "X-A: 1\r\n  folded\r\n\r\n",
    "space before colon": "GET http://up-a.test/ HTTP/1.1\r\nHost: up-a.test\r\n"
                          "Content-Length : 0\r\n\r\n",
}


def check_smuggling(n, remote):
    for name, req in sorted(SMUGGLING.items()):
        p = n.probe("raw", b64(req))
        a = p["answer"]
        assert a.startswith("HTTP/1.1 400 Bad Request\r\n"), (name, a)
        assert refused_header(a) is None, (name, a)
        assert p["closed"], (name, p)
    # an over-long header: refused with 431 (a 4xx that names the cause)
    big = "GET http://up-a.test/ HTTP/1.1\r\nHost: up-a.test\r\nX-Big: %s" \
          "\r\n\r\n" % ("a" * 200000)
    p = n.probe("raw", n.file("big.req", big))
    assert p["answer"].startswith("HTTP/1.1 431 "), p
    assert "send_error" not in p and "recv_error" not in p, p
    many = "GET http://up-a.test/ HTTP/1.1\r\nHost: up-a.test\r\n" + \
        "".join("X-H%d: 1\r\n" % i for i in range(2000)) + "\r\n"
    p = n.probe("raw", n.file("many.req", many))
    assert p["answer"].startswith("HTTP/1.1 431 "), p["answer"][:200]
    # a smuggling request after a good one on the same connection
    if remote is not None:
        p = n.http(get("up-a.test", "/ok"), SMUGGLING["CL+TE"])
        assert p["responses"][0].startswith("HTTP/1.1 200"), p
        assert p["responses"][1].startswith("HTTP/1.1 400"), p
        assert p["closed"], p
        lines = [x["line"] for x in remote.requests()]
        assert lines == ["GET /ok HTTP/1.1"], lines


def test_smuggling_shapes(ctx):
    if not is_root():
        check_smuggling(Net(ctx), None)
        return
    with_remote(ctx, lambda remote: check_smuggling(Net(ctx, remote), remote))


def test_direct_connection_has_no_route(ctx):
    def check(n, targets):
        for addr, port in targets:
            p = n.probe("direct", addr, str(port))
            assert p["connected"] is False, (addr, p)
            assert p["errno"] in (101, 113, 111), (addr, p)   # no route
    if is_root():
        def body(remote):
            n = Net(ctx, remote)
            # the proxy reaches it ...
            rc, out, err = n.curl("http://up-a.test/")
            assert rc == 0, err
            # ... a direct connection does not
            check(n, [(remote.a, 80), (remote.b, 443)])
            p = n.probe("direct", remote.a, "80")
            assert p["errno"] == 101, p     # ENETUNREACH: only lo is up
        with_remote(ctx, body)
    else:
        n = Net(ctx)
        check(n, [("192.168.231.2", 80), ("fd00::1", 80)])
    # and with the proxy variables cleared, curl reaches nothing
    n = Net(ctx)
    r = n.sh("unset HTTP_PROXY http_proxy ALL_PROXY all_proxy; "
             "curl -sS -m 5 http://192.168.231.2/; echo rc=$?")
    assert "rc=0" not in r["stdout"], r


def test_local_ports(ctx):
    srv = [socket.socket(), socket.socket()]
    for s in srv:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        s.listen(8)
    port, other = srv[0].getsockname()[1], srv[1].getsockname()[1]
    stop = threading.Event()

    def serve(s):
        s.settimeout(0.2)
        while not stop.is_set():
            try:
                c, _ = s.accept()
            except OSError:
                continue
            with c:
                c.settimeout(5)
                try:
                    d = c.recv(100)
                    c.sendall(b"local:" + d)
                except OSError:
                    pass
    threads = [threading.Thread(target=serve, args=(s,), daemon=True)
               for s in srv]
    for t in threads:
        t.start()
    try:
        n = Net(ctx, profile={"local_ports": [port]})
        p = wait_for(lambda: (lambda q: q if q.get("connected") else None)(
            n.probe("tcp", str(port), "ping")), timeout=10,
            what="the local port forward")
        assert p["echo"] == "local:ping", p
        p = n.probe("tcp", str(other), "ping")
        assert p["connected"] is False, p
        # nor through the proxy: this computer's loopback is refused
        p = n.probe("connect", "127.0.0.1:%d" % other, "x")
        assert p["head"].startswith("HTTP/1.1 403"), p
        p = n.probe("connect", "localhost:%d" % port, "x")
        assert p["head"].startswith("HTTP/1.1 403"), p
    finally:
        stop.set()
        for t in threads:
            t.join()
        for s in srv:
            s.close()


def test_allow_host(ctx):
    def body(remote):
        n = Net(ctx, remote, profile={"hosts": []})
        p = n.http(get("up-a.test"))
        assert_refused(p["responses"][0], "network allowlist")
        r = n.d.cli("session", "allow-host", n.sid, "up-a.test")
        assert r.returncode == 0, r
        if remote is not None:
            rc, out, err = n.curl("http://up-a.test/now")
            assert rc == 0, err
            assert json.loads(out)["line"] == "GET /now HTTP/1.1", out
        else:
            # allowed by the list now; refused by the address rule instead
            p = n.http(get("up-a.test"))
            assert_refused(p["responses"][0], "non-public addresses")
        # still refused: a host not added
        p = n.http(get("up-b.test"))
        assert_refused(p["responses"][0], "network allowlist")
        # --save also writes it into the config's profile
        r = n.d.cli("session", "allow-host", n.sid, "up-b.test", "--save")
        assert r.returncode == 0, r
        with open(n.d.config) as f:
            cfg = json.load(f)
        assert "up-b.test" in cfg["sandbox"]["profiles"]["net"]["hosts"], cfg
        assert "up-a.test" not in cfg["sandbox"]["profiles"]["net"]["hosts"]
        # saved means in force: the daemon's config has it at once (new
        # sessions of the profile get it without a SIGHUP)
        shown = n.c.call("sandbox.show", {"profile": "net"})
        assert "up-b.test" in json.dumps(shown), shown
        p = n.http(get("up-b.test"))
        assert p["responses"][0].startswith("HTTP/1.1 200" if remote else
                                            "HTTP/1.1 403"), p
        # invalid patterns are refused; a workspace session cannot save
        e = n.c.error("session.allow_host", {"session": n.sid,
                                             "host": "bad host"})
        assert e.name == "sbox.InvalidParams" and e.field == "host", e
        sid2 = n.c.call("session.create", {"project": n.project,
                                           "sandbox": "workspace"})["session"]
        e = n.c.error("session.allow_host", {"session": sid2, "host": "x.test",
                                             "save": True})
        assert "workspace" in e.message, e
    if is_root():
        with_remote(ctx, body)
    else:
        body(None)


def hp(hosts):
    """blocked.hosts without their rule and reason."""
    return [{"host": h["host"], "port": h["port"]} for h in hosts]


def test_refusal_records_and_events(ctx):
    n = Net(ctx)
    ev = n.d.client()
    ev.call("events.subscribe", {"topics": ["host.refused"]})
    r = n.sh("curl -sS -m 10 -o /dev/null http://secret.test/a; "
             "curl -sS -m 10 -o /dev/null http://secret.test/b; "
             "curl -sS -m 10 -o /dev/null -p http://other.test:8443/; "
             "curl -sS -m 10 -o /dev/null http://meta.test/; true")
    assert r["exit_code"] == 0, r
    rules = {h["host"]: (h["rule"], h["reason"]) for h in r["blocked"]["hosts"]}
    assert rules["secret.test"][0] == "network allowlist", rules
    assert rules["meta.test"][0] == "non-public addresses", rules
    assert "metadata" in rules["meta.test"][1], rules
    hosts = hp(r["blocked"]["hosts"])
    assert {"host": "secret.test", "port": 80} in hosts, hosts
    assert {"host": "other.test", "port": 8443} in hosts, hosts
    assert {"host": "meta.test", "port": 80} in hosts, hosts
    assert len(hosts) == 3, hosts
    got = []
    for _ in range(4):
        e = ev.wait_notification("events.event", timeout=10)
        assert e["topic"] == "host.refused" and e["session"] == n.sid, e
        got.append(e["data"])
    assert [g["host"] for g in got] == ["secret.test", "secret.test",
                                         "other.test", "meta.test"], got
    assert all(g["command"] == r["command"] for g in got), got
    assert got[2]["port"] == 8443 and got[2]["rule"] == "network allowlist"
    assert got[3]["rule"] == "non-public addresses", got
    assert "metadata" in got[3]["reason"], got
    # the store: session.log's refused rows, grouped with counts
    log = n.c.call("session.log", {"session": n.sid})
    cmd = [x for x in log["commands"] if x["command"] == r["command"]][0]
    rows = {(x["host"], x["port"]): x for x in cmd["refused"]}
    assert rows[("secret.test", 80)]["count"] == 2, rows
    assert rows[("other.test", 8443)]["rule"] == "network allowlist", rows
    assert rows[("meta.test", 80)]["rule"] == "non-public addresses", rows
    sandbox_status(n, ["secret.test", "other.test", "meta.test"])
    # with two commands running the refusal is on both, and the event names
    # no command (it cannot tell which one asked)
    bg = n.c.call("command.exec", {"session": n.sid, "argv": ["sleep", "30"],
                                   "detach": True})["command"]
    r = n.sh("curl -sS -m 10 -o /dev/null http://both.test/; true")
    assert hp(r["blocked"]["hosts"]) == [{"host": "both.test", "port": 80}], r
    e = ev.wait_notification("events.event", timeout=10)
    assert e["data"]["host"] == "both.test", e
    assert e["data"]["command"] is None, e
    rb = n.c.call("command.read", {"command": bg})
    assert {"host": "both.test", "port": 80} in hp(rb["blocked"]["hosts"]), rb
    n.c.call("command.kill", {"command": bg, "signal": 9})


def sandbox_status(n, hosts):
    """sandbox.status, when the daemon has it: the refused hosts, newest
    first, with counts."""
    names = [m["name"] for m in n.c.call("rpc.hello", {"protocol": 1})
             ["methods"]]
    if "sandbox.status" not in names:
        return
    st = n.c.call("sandbox.status", {"session": n.sid})
    refused = st.get("refused") or st.get("refused_hosts") or []
    got = [x["host"] for x in refused]
    assert got[:len(hosts)] == list(reversed(hosts)), st
    counts = {x["host"]: x["count"] for x in refused}
    assert counts["secret.test"] == 2, st
    r = n.d.cli("sandbox", "status", "--session", n.sid)
    if b"unknown command" in r.stderr:
        return
    assert r.returncode == 0, r
    assert b"secret.test" in r.stdout, r


def test_network_none(ctx):
    n = Net(ctx, sandbox="strict")
    rc, out, err = n.curl("-i", "http://secret.test/")
    assert rc == 0, err
    h = assert_refused(out, "network: none")
    assert h == "network is off for profile strict", h
    p = n.probe("connect", "up-a.test:443", "x")
    assert_refused(p["head"], "network is off")
    p = n.probe("socks", "up-a.test", "22", "x")
    assert p["method"] == "0500" and p["reply"] == 2, p
    p = n.probe("direct", "192.168.231.2", "80")
    assert p["connected"] is False, p
    r = n.run(["sh", "-c", "curl -sS -m 5 -o /dev/null http://x.test/; true"])
    assert hp(r["blocked"]["hosts"]) == [{"host": "x.test", "port": 80}], r
    # the rule as the proxy gave it, in the result and on the CLI's stderr
    h = r["blocked"]["hosts"][0]
    assert h["rule"] != "network allowlist" and "off" in h["reason"], h
    c = n.d.cli("session", "exec", n.sid, "--", "sh", "-c",
                "curl -sS -m 5 -o /dev/null http://x.test/; true")
    line = [x for x in c.stderr.decode().split("\n") if "x.test" in x]
    assert line and h["rule"] in line[0] and "allowlist" not in line[0], c


def test_proxy_connection_cap(ctx):
    n = Net(ctx, daemon_args=["--proxy-max-conns", "8"])
    assert n.c.call("rpc.hello", {"protocol": 1})["limits"][
        "proxy_max_connections"] == 8
    p = n.probe("cap", "8")
    assert p == {"over_closed": True, "after_free_closed": False}, p
    assert "connection limit reached" in n.d.read_log()
    # the session still works once they are gone
    p = n.http(get("secret.test"))
    assert_refused(p["responses"][0], "network allowlist")


def test_refusal_flood(ctx):
    """A flood of refusals is answered, counted exactly (the records are
    batched) and does not stall the daemon."""
    n = Net(ctx)
    r = n.run(["python3", n.probe_path, "probe", "flood", "2000",
               "flood.test"])
    p = json.loads(r["stdout"])
    assert p["refused"] == 2000, p
    assert hp(r["blocked"]["hosts"]) == [{"host": "flood.test", "port": 80}], r
    assert n.c.call("rpc.ping")["pong"] is True
    log = n.c.call("session.log", {"session": n.sid})
    cmd = [x for x in log["commands"] if x["command"] == r["command"]][0]
    assert [(x["host"], x["count"]) for x in cmd["refused"]] == \
        [("flood.test", 2000)], cmd["refused"]
