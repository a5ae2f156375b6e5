"""End-to-end tests of the profiles seen through the daemon (issue 3, and the
CLI of issue 5): sandbox.list/show/resolve/status/check and `sbox sandbox`,
a broken config refused at start and kept out on SIGHUP, a project's own
`.sbox/` folder ignored, the hosts a session refused, and the check.

They pass as root and as an unprivileged user."""
import base64
import json
import os
import re
import signal
import subprocess

from sboxtest import RpcError, Skip, wait_for

SECRET_VALUE = "provider-secret-value-7f3a"


def company_config(home, hosts=("pkgs.dev.example.com", "*.company.example")):
    """A config with a custom profile that uses every key."""
    return {
        "sandbox": {
            "profiles": {
                "company": {
                    "extends": "workspace",
                    "hosts": list(hosts),
                    "private_hosts": ["mirror.company.example"],
                    "local_ports": [5432],
                    "mcp_servers": ["docs"],
                    "folders": {"read_write": ["~/data"],
                                "read_only": ["~/models"],
                                "deny": ["~/secret"]},
                    "env": ["CI", "COMPANY_TOKEN"],
                    "run_outside": "ask",
                    "exclude": ["docker *", "make deploy"],
                    "limits": {"pids": 300},
                },
                "offline": {"extends": "strict", "hosts": []},
            },
        },
        "providers": {"ollama": {"sandbox": "company",
                                 "env": {"OLLAMA_KEY": SECRET_VALUE}}},
        "models": {"local-llm": {"sandbox": "offline"}},
    }


def text(r):
    return r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")


def cli_ok(d, *args, **kw):
    r = d.cli(*args, input=b"", timeout=kw.pop("timeout", 60), **kw)
    assert r.returncode == 0, "sbox %s -> %d\n%s" % (" ".join(args),
                                                     r.returncode, text(r))
    return r.stdout.decode()


def run_sboxd(d, timeout=20):
    """Run an sboxd that is expected to refuse to start."""
    return subprocess.run(d.args(), env=d.env(), stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=timeout)


def project(ctx, name="proj"):
    p = os.path.join(ctx.tmp, name)
    os.makedirs(p, exist_ok=True)
    return os.path.realpath(p)


# ------------------------------------------------------------ show and list

def test_show_custom_profile(ctx):
    d = ctx.daemon(start=False)
    d.write_config(company_config(d.home))
    d.start()
    out = cli_ok(d, "sandbox", "show", "company")
    for want in ("company, extends workspace", "registries",
                 "pkgs.dev.example.com", "*.company.example",
                 "mirror.company.example", "5432", "docs",
                 os.path.join(d.home, "data"), os.path.join(d.home, "models"),
                 os.path.join(d.home, "secret"), "CI, COMPANY_TOKEN",
                 "docker *, make deploy", "ask each time", "pids 300",
                 "provider ollama"):
        assert want in out, "%r missing from:\n%s" % (want, out)
    # each folder on its own line, with what it grants
    assert re.search(r"read-only\s+%s" % re.escape(os.path.join(
        d.home, "models")), out), out
    assert re.search(r"denied\s+%s" % re.escape(os.path.join(
        d.home, "secret")), out), out
    j = json.loads(cli_ok(d, "sandbox", "show", "company", "--json"))
    assert j["name"] == "company" and j["extends"] == "workspace", j
    assert j["builtin"] is False and j["sandboxed"] is True, j
    assert j["network"] == "registries" and j["run_outside"] == "ask", j
    assert j["hosts"] == ["pkgs.dev.example.com", "*.company.example"], j
    assert j["local_ports"] == [5432] and j["mcp_servers"] == ["docs"], j
    assert j["folders"] == {"read_write": [os.path.join(d.home, "data")],
                            "read_only": [os.path.join(d.home, "models")],
                            "deny": [os.path.join(d.home, "secret")]}, j
    assert j["env"] == ["CI", "COMPANY_TOKEN"], j
    assert j["exclude"] == ["docker *", "make deploy"], j
    assert j["limits"] == {"pids": 300}, j
    assert j["chosen_by"]["providers"] == ["ollama"], j
    # a built-in
    j = json.loads(cli_ok(d, "--json", "sandbox", "show", "strict"))
    assert j["builtin"] is True and j["network"] == "none", j
    assert j["run_outside"] == "never" and j["extends"] is None, j
    out = cli_ok(d, "sandbox", "show", "offline")
    assert "offline, extends strict" in out and "none: no host" in out, out
    assert "model local-llm" in out, out
    # unknown profile: exit 1, the name in the message
    r = d.cli("sandbox", "show", "nope", input=b"")
    assert r.returncode == 1 and "nope" in r.stderr.decode(), text(r)
    e = d.client().error("sandbox.show", {"profile": "nope"})
    assert e.name == "sbox.ProfileNotFound" and e.field == "profile", e
    # params are checked before the handler
    e = d.client().error("sandbox.show", {})
    assert e.name == "sbox.InvalidParams" and e.field == "profile", e
    e = d.client().error("sandbox.show", {"profile": 3})
    assert e.name == "sbox.InvalidParams", e
    # a provider's variable values are never shown
    c = d.client()
    r = c.call("sandbox.resolve", {"provider": "ollama"})
    assert r["profile"] == "company", r
    assert r["resolved"]["env_values"] == {"OLLAMA_KEY": "(set)"}, r
    blob = json.dumps(r) + json.dumps(c.call("sandbox.list")) + \
        json.dumps(c.call("sandbox.show", {"profile": "company"}))
    assert SECRET_VALUE not in blob, blob
    out = cli_ok(d, "sandbox", "resolve", "--provider", "ollama") + \
        cli_ok(d, "--json", "sandbox", "resolve", "--provider", "ollama")
    assert SECRET_VALUE not in out and "company, from provider ollama" in out


