"""End-to-end tests of issue 23 items 1 and 2: a provider's agent owns its
account folder (reads its sign-in, writes its transcripts; its hooks and
settings stay read-only), another agent's sign-in stays hidden, the built-in
providers (policy/providers.default) need no config, a config entry of the
same name extends one, and an unknown provider is refused (issue 37)."""
import base64
import json
import os

from sboxtest import RpcError, is_root

SIGNIN = '{"claudeAiOauth": {"accessToken": "fake-claude-7a1"}}\n'
CODEX = '{"OPENAI_API_KEY": "fake-codex-93b"}\n'


def run(c, sid, script, timeout=60):
    r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c", script],
                                "timeout": timeout})
    for k in ("stdout", "stderr"):
        r[k] = base64.b64decode(r.get(k) or "").decode(errors="replace")
    return r


def fake_home(home):
    """A home as the agents leave it: Claude Code's and Codex's folders."""
    os.makedirs(os.path.join(home, ".claude", "hooks"))
    os.makedirs(os.path.join(home, ".claude", "projects"))
    os.makedirs(os.path.join(home, ".codex"))
    for name, data in ((".claude/.credentials.json", SIGNIN),
                       (".claude/settings.json", '{"hooks": {}}\n'),
                       (".claude/hooks/stop.sh", "true\n"),
                       (".codex/auth.json", CODEX),
                       (".codex/config.toml", "model = 'x'\n")):
        with open(os.path.join(home, name), "w") as f:
            f.write(data)
    if is_root():   # the sandbox's own uid writes in a folder of the person
        for dp, dns, fns in os.walk(home):
            for n in dns + fns:
                os.chmod(os.path.join(dp, n), 0o777 if n in dns or n.endswith(
                    ".json") or n.endswith(".sh") or n.endswith(".toml")
                    else 0o666)


def setup(ctx, config=None):
    d = ctx.daemon(None, start=False)
    fake_home(d.home)
    d.write_config(config if config is not None else {
        "providers": {"claude": {"sandbox": "strict"}}})
    d.start()
    return d, d.client()


def test_provider_reads_own_signin_not_others(ctx):
    d, c = setup(ctx)
    sid = c.call("session.create", {"project": ctx.tmp,
                                    "provider": "claude"})["session"]
    h = d.home
    r = run(c, sid, 'cat %s/.claude/.credentials.json' % h)
    assert r["exit_code"] == 0 and "fake-claude-7a1" in r["stdout"], r
    # it writes its transcripts (a new folder and file), never its sign-in
    # (issue 36: readable, not writable)
    r = run(c, sid, 'mkdir -p %s/.claude/projects/p1 && echo line > '
            '%s/.claude/projects/p1/t.jsonl && echo rc=$?; '
            'echo renewed > %s/.claude/.credentials.json; echo rc2=$?'
            % (h, h, h))
    assert "rc=0" in r["stdout"] and "rc2=0" not in r["stdout"], r
    with open(os.path.join(h, ".claude/projects/p1/t.jsonl")) as f:
        assert f.read() == "line\n"
    with open(os.path.join(h, ".claude/.credentials.json")) as f:
        assert f.read() == SIGNIN
    # its hooks and settings stay read-only, and cannot be made
    r = run(c, sid, 'echo bad > %s/.claude/settings.json; echo rc=$?; '
            'echo bad > %s/.claude/hooks/stop.sh; echo rc2=$?; '
            'echo bad > %s/.claude/hooks/new.sh; echo rc3=$?; '
            'mv %s/.claude/hooks %s/.claude/h2; echo rc4=$?'
            % (h, h, h, h, h))
    for k in ("rc=0", "rc2=0", "rc3=0", "rc4=0"):
        assert k not in r["stdout"], r
    with open(os.path.join(h, ".claude/settings.json")) as f:
        assert f.read() == '{"hooks": {}}\n'
    assert os.listdir(os.path.join(h, ".claude/hooks")) == ["stop.sh"]
    # another agent's sign-in: out of reach
    r = run(c, sid, 'cat %s/.codex/auth.json; echo rc=$?' % h)
    assert "fake-codex-93b" not in r["stdout"] and "rc=0" not in \
        r["stdout"], r
    # a session of codex (built in, no config entry) reads its own and not
    # Claude Code's
    sid2 = c.call("session.create", {"project": ctx.tmp, "provider": "codex",
                                     "sandbox": "strict"})["session"]
    r = run(c, sid2, 'cat %s/.codex/auth.json; echo; cat '
            '%s/.claude/.credentials.json; echo rc=$?' % (h, h))
    assert "fake-codex-93b" in r["stdout"], r
    assert "fake-claude-7a1" not in r["stdout"] and "rc=0" not in r["stdout"], r
    r = run(c, sid2, 'echo x >> %s/.codex/config.toml; echo rc=$?' % h)
    assert "rc=0" not in r["stdout"], r
    # a session without a provider reads neither
    sid3 = c.call("session.create", {"project": ctx.tmp,
                                     "sandbox": "strict"})["session"]
    r = run(c, sid3, 'cat %s/.codex/auth.json %s/.claude/.credentials.json'
            '; echo rc=$?' % (h, h))
    assert "fake" not in r["stdout"] and "renewed" not in r["stdout"], r


