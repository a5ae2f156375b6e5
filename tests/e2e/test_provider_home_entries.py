"""End-to-end tests of issue 22 item 5 and issue 23 item 1 (a provider's
own home): an entry left in a persistent provider home that cannot be bound
(a symlink where a protected name lies, a device, a fifo) never stops the
provider's sessions: it is moved aside, reported in the session's
warnings, and `sbox sandbox check --provider P` lists it; the agents'
state folders (.claude, .codex, ...) can be made in that home while the
files in them that run programs later stay read-only."""
import base64
import json
import os

from sboxtest import is_root


def run(c, sid, script, timeout=60):
    r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c", script],
                                "timeout": timeout})
    for k in ("stdout", "stderr"):
        r[k] = base64.b64decode(r.get(k) or "").decode(errors="replace")
    return r


def setup(ctx):
    d = ctx.daemon({"providers": {"agent": {"sandbox": "strict",
                                            "home": "persistent"}}})
    return d, d.client()


def test_symlink_in_provider_home_still_starts(ctx):
    d, c = setup(ctx)
    sid = c.call("session.create", {"project": ctx.tmp,
                                    "provider": "agent"})["session"]
    # the sandbox cannot leave links where protected names lie (the
    # guard refuses a symlink at a leading part of one)...
    r = run(c, sid, 'mkdir -p "$HOME/.local/share" "$HOME/real/site" && '
            'ln -s ../../real "$HOME/.local/share/nvim"; echo rc=$?; '
            'ln -s /etc "$HOME/.vim"; echo rc2=$?; mkfifo "$HOME/.zshrc";'
            ' echo rc3=$?; ls -la "$HOME" "$HOME/.local/share"')
    c.call("session.close", {"session": sid})
    home = os.path.join(d.state, "homes", "agent")
    assert not os.path.lexists(os.path.join(home, ".local/share/nvim")), r
    # ...but an older sbox, or the person on the host, may have: plant them
    if not os.path.isdir(os.path.join(home, ".local", "share")):
        os.makedirs(os.path.join(home, ".local", "share"))
    os.makedirs(os.path.join(home, "real", "site"), exist_ok=True)
    for p, target in ((".local/share/nvim", "../../real"), (".vim", "/etc")):
        if not os.path.lexists(os.path.join(home, p)):
            os.symlink(target, os.path.join(home, p))
    made = [p for p in (".local/share/nvim", ".vim", ".zshrc")
            if os.path.lexists(os.path.join(home, p))]
    assert ".local/share/nvim" in made, r
    # a fifo where a protected file lies (left by an older sbox, or put
    # there on the host): not a file that can be bound read-only
    os.mkfifo(os.path.join(home, ".vimrc"))
    made.append(".vimrc")
    # every later session still starts
    r = c.call("session.create", {"project": ctx.tmp, "provider": "agent"})
    sid = r["session"]
    w = " ".join(r.get("warnings", []))
    for p in made:
        assert p in w, (p, r)
        assert not os.path.lexists(os.path.join(home, p)), p
    # the link itself was moved, never what it leads to
    assert os.path.isdir(os.path.join(home, "real", "site"))
    aside = os.path.join(d.state, "homes", ".aside-agent")
    moved = [n for n in os.listdir(aside) if n.startswith(".local%share%nvim")]
    assert len(moved) == 1 and os.path.islink(os.path.join(aside, moved[0]))
    out = run(c, sid, "echo ok")
    assert out["stdout"].strip() == "ok", out
    r = d.cli("--json", "sandbox", "check", "--provider", "agent",
              timeout=120)
    j = json.loads(r.stdout)
    steps = {s["id"]: s for s in j["steps"]}
    detail = steps["provider_home"]["detail"]
    for p in made:
        assert p in detail, (p, detail)


def test_agent_state_folders_in_provider_home(ctx):
    d, c = setup(ctx)
    sid = c.call("session.create", {"project": ctx.tmp,
                                    "provider": "agent"})["session"]
    r = run(c, sid, 'for a in .claude .codex .gemini .copilot .cursor; do '
            'mkdir -p "$HOME/$a/sub" && echo t > "$HOME/$a/sub/t" && '
            'echo ok-$a; done; echo x > "$HOME/.claude/settings.json"; '
            'echo rc=$?; mkdir "$HOME/.claude/hooks"; echo rc2=$?; '
            'echo x > "$HOME/.codex/config.toml"; echo rc3=$?')
    for a in (".claude", ".codex", ".gemini", ".copilot", ".cursor"):
        assert "ok-" + a in r["stdout"], r
    for k in ("rc=0", "rc2=0", "rc3=0"):
        assert k not in r["stdout"], r
    home = os.path.join(d.state, "homes", "agent")
    assert os.path.isfile(os.path.join(home, ".claude", "sub", "t"))
    assert not os.path.exists(os.path.join(home, ".claude", "settings.json"))


def test_acp_agent_builtin_home_of_its_own(ctx):
    """The built-in ACP agents (Copilot CLI, Cursor, Grok) run in a home of
    their own with no config: not signed in there (the person's ~/.copilot
    is not theirs to read), their state folder made there."""
    d = ctx.daemon(None, start=False)
    os.makedirs(os.path.join(d.home, ".copilot"))
    with open(os.path.join(d.home, ".copilot", "config.json"), "w") as f:
        f.write('{"token": "person-copilot-4e1"}\n')
    d.write_config({})
    d.start()
    c = d.client()
    sid = c.call("session.create", {"project": ctx.tmp, "provider": "copilot",
                                    "sandbox": "strict"})["session"]
    r = run(c, sid, 'echo "$HOME"; cat "$HOME/.copilot/config.json" 2>&1; '
            'mkdir -p "$HOME/.copilot/session-state" && echo made')
    home = os.path.join(d.state, "homes", "copilot")
    assert r["stdout"].split("\n")[0] == d.home, r	# the same path inside
    assert "person-copilot-4e1" not in r["stdout"], r
    assert "made" in r["stdout"], r
    assert os.path.isdir(os.path.join(home, ".copilot", "session-state"))
    assert not os.path.exists(os.path.join(d.home, ".copilot",
                                           "session-state"))