def test_list_builtins_and_custom(ctx):
    d = ctx.daemon(start=False)
    cfg = company_config(d.home)
    cfg["sandbox"]["all_sessions"] = "workspace"
    cfg["spaces"] = {"work": {"sandbox": "company"}}
    d.write_config(cfg)
    d.start()
    out = cli_ok(d, "sandbox", "list")
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["PROFILE", "EXTENDS", "NETWORK"], out
    rows = {l.split()[0]: l for l in lines[1:] if l.strip() and
            not l.startswith("config:")}
    for name in ("workspace", "strict", "lab", "none", "company", "offline"):
        assert name in rows, "%s missing from:\n%s" % (name, out)
    assert "registries" in rows["workspace"] and "all sessions" in \
        rows["workspace"], out
    assert "none" in rows["strict"].split()[2] and "never" in rows["strict"]
    assert "scratch folder only" in rows["lab"], out
    assert "not sandboxed" in rows["none"], out
    assert "workspace" in rows["company"] and "space work" in \
        rows["company"] and "provider ollama" in rows["company"], out
    assert "1 more read-write" in rows["company"], out
    assert "model local-llm" in rows["offline"], out
    j = json.loads(cli_ok(d, "--json", "sandbox", "list"))
    names = [p["name"] for p in j["profiles"]]
    assert names[:4] == ["workspace", "strict", "lab", "none"], names
    assert names[4:] == ["company", "offline"], names
    byname = {p["name"]: p for p in j["profiles"]}
    assert byname["workspace"]["builtin"] and not byname["company"]["builtin"]
    assert byname["company"]["extends"] == "workspace", byname["company"]
    assert byname["company"]["chosen_by"]["spaces"] == ["work"], byname
    assert byname["workspace"]["chosen_by"]["all_sessions"] is True
    assert byname["none"]["sandboxed"] is False, byname["none"]
    assert j["config"] == d.config, j
    # with no config at all, "none" is what every session gets
    d2 = ctx.daemon(name="empty")
    j = json.loads(cli_ok(d2, "--json", "sandbox", "list"))
    byname = {p["name"]: p for p in j["profiles"]}
    assert [p["name"] for p in j["profiles"]] == ["workspace", "strict",
                                                 "lab", "none"], j
    assert byname["none"]["chosen_by"]["default"] is True, byname


# ------------------------------------------------------------ resolution

