"""End-to-end tests of providers (issue 14, item 2): a provider's hosts are
reachable for its sessions in every network mode (none included) and for
no other session; its env values reach the sandbox and are stored and shown
nowhere; a provider home is kept between sessions and is its own; an
account folder is writable while its hook settings stay read-only; a
provider that cannot run in a sandbox is refused with a sandboxed profile.

As root the provider's host is a real server in a network namespace the
test makes; as a user the proxy's decision is read from its refusal rule
(the host passes the allowlist, then its metadata address is refused)."""
import base64
import json
import os
import sqlite3

import nethost
from sboxtest import RpcError, is_root

SECRET = "prov-secret-5d1e9c"


def config(home, resolve_to):
    return {
        "sandbox": {"profiles": {
            # the remote of a root test lives at a private address
            "offline": {"extends": "strict",
                        "private_hosts": ["api.prov.test"]}}},
        "resolve": {"api.prov.test": [resolve_to],
                    "other.prov.test": [resolve_to]},
        "providers": {
            "agent": {"sandbox": "offline", "hosts": ["api.prov.test"],
                      "env": {"AGENT_API_KEY": SECRET},
                      "home": "persistent",
                      "account_folders": ["~/.agent"],
                      "writable": ["~/.agent/transcript", "~/.agent/logs/"],
                      "signin": ["~/.agent/auth.json"]},
            "other": {"sandbox": "offline", "home": "persistent",
                      "hosts": ["other.prov.test"],
                      "account_folders": ["~/.other/acct"],
                      "writable": ["~/.other/acct/sess-*.log"]},
            "hostonly": {"sandbox_capable": False},
        },
    }


def run(c, sid, script, timeout=60):
    r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c", script],
                                "timeout": timeout})
    for k in ("stdout", "stderr"):
        r[k] = base64.b64decode(r.get(k) or "").decode(errors="replace")
    return r


def create(c, project, provider, **kw):
    p = {"project": project, "provider": provider}
    p.update(kw)
    return c.call("session.create", p)["session"]


def setup(ctx, resolve_to="169.254.169.254"):
    d = ctx.daemon(None, start=False)
    os.makedirs(os.path.join(d.home, ".agent", "hooks"))
    for name, data in ((".agent/settings.json", '{"hooks": {}}\n'),
                       (".agent/auth.json", '{"token": "old"}\n'),
                       (".agent/hooks/run.sh", "true\n")):
        with open(os.path.join(d.home, name), "w") as f:
            f.write(data)
    d.write_config(config(d.home, resolve_to))
    d.start()
    return d, d.client()


def proxy_get(c, sid, host):
    """An absolute-form GET through the session's proxy: the answer head."""
    r = run(c, sid, "curl -sS -i -m 20 http://%s/ 2>&1; true" % host)
    return r["stdout"]


def test_provider_hosts_every_mode(ctx):
    if is_root():
        remote = nethost.RemoteHost(ctx.tmp)
        try:
            provider_hosts_body(ctx, remote.a, remote)
        finally:
            remote.close()
    else:
        provider_hosts_body(ctx, "169.254.169.254", None)


def provider_hosts_body(ctx, addr, remote):
    d, c = setup(ctx, addr)
    sid = create(c, ctx.tmp, "agent")
    info = c.call("session.info", {"session": sid})
    assert info["profile"] == "offline" and info["network"] == "none", info
    assert info["resolved_profile"]["provider_hosts"] == ["api.prov.test"], info
    out = proxy_get(c, sid, "api.prov.test")
    if remote is not None:
        assert "200" in out.split("\r\n")[0] and "api.prov.test" in out, out
    else:
        # through the allowlist: refused only for its (metadata) address
        assert "403" in out and "network is off" not in out, out
        assert "169.254.169.254" in out, out
    # another host: network is off
    out = proxy_get(c, sid, "other.prov.test")
    assert "403" in out and "network is off" in out, out
    # another provider's session does not reach this provider's host
    sid2 = create(c, ctx.tmp, "other")
    out = proxy_get(c, sid2, "api.prov.test")
    assert "403" in out and "network is off" in out, out
    # shown by session info and sandbox show
    r = d.cli("--json", "sandbox", "show", "offline")
    assert r.returncode == 0, r
    provs = {p["name"]: p for p in json.loads(r.stdout)["providers"]}
    assert provs["agent"]["hosts"] == ["api.prov.test"], provs