def test_builtin_providers_shown_and_extended(ctx):
    d, c = setup(ctx, {"providers": {"claude": {
        "sandbox": "strict", "hosts": ["extra.prov.test"]}}})
    r = c.call("sandbox.resolve", {"provider": "claude"})
    res = r["resolved"]
    assert r["warnings"] == [], r
    assert "api.anthropic.com" in res["provider_hosts"], res
    assert "extra.prov.test" in res["provider_hosts"], res
    assert res["account_folders"] == [os.path.join(d.home, ".claude")], res
    assert os.path.join(d.home, ".claude", "hooks/") in \
        res["account_protect"], res
    assert os.path.join(d.home, ".codex") in res["hidden_accounts"], res
    assert "ANTHROPIC_API_KEY" in res["env"], res
    assert r["profile"] == "strict", r
    # the others are known without a config entry
    for name in ("claude-code", "codex", "gemini", "copilot", "cursor",
                 "opencode"):
        r = c.call("sandbox.resolve", {"provider": name})
        assert r["warnings"] == [], (name, r)
        assert r["resolved"]["provider_hosts"], (name, r)
    # sandbox show --provider
    r = d.cli("sandbox", "show", "--provider", "claude")
    out = r.stdout.decode() + r.stderr.decode()
    assert ".claude" in out and "read-write" in out, out
    assert "hooks/" in out and ".codex" in out, out


def test_unknown_provider_refused_by_session_create(ctx):
    """Issue 37: an unknown provider is an error (it was a warning and a
    session without a sandbox); an unknown model is still a warning."""
    d, c = setup(ctx)
    try:
        c.call("session.create", {"project": ctx.tmp, "provider": "nosuch",
                                  "model": "nomodel", "sandbox": "strict"})
        raise AssertionError("a session of an unknown provider was made")
    except RpcError as e:
        assert e.name == "sbox.InvalidParams" and e.field == "provider", e
        assert 'provider "nosuch"' in e.message, e
    r = d.cli("session", "create", "--project", ctx.tmp, "--provider",
              "nosuch2", "--sandbox", "strict")
    assert r.returncode != 0, r
    assert b'provider "nosuch2"' in r.stderr, r
    r = c.call("session.create", {"project": ctx.tmp, "provider": "codex",
                                  "model": "nomodel", "sandbox": "strict"})
    w = " ".join(r.get("warnings", []))
    assert 'model "nomodel"' in w and "provider" not in w, r


def test_builtin_provider_hosts_only_for_it(ctx):
    """Under strict (network none), Claude Code's built-in hosts pass the
    proxy for a claude session only. The host resolves (config "resolve")
    to a metadata address the proxy refuses by its address rule: "resolves
    to a" proves the name passed the allowlist, as root and as a user."""
    d, c = setup(ctx, {"resolve": {"api.anthropic.com": ["169.254.169.254"]}})
    sid = c.call("session.create", {"project": ctx.tmp, "provider": "claude",
                                    "sandbox": "strict"})["session"]
    r = run(c, sid, "curl -sS -i -m 20 http://api.anthropic.com/ 2>&1; true")
    assert "403" in r["stdout"] and "resolves to a" in r["stdout"], r
    assert "network is off" not in r["stdout"], r
    for other in ("codex", None):
        p = {"project": ctx.tmp, "sandbox": "strict"}
        if other:
            p["provider"] = other
        sid2 = c.call("session.create", p)["session"]
        r = run(c, sid2, "curl -sS -i -m 20 http://api.anthropic.com/ 2>&1;"
                " true")
        assert "403" in r["stdout"] and "network is off" in r["stdout"], r