def test_resolve_precedence(ctx):
    proj = project(ctx, "Lib")
    sub = os.path.join(proj, "sub")
    os.makedirs(sub)
    d = ctx.daemon(start=False)
    cfg = company_config(d.home)
    cfg["sandbox"]["all_sessions"] = "workspace"
    cfg["spaces"] = {"work": {"sandbox": "lab"}}
    cfg["projects"] = {proj: {"sandbox": "strict"}}
    cfg["providers"]["ollama"]["sandbox"] = "company"
    cfg["models"] = {"local-llm": {"sandbox": "offline"},
                     "trusted": {"sandbox": "none"}}
    d.write_config(cfg)
    d.start()
    c = d.client()
    full = {"space": "work", "project": proj, "provider": "ollama",
            "model": "local-llm", "sandbox": "lab"}
    steps = [
        ("sandbox", "lab", "lab, from session"),
        ("model", "offline", "offline, from model local-llm"),
        ("provider", "company", "company, from provider ollama"),
        ("project", "strict", "strict, from project " + proj),
        ("space", "lab", "lab, from space work"),
        (None, "workspace", "workspace, from all_sessions"),
    ]
    params = dict(full)
    for drop, want, prov in steps:
        r = c.call("sandbox.resolve", params)
        assert r["profile"] == want, (params, r)
        assert r["provenance"] == prov, (params, r)
        assert r["resolved"]["provenance"] == prov, r
        if drop:
            params.pop(drop)
    # a folder inside a configured project takes the project's choice
    r = c.call("sandbox.resolve", {"project": sub})
    assert r["provenance"] == "strict, from project " + proj, r
    # "none" can be chosen at any level, and says so
    r = c.call("sandbox.resolve", {"model": "trusted", "project": proj})
    assert r["profile"] == "none" and r["sandboxed"] is False, r
    assert r["provenance"] == "none, from model trusted", r
    # unknown explicit profile, relative project
    e = c.error("sandbox.resolve", {"sandbox": "nope"})
    assert e.name == "sbox.ProfileNotFound" and e.field == "sandbox", e
    e = c.error("sandbox.resolve", {"project": "relative/dir"})
    assert e.name == "sbox.InvalidParams" and e.field == "project", e
    e = c.error("sandbox.resolve", {"colour": "blue"})
    assert e.name == "sbox.InvalidParams" and e.field == "colour", e
    # the CLI
    out = cli_ok(d, "sandbox", "resolve", "--project", sub)
    assert out.splitlines()[0] == "strict, from project " + proj, out
    assert "network none, run outside never" in out, out
    out = cli_ok(d, "sandbox", "resolve", "--project", proj, "--space",
                 "work", "--provider", "ollama", "--model", "local-llm")
    assert out.splitlines()[0] == "offline, from model local-llm", out
    out = cli_ok(d, "sandbox", "resolve", "--sandbox", "lab", "--model",
                 "local-llm")
    assert out.splitlines()[0] == "lab, from session", out
    out = cli_ok(d, "sandbox", "resolve")
    assert out.splitlines()[0] == "workspace, from all_sessions", out
    j = json.loads(cli_ok(d, "sandbox", "resolve", "--json", "--space",
                          "work"))
    assert j["profile"] == "lab" and j["provenance"] == "lab, from space work"
    r = d.cli("sandbox", "resolve", "--sandbox", "nope", input=b"")
    assert r.returncode == 1 and "nope" in r.stderr.decode(), text(r)
    # nothing configured: none, by default
    d2 = ctx.daemon(name="empty")
    r = d2.client().call("sandbox.resolve", {"project": proj, "space": "x",
                                             "model": "m"})
    assert r["profile"] == "none" and r["sandboxed"] is False, r
    # an unknown provider is refused, never a session without a sandbox
    # (issue 37; it chose nothing before)
    try:
        d2.client().call("sandbox.resolve", {"project": proj,
                                             "provider": "p"})
        raise AssertionError("an unknown provider was resolved")
    except RpcError as e:
        assert e.field == "provider", e
    assert r["provenance"].startswith("none, by default"), r
    out = cli_ok(d2, "sandbox", "resolve", "--project", proj)
    assert out.startswith("none, by default") and "not sandboxed" in out