def test_provider_env_never_shown(ctx):
    d, c = setup(ctx)
    sub = c.call("events.subscribe", {})
    sid = create(c, ctx.tmp, "agent")
    r = run(c, sid, 'printf "%s" "$AGENT_API_KEY"')
    assert r["stdout"] == SECRET, r
    info = c.call("session.info", {"session": sid})
    assert SECRET not in json.dumps(info), info
    assert info["resolved_profile"]["env_values"] == {
        "AGENT_API_KEY": "(set)"}, info
    r = d.cli("--json", "session", "info", sid)
    assert SECRET.encode() not in r.stdout, r
    c.call("session.log", {"session": sid})
    c.call("session.close", {"session": sid})
    assert sub
    c.call("rpc.ping", {})
    seen = json.dumps(c.notifications)
    assert "session.ready" in seen and SECRET not in seen, seen
    d.stop()
    blob = b""
    for name in os.listdir(d.state):
        p = os.path.join(d.state, name)
        if os.path.isfile(p):
            with open(p, "rb") as f:
                blob += f.read()
    assert SECRET.encode() not in blob, "the secret is in the state folder"
    db = sqlite3.connect(os.path.join(d.state, "sbox.db"))
    rows = db.execute("SELECT topic, data FROM events").fetchall()
    assert rows and SECRET not in json.dumps(rows), rows
    with open(d.log, "rb") as f:
        assert SECRET.encode() not in f.read()


def test_provider_home_kept_and_own(ctx):
    d, c = setup(ctx)
    sid = create(c, ctx.tmp, "agent")
    r = run(c, sid, 'echo kept > "$HOME/note" && cat "$HOME/note" && '
            'ls -a "$HOME"; echo x > "$HOME/.bashrc" 2>&1; echo rc=$?')
    assert r["exit_code"] == 0 and "kept" in r["stdout"], r
    assert "rc=0" not in r["stdout"], r   # run-later files stay read-only
    c.call("session.close", {"session": sid})
    home = os.path.join(d.state, "homes", "agent")
    assert os.path.isfile(os.path.join(home, "note")), os.listdir(home)
    assert not os.path.exists(os.path.join(d.home, "note"))
    sid = create(c, ctx.tmp, "agent")
    r = run(c, sid, 'cat "$HOME/note"')
    assert r["stdout"].strip() == "kept", r
    c.call("session.close", {"session": sid})
    sid = create(c, ctx.tmp, "other")
    r = run(c, sid, 'cat "$HOME/note" 2>&1; echo rc=$?')
    assert "kept" not in r["stdout"] and "rc=1" in r["stdout"], r
    # a missing account folder is made for it, and it writes there what
    # its entry's "writable" names (a pattern), nothing else
    acct = os.path.join(d.home, ".other", "acct")
    r = run(c, sid, 'echo in > %s/sess-1.log && echo rc=$?; echo x > '
            '%s/signin; echo rc2=$?' % (acct, acct))
    assert "rc=0" in r["stdout"] and "rc2=0" not in r["stdout"], r
    with open(os.path.join(acct, "sess-1.log")) as f:
        assert f.read() == "in\n"
    assert not os.path.exists(os.path.join(acct, "signin"))
    st = os.stat(os.path.join(d.state, "homes", "other"))
    if is_root():
        assert st.st_uid != 0, st


def test_account_folder_hooks_read_only(ctx):
    d, c = setup(ctx)
    sid = create(c, ctx.tmp, "agent")
    acc = os.path.join(d.home, ".agent")
    # its transcript is writable ("writable"), its sign-in is not
    r = run(c, sid, 'echo new > %s/auth.json; echo rc=$?; '
            'echo y > %s/transcript && echo rc2=$?' % (acc, acc))
    assert "rc=0" not in r["stdout"] and "rc2=0" in r["stdout"], r
    with open(os.path.join(acc, "auth.json")) as f:
        assert f.read() != "new\n"
    r = run(c, sid, 'echo bad > %s/settings.json; echo rc=$?; '
            'echo bad > %s/hooks/run.sh; echo rc2=$?; '
            'mv %s/settings.json %s/x; echo rc3=$?' % (acc, acc, acc, acc))
    assert "rc=0" not in r["stdout"] and "rc2=0" not in r["stdout"], r
    assert "rc3=0" not in r["stdout"], r
    with open(os.path.join(acc, "settings.json")) as f:
        assert f.read() == '{"hooks": {}}\n'
    with open(os.path.join(acc, "hooks", "run.sh")) as f:
        assert f.read() == "true\n"


