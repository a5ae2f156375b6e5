"""End-to-end tests of issue 23 items 4 and 7: the network modes of a
profile ("hosts": its hosts only, "none", "registries", "internet"), the
notes of config check and sandbox show on hosts that have no effect and on
"*.d" without "d", the hosts file read again when it changes, and the hint
for a refused metadata address.

Every host here resolves (through the config's resolve table or the hosts
file) to an address the proxy refuses by its address rule, so a refusal
"resolves to a ... address" proves the name passed the allowlist, and "not
in the allowlist" / "network is off" that it did not: the same as root and
as a user, with no remote host."""
import base64
import json
import os

META = "169.254.169.254"


def run(c, sid, script, timeout=60):
    r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c", script],
                                "timeout": timeout})
    for k in ("stdout", "stderr"):
        r[k] = base64.b64decode(r.get(k) or "").decode(errors="replace")
    return r


def proxy_get(c, sid, host):
    r = run(c, sid, "curl -sS -i -m 20 http://%s/ 2>&1; true" % host)
    return r["stdout"]


def passed(out):
    """The name passed the allowlist (refused only for its address)."""
    return "403" in out and "resolves to a" in out and \
        "not in the allowlist" not in out and "network is off" not in out


def config():
    return {
        "sandbox": {"profiles": {
            "only": {"network": "hosts", "hosts": ["ok.test"]},
            "off": {"network": "none", "hosts": ["ok.test"]},
            "reg": {"extends": "workspace",
                    "hosts": ["ok.test", "*.wild.test"]},
            "all": {"extends": "workspace", "network": "internet"},
        }},
        "resolve": {h: [META] for h in ("ok.test", "other.test",
                                         "reg.test", "prov.test")},
        "providers": {"agent": {"hosts": ["prov.test"]}},
    }


def setup(ctx, hosts_file=None):
    d = ctx.daemon(None, start=False)
    with open(os.path.join(d.home, ".npmrc"), "w") as f:
        f.write("registry=http://reg.test/\n")
    d.write_config(config())
    if hosts_file is not None:
        env = d.env
        d.env = lambda: dict(env(), SBOX_HOSTS_FILE=hosts_file)
    d.start()
    return d, d.client()


def session(c, ctx, profile, **kw):
    p = {"project": ctx.tmp, "sandbox": profile}
    p.update(kw)
    return c.call("session.create", p)["session"]


def test_network_hosts_mode(ctx):
    d, c = setup(ctx)
    sid = session(c, ctx, "only")
    info = c.call("session.info", {"session": sid})
    assert info["network"] == "hosts", info
    assert passed(proxy_get(c, sid, "ok.test"))
    out = proxy_get(c, sid, "other.test")
    assert "403" in out and "not in the allowlist" in out, out
    # the registries are not reached in "hosts" mode
    out = proxy_get(c, sid, "reg.test")
    assert "403" in out and "not in the allowlist" in out, out
    # a provider's hosts are, for its own sessions
    sid2 = session(c, ctx, "only", provider="agent")
    out = proxy_get(c, sid2, "prov.test")
    assert "not in the allowlist" not in out and "403" in out, out


def test_network_none_registries_internet(ctx):
    d, c = setup(ctx)
    sid = session(c, ctx, "off")
    out = proxy_get(c, sid, "ok.test")
    assert "403" in out and "network is off" in out, out
    sid = session(c, ctx, "reg")
    assert passed(proxy_get(c, sid, "reg.test"))
    assert passed(proxy_get(c, sid, "ok.test"))
    assert "not in the allowlist" in proxy_get(c, sid, "other.test")
    sid = session(c, ctx, "all")
    assert passed(proxy_get(c, sid, "other.test"))


def test_network_notes(ctx):
    d, c = setup(ctx)
    r = d.cli("--json", "config", "check", d.config)
    assert r.returncode == 0, r
    notes = json.loads(r.stdout)["notes"]
    text = "\n".join(notes)
    assert "profile off: its hosts have no effect" in text, notes
    assert '"*.wild.test" matches the subdomains of wild.test only' in \
        text, notes
    assert "profile only" not in text, notes
    out = d.cli("config", "check", d.config).stdout.decode()
    assert "note: profile off" in out, out
    r = d.cli("sandbox", "show", "off")
    out = r.stdout.decode()
    assert "note" in out and "no effect" in out, out
    out = d.cli("sandbox", "show", "only").stdout.decode()
    assert "hosts: the hosts below only" in out and "no effect" not in out, out


def test_hosts_file_read_again(ctx):
    hosts = os.path.join(ctx.tmp, "hosts")
    with open(hosts, "w") as f:
        f.write("# test hosts\n192.0.2.7 late.test\n")
    d, c = setup(ctx, hosts)
    # a profile whose allowlist holds late.test
    sid = session(c, ctx, "all")
    out = proxy_get(c, sid, "late.test")
    assert "192.0.2.7" in out and "403" in out, out
    # the file changes while sboxd runs: the next request sees it
    with open(hosts + ".new", "w") as f:
        f.write("%s late.test other-name\n" % META)
    os.rename(hosts + ".new", hosts)
    out = proxy_get(c, sid, "late.test")
    assert META in out and "192.0.2.7" not in out, out
    out = proxy_get(c, sid, "other-name")
    assert META in out, out


def test_metadata_hint(ctx):
    d, c = setup(ctx)
    sid = session(c, ctx, "only")
    r = d.cli("session", "exec", sid, "--", "sh", "-c",
              "curl -sS -m 20 http://ok.test/ >/dev/null 2>&1; true")
    err = r.stderr.decode()
    lines = [l for l in err.split("\n") if "ok.test" in l and
             "blocked" in l]
    assert lines, err
    assert "no setting allows it" in lines[0], lines
    assert "metadata address" in lines[0], lines
    assert '"private_hosts" of a custom' not in err, err