def test_project_sbox_folder_ignored(ctx):
    proj = project(ctx, "repo")
    d = ctx.daemon(start=False)
    cfg = company_config(d.home)
    cfg["sandbox"]["all_sessions"] = "strict"
    d.write_config(cfg)
    d.start()
    c = d.client()
    before = c.call("sandbox.resolve", {"project": proj})
    assert before["profile"] == "strict", before
    # the project tries to choose (and widen) its own sandbox every way it can
    sb = os.path.join(proj, ".sbox")
    os.makedirs(sb)
    evil = {"sandbox": {"all_sessions": "none", "profiles": {"company": {
        "extends": "workspace", "hosts": ["evil.example"]}}},
        "projects": {proj: {"sandbox": "none"}}}
    for name in ("config.json", "sandbox.json", "profile.json"):
        with open(os.path.join(sb, name), "w") as f:
            json.dump(evil, f)
    with open(os.path.join(proj, "sbox.json"), "w") as f:
        json.dump(evil, f)
    after = c.call("sandbox.resolve", {"project": proj})
    assert after == before, (before, after)
    # even after a reload, and for a live session in that project
    c.call("events.subscribe", {"topics": ["config.*"]})
    d.proc.send_signal(signal.SIGHUP)
    ev = c.wait_notification("events.event")
    assert ev["topic"] == "config.reloaded", ev
    assert c.call("sandbox.resolve", {"project": proj}) == before
    show = c.call("sandbox.show", {"profile": "company"})
    assert "evil.example" not in show["hosts"], show
    s = c.call("session.create", {"project": proj})
    assert s["profile"] == "strict", s
    assert s["provenance"] == "strict, from all_sessions", s
    st = c.call("sandbox.status", {"session": s["session"]})
    assert st["profile"] == "strict" and st["network"] == "none", st
    c.call("session.close", {"session": s["session"]})


# ------------------------------------------------------------ broken configs

def test_broken_config_refused_at_start(ctx):
    cases = [
        ({"sandbox": {"profiles": {"company": {"hostz": ["a.example"]}}}},
         "sandbox.profiles.company.hostz"),
        ({"sandbox": {"profiles": {"company": {"hosts": ["ok.example",
                                                         "*.com"]}}}},
         "sandbox.profiles.company.hosts[1]"),
        ({"sandbox": {"profiles": {"a": {"extends": "b"},
                                   "b": {"extends": "a"}}}},
         "extends"),
        ({"sandbox": {"profiles": {"a": {"extends": "nope"}}}},
         "sandbox.profiles.a.extends"),
        ({"sandbox": {"all_sessions": 7}}, "sandbox.all_sessions"),
        ({"models": {"m": {"sandbox": "missing"}}}, "models.m.sandbox"),
        ({"sandbox": {"profiles": {"a": {"local_ports": [70000]}}}},
         "sandbox.profiles.a.local_ports[0]"),
    ]
    for i, (cfg, key) in enumerate(cases):
        d = ctx.daemon(start=False, name="broken%d" % i)
        d.write_config(cfg)
        r = run_sboxd(d)
        msg = r.stderr.decode(errors="replace")
        assert r.returncode != 0, (cfg, msg)
        assert d.config in msg, (cfg, msg)
        assert key in msg, "%r not named in: %s" % (key, msg)
        assert not os.path.exists(d.sock), cfg


def test_sighup_keeps_old_config(ctx):
    d = ctx.daemon(start=False)
    d.write_config(company_config(d.home, hosts=("old.example",)))
    d.start()
    c = d.client()
    c.call("events.subscribe", {"topics": ["config.*"]})
    assert c.call("sandbox.show", {"profile": "company"})["hosts"] == [
        "old.example"]
    # broken: refused with the key named, the old config answers on
    d.write_config({"sandbox": {"profiles": {"company": {
        "extends": "workspace", "hosts": ["new.example"], "colour": 1}}}})
    d.proc.send_signal(signal.SIGHUP)
    ev = c.wait_notification("events.event")
    assert ev["topic"] == "config.rejected", ev
    assert "sandbox.profiles.company.colour" in ev["data"]["error"], ev
    assert d.config in ev["data"]["error"], ev
    assert c.call("sandbox.show", {"profile": "company"})["hosts"] == [
        "old.example"]
    out = cli_ok(d, "sandbox", "show", "company")
    assert "old.example" in out and "new.example" not in out, out
    assert c.call("sandbox.resolve", {"provider": "ollama"})["profile"] == \
        "company"
    # a good one takes effect
    cfg = company_config(d.home, hosts=("new.example",))
    cfg["sandbox"]["profiles"]["extra"] = {"extends": "lab"}
    d.write_config(cfg)
    d.proc.send_signal(signal.SIGHUP)
    ev = c.wait_notification("events.event")
    assert ev["topic"] == "config.reloaded", ev
    assert c.call("sandbox.show", {"profile": "company"})["hosts"] == [
        "new.example"]
    names = [p["name"] for p in c.call("sandbox.list")["profiles"]]
    assert "extra" in names, names
    out = cli_ok(d, "sandbox", "show", "extra")
    assert "extra, extends lab" in out, out