def test_sandbox_capable_false_refused(ctx):
    d, c = setup(ctx)
    try:
        create(c, ctx.tmp, "hostonly", sandbox="strict")
        raise AssertionError("a sandboxed session of hostonly was created")
    except RpcError as e:
        assert e.name == "sbox.InvalidParams" and e.field == "provider", e
        assert "cannot run in a sandbox" in e.message, e
    sid = create(c, ctx.tmp, "hostonly", sandbox="none")
    assert sid


def test_sandbox_check_provider(ctx):
    d, c = setup(ctx)
    r = d.cli("--json", "sandbox", "check", "--provider", "agent",
              timeout=120)
    j = json.loads(r.stdout)
    steps = {s["id"]: s for s in j["steps"]}
    assert j["profile"] == "offline", j
    assert steps["provider_hosts"]["ok"] is True, steps
    assert "api.prov.test:443 let through" in \
        steps["provider_hosts"]["detail"], steps
    assert steps["provider_home"]["ok"] is True, steps
    assert "kept between sessions" in steps["provider_home"]["detail"], steps
    out = d.cli("sandbox", "check", "--provider", "agent",
                timeout=120).stdout.decode()
    assert "provider's hosts" in out and "provider's home" in out, out
    # a host the proxy refuses is reported as refused: "other" lists
    # other.prov.test, reached here by agent's profile which lacks it
    r = d.cli("--json", "sandbox", "check", "--provider", "nosuch")
    assert r.returncode == 1 and b"no provider" in r.stderr, r
    r = d.cli("--json", "sandbox", "check", "--provider", "hostonly",
              "--profile", "strict")
    assert r.returncode == 1 and b"cannot run in a sandbox" in r.stderr, r


def builtin_daemon(ctx, providers):
    d = ctx.daemon({"providers": providers})
    return d, d.client()


def test_alias_config_entry_applies(ctx):
    """Issue 37: a config entry under any name of a built-in provider
    applies to its sessions under every name (claude/claude-code,
    codex/openai, gemini/gemini-cli)."""
    d, c = builtin_daemon(ctx, {"claude-code": {"sandbox": "strict"},
                                "openai": {"sandbox": "lab"},
                                "gemini": {"sandbox": "strict"}})
    for name, prof in (("claude", "strict"), ("claude-code", "strict"),
                       ("codex", "lab"), ("openai", "lab"),
                       ("gemini", "strict"), ("gemini-cli", "strict")):
        r = c.call("sandbox.resolve", {"provider": name})
        assert r["profile"] == prof, (name, r)
        assert r["warnings"] == [], (name, r)
        assert r["resolved"]["provider_hosts"], (name, r)
    r = c.call("session.create", {"project": ctx.tmp, "provider": "claude"})
    assert r["profile"] == "strict", r
    r = d.cli("--json", "sandbox", "resolve", "--provider", "claude")
    assert r.returncode == 0 and json.loads(r.stdout)["profile"] == \
        "strict", r


def test_unknown_provider_refused_with_suggestion(ctx):
    d, c = builtin_daemon(ctx, {})
    for method, params in (("session.create", {"project": ctx.tmp,
                                               "provider": "claude-cod"}),
                           ("sandbox.resolve", {"provider": "claude-cod"})):
        try:
            c.call(method, params)
            raise AssertionError("%s took an unknown provider" % method)
        except RpcError as e:
            assert e.name == "sbox.InvalidParams" and \
                e.field == "provider", e
            assert 'did you mean "claude-code"' in e.message, e
    r = d.cli("session", "create", "--project", ctx.tmp, "--provider",
              "codx")
    assert r.returncode != 0 and b'did you mean "codex"' in r.stderr, r