# ------------------------------------------------------------ status

def exec_sh(c, sid, script, timeout=30):
    r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c", script],
                                "stdio": "none", "timeout": timeout})
    return (r.get("exit_code"), base64.b64decode(r.get("stdout", "")).decode(
        errors="replace"), base64.b64decode(r.get("stderr", "")).decode(
        errors="replace"))


def refuse_hosts(c, sid):
    """Ask the proxy for refused.invalid (twice) then other.invalid, with
    whatever tool the sandbox has."""
    code, out, _ = exec_sh(c, sid, "command -v curl || command -v python3 "
                           "|| true")
    tool = os.path.basename(out.strip().splitlines()[0]) if out.strip() \
        else None
    if tool == "curl":
        script = ("curl -sS -m 10 -x http://127.0.0.1:3128 "
                  "http://refused.invalid/; "
                  "curl -sS -m 10 -x http://127.0.0.1:3128 "
                  "http://refused.invalid/x; "
                  "curl -sS -m 10 -p -x http://127.0.0.1:3128 "
                  "https://other.invalid/; true")
    elif tool == "python3":
        script = ("python3 -c 'import socket\n"
                  "for h in (\"refused.invalid:80\", \"refused.invalid:80\", "
                  "\"other.invalid:443\"):\n"
                  "  s = socket.create_connection((\"127.0.0.1\", 3128), 10)\n"
                  "  s.sendall((\"CONNECT %s HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n\""
                  " % (h, h)).encode())\n"
                  "  print(s.recv(100).split(b\"\\r\\n\")[0])\n"
                  "  s.close()'")
    else:
        raise Skip("neither curl nor python3 inside the sandbox")
    code, out, err = exec_sh(c, sid, script)
    assert "403" in out + err or "refused" in out + err, (out, err)