def test_provider_pass_env_and_set_env(ctx):
    """ANTHROPIC_BASE_URL passes into a claude session without a profile
    line, IS_SANDBOX=1 and SBOX_SANDBOX are set; a dropped variable is
    named in the warnings and in session.status."""
    d, c = builtin_daemon(ctx, {"claude": {"sandbox": "strict"}})
    r = c.call("session.create", {
        "project": ctx.tmp, "provider": "claude",
        "env": {"ANTHROPIC_BASE_URL": "http://base.prov.test",
                "DROPPED_BY_PROFILE": "x", "PATH": os.environ["PATH"]}})
    sid = r["session"]
    assert r["env_dropped"] == ["DROPPED_BY_PROFILE"], r
    w = [x for x in r["warnings"] if "DROPPED_BY_PROFILE" in x]
    assert len(w) == 1, r
    out = run(c, sid, "env")["stdout"]
    assert "ANTHROPIC_BASE_URL=http://base.prov.test\n" in out, out
    assert "IS_SANDBOX=1\n" in out and "SBOX_SANDBOX=strict\n" in out, out
    assert "DROPPED_BY_PROFILE" not in out, out
    st = c.call("session.status", {"session": sid})
    assert st["env_dropped"] == ["DROPPED_BY_PROFILE"], st
    r = d.cli("session", "status", sid)
    assert r.stdout.decode().count("DROPPED_BY_PROFILE") == 1, r
    # the client's environment, through the CLI
    r = d.cli("--json", "session", "create", "--project", ctx.tmp,
              "--provider", "claude-code",
              env={"ANTHROPIC_MODEL": "m-prov-1"})
    sid2 = json.loads(r.stdout)["session"]
    out = run(c, sid2, "env")["stdout"]
    assert "ANTHROPIC_MODEL=m-prov-1\n" in out, out
    assert "IS_SANDBOX=1\n" in out, out
    # another provider's session does not get them
    sid3 = c.call("session.create", {
        "project": ctx.tmp, "provider": "codex", "sandbox": "strict",
        "env": {"ANTHROPIC_BASE_URL": "http://base.prov.test"}})["session"]
    out = run(c, sid3, "env")["stdout"]
    assert "ANTHROPIC_BASE_URL" not in out and "IS_SANDBOX" not in out, out
    assert "SBOX_SANDBOX=strict\n" in out, out


def test_telemetry_hosts_refused_and_recorded_once(ctx):
    """A built-in provider's telemetry and background hosts (Codex's
    ab.chatgpt.com) stay refused by default and are recorded once per
    session, with their own rule; another refused host is recorded every
    time, as before. A person's allow-host lets one through."""
    d = ctx.daemon({})
    c = d.client()
    sid = create(c, ctx.tmp, "codex", sandbox="workspace")
    provs = {p["name"]: p for p in c.call(
        "sandbox.show", {"profile": "workspace"})["providers"]}
    assert "ab.chatgpt.com" in provs["codex"]["telemetry"], provs["codex"]
    blocked = []
    for _ in range(3):
        r = c.call("command.exec", {"session": sid, "argv": [
            "sh", "-c", "curl -sS -m 10 http://ab.chatgpt.com/e >/dev/null "
            "2>&1; curl -sS -m 10 http://other.example.test/ >/dev/null "
            "2>&1; true"]})
        blocked.append([(h["host"], h["rule"]) for h in
                        r["blocked"]["hosts"]])
    tele = [b for b in blocked if ("ab.chatgpt.com",
                                   "an agent's telemetry and background "
                                   "hosts, refused by default") in b]
    assert len(tele) == 1 and blocked[0] == tele[0], blocked
    assert all(any(h == "other.example.test" for h, _ in b)
               for b in blocked), blocked
    st = c.call("sandbox.status", {"session": sid})
    counts = {x["host"]: x["count"] for x in st["refused"]}
    assert counts["ab.chatgpt.com"] == 1, st["refused"]
    assert counts["other.example.test"] == 3, st["refused"]
    # a new session says it once again
    sid2 = create(c, ctx.tmp, "codex", sandbox="workspace")
    r = c.call("command.exec", {"session": sid2, "argv": [
        "sh", "-c", "curl -sS -m 10 http://ab.chatgpt.com/e; true"]})
    assert [h["host"] for h in r["blocked"]["hosts"]] == ["ab.chatgpt.com"]