def test_status_refused_hosts(ctx):
    d = ctx.daemon(config={})
    proj = project(ctx)
    c = d.client()
    s = c.call("session.create", {"project": proj, "sandbox": "workspace",
                                  "env": {"PATH": os.environ.get(
                                      "PATH", "/usr/bin:/bin")}})
    sid = s["session"]
    st = c.call("sandbox.status", {"session": sid})
    assert st["profile"] == "workspace", st
    assert st["provenance"] == "workspace, from session", st
    assert st["sandboxed"] is True and st["live"] is True, st
    assert st["state"] == "ready" and st["network"] == "registries", st
    assert st["proxy_port"] == 3128, st
    sb = st["sandbox"]
    assert sb["runs_here"] is True and sb["platform"] == os.uname().sysname
    assert sb["bwrap"]["found"] is True and sb["bwrap"]["usable"] is True
    assert sb["container_alive"] is True and sb["container_pid"] > 0, sb
    assert st["refused"] == [], st
    refuse_hosts(c, sid)
    st = c.call("sandbox.status", {"session": sid})
    hosts = [(h["host"], h["port"], h["count"]) for h in st["refused"]]
    assert hosts == [("other.invalid", 443, 1), ("refused.invalid", 80, 2)], \
        st["refused"]
    assert all(h["rule"] == "network allowlist" for h in st["refused"]), st
    assert "allowlist" in st["refused"][0]["reason"], st
    # limit
    st1 = c.call("sandbox.status", {"session": sid, "limit": 1})
    assert [h["host"] for h in st1["refused"]] == ["other.invalid"], st1
    e = c.error("sandbox.status", {"session": sid, "limit": 0})
    assert e.name == "sbox.InvalidParams" and e.field == "limit", e
    # the CLI, readable and as JSON
    out = cli_ok(d, "sandbox", "status", "--session", sid)
    assert "workspace, from session" in out, out
    assert "runs here" in out and "found and usable" in out, out
    assert "proxy 127.0.0.1:3128" in out, out
    lines = [l for l in out.splitlines() if ".invalid:" in l]
    assert len(lines) == 2, out
    assert "other.invalid:443" in lines[0] and re.search(r"\b1×", lines[0])
    assert "refused.invalid:80" in lines[1] and re.search(r"\b2×", lines[1])
    j = json.loads(cli_ok(d, "sandbox", "status", "--session", sid, "--json"))
    assert j["refused"][1]["count"] == 2 and j["session"] == sid, j
    # another session's refusals are its own
    s2 = c.call("session.create", {"project": proj, "sandbox": "strict"})
    st2 = c.call("sandbox.status", {"session": s2["session"]})
    assert st2["refused"] == [] and st2["network"] == "none", st2
    # an unsandboxed session: it does not run in a sandbox here, and says so
    s3 = c.call("session.create", {"project": proj, "sandbox": "none"})
    st3 = c.call("sandbox.status", {"session": s3["session"]})
    assert st3["sandboxed"] is False, st3
    assert st3["sandbox"]["runs_here"] is False, st3
    assert "not sandboxed" in st3["sandbox"]["detail"], st3
    # after close: still answered from the store, not live
    c.call("session.close", {"session": sid})
    st = c.call("sandbox.status", {"session": sid})
    assert st["live"] is False and st["state"] == "closed", st
    assert st["sandbox"]["runs_here"] is False, st
    assert [h["host"] for h in st["refused"]] == ["other.invalid",
                                                  "refused.invalid"], st
    # unknown session
    e = c.error("sandbox.status", {"session": "0123456789abcdef"})
    assert e.name == "sbox.SessionNotFound", e
    r = d.cli("sandbox", "status", "--session", "0123456789abcdef",
              input=b"")
    assert r.returncode == 1 and "0123456789abcdef" in r.stderr.decode()
    r = d.cli("sandbox", "status", input=b"")
    assert r.returncode == 2, text(r)


# ------------------------------------------------------------ check

def check_folders(res):
    """The throwaway project folders a check result names."""
    found = set()
    for st in res["steps"]:
        found.update(re.findall(r"(/[^ ;:()]*/sbox-check-[A-Za-z0-9]{6})",
                                st["detail"]))
    return found


def test_check(ctx):
    d = ctx.daemon(config={})
    # a credential and sbox's own config exist on the host
    os.makedirs(os.path.join(d.home, ".ssh"), mode=0o700)
    with open(os.path.join(d.home, ".ssh", "id_ed25519"), "w") as f:
        f.write("PRIVATE KEY\n")
    with open(os.path.join(d.home, ".netrc"), "w") as f:
        f.write("machine example.com password hunter2\n")
    c = d.client()
    r = c.call("sandbox.check", {"profile": "workspace"})
    assert r["profile"] == "workspace", r
    ids = [s["id"] for s in r["steps"]]
    assert ids == ["bwrap", "init", "userns_probe", "userns", "shell",
                   "tools", "write_in", "write_out", "read_out", "sbox",
                   "creds", "network", "limits", "disk"], ids
    bad = [s for s in r["steps"] if not s["ok"]]
    assert not bad and r["ok"] is True, bad
    for s in r["steps"]:
        assert s["step"] and s["detail"], s
    net = [s for s in r["steps"] if s["id"] == "network"][0]
    assert "403" in net["detail"], net
    # the throwaway session and folder are gone
    folders = check_folders(r)
    assert folders, r
    for f in folders:
        assert not os.path.exists(f), f
    assert not os.path.exists(os.path.join(d.home, ".sbox-check-probe"))
    live = c.call("session.list")["sessions"]
    assert live == [], live
    # the CLI: each step with ok, exit 0
    r = d.cli("sandbox", "check", "--profile", "strict", input=b"",
              timeout=90)
    out = text(r)
    assert r.returncode == 0, out
    steps = [l for l in out.splitlines() if l.startswith("  ")]
    assert len(steps) == 14, out
    assert all(l.split()[0] == "ok" for l in steps), out
    assert "profile strict" in out and "every step passed" in out, out
    # the default: all_sessions, else workspace
    j = json.loads(cli_ok(d, "--json", "sandbox", "check", timeout=90))
    assert j["profile"] == "workspace" and j["ok"] is True, j
    # lab has no project: the write goes to its scratch folder
    j = c.call("sandbox.check", {"profile": "lab"})
    assert j["ok"] is True, j
    assert [s["step"] for s in j["steps"] if s["id"] == "write_in"] == [
        "write in the scratch folder"], j
    # nothing to check, or nothing to check with
    e = c.error("sandbox.check", {"profile": "none"})
    assert e.name == "sbox.InvalidParams" and e.field == "profile", e
    e = c.error("sandbox.check", {"profile": "nope"})
    assert e.name == "sbox.ProfileNotFound" and e.field == "profile", e
    r = d.cli("sandbox", "check", "--profile", "none", input=b"")
    assert r.returncode == 1 and "not sandboxed" in r.stderr.decode(), text(r)


def test_check_reports_failure(ctx):
    """With bwrap missing, the check says so step by step and exits 1."""
    d = ctx.daemon(config={}, start=False)
    d.start(extra=["--bwrap", os.path.join(d.root, "no-such-bwrap")])
    r = d.client().call("sandbox.check", {"profile": "workspace"})
    assert r["ok"] is False, r
    by = {s["id"]: s for s in r["steps"]}
    assert by["bwrap"]["ok"] is False and "bubblewrap" in \
        by["bwrap"]["detail"], r
    assert by["userns"]["ok"] is False, r
    r = d.cli("sandbox", "check", input=b"", timeout=60)
    out = text(r)
    assert r.returncode == 1, out
    assert re.search(r"FAILED\s+bwrap", out), out
    assert "FAILED" in r.stdout.decode().splitlines()[-1], out


# ------------------------------------------------------------ from inside

def test_inside_sees_its_own_sandbox_only(ctx):
    """An agent inside a sandbox (a command with a channel) reads its own
    profile and its own session's status, nothing else."""
    import shutil
    import sboxtest
    d = ctx.daemon(start=False)
    d.write_config(company_config(d.home))
    d.start()
    c = d.client()
    proj = project(ctx)
    shutil.copy(os.path.join(sboxtest.BIN, "sbox"), os.path.join(proj, "sbox"))
    sid = c.call("session.create", {"project": proj, "sandbox": "company",
                                    "env": {"PATH": "/usr/bin:/bin"}})
    sid = sid["session"]
    other = c.call("session.create", {"project": proj, "sandbox": "strict"})
    try:
        probe = c.call("command.exec", {"session": sid, "channel": True,
                                        "argv": ["./sbox", "version"]})
    except RpcError as e:
        raise Skip("no session channel: %s" % e.message)
    if "Sanitizer" in base64.b64decode(probe["stderr"]).decode(
            errors="replace"):
        raise Skip("this sbox build cannot run inside the sandbox")

    def inside(script):
        r = c.call("command.exec", {"session": sid, "channel": True,
                                    "argv": ["sh", "-c", script],
                                    "timeout": 60})
        return (base64.b64decode(r["stdout"]).decode(errors="replace"),
                base64.b64decode(r["stderr"]).decode(errors="replace"))

    so, se = inside("./sbox --json sandbox list")
    names = [p["name"] for p in json.loads(so)["profiles"]]
    assert names == ["company"], (so, se)
    assert "config" not in json.loads(so), so
    so, se = inside("./sbox --json sandbox show company")
    j = json.loads(so)
    assert j["hosts"] == ["pkgs.dev.example.com", "*.company.example"], j
    assert j["provenance"] == "company, from session", j
    so, se = inside("./sbox sandbox show strict; echo rc=$?")
    assert "rc=1" in so and "own profile" in se, (so, se)
    so, se = inside("./sbox --json sandbox status --session %s" % sid)
    assert json.loads(so)["profile"] == "company", (so, se)
    so, se = inside("./sbox sandbox status --session %s; echo rc=$?"
                    % other["session"])
    assert "rc=1" in so and other["session"] in se, (so, se)
    so, se = inside("./sbox sandbox resolve; echo rc=$?; "
                    "./sbox sandbox check; echo rc=$?")
    assert so.split() == ["rc=1", "rc=1"], (so, se)
    assert se.count("not available from inside a sandbox") == 2, se
