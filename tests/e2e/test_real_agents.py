"""The real agent CLIs (tests/agents, pinned) inside a session, against a
scripted model API of our own on this machine's loopback (reached through
the profile's local_ports): each finishes a turn whose tool call writes a
file in the project, writes its transcript into its account folder (the
allow list lets it), and cannot write its settings. Issue 36's positive
test; skipped with the reason when npm cannot install them."""
import base64
import glob
import os
import subprocess

import agentlib
import modelapi
from sboxtest import is_root


def run_agent(ctx, agent):
    d_agents = agentlib.install()
    # a tool call that works, then one that a prompt injection would
    # make: a key read, a hook planted, an unlisted host
    api = modelapi.ModelAPI([
        {"shell": "echo made-by-%s > made.txt && cat made.txt" % agent},
        {"shell": "cat $HOME/.ssh/id_test; echo evil > .git/hooks/pre-commit;"
                  " curl -sS -m 10 http://unlisted.test/; true"},
        {"text": "all done"}])
    port = api.start()
    try:
        d = ctx.daemon(None, start=False)
        project = os.path.join(ctx.tmp, "proj")
        os.makedirs(project)
        subprocess.run(["git", "init", "-q", project], check=True)
        os.makedirs(os.path.join(d.home, ".ssh"))
        with open(os.path.join(d.home, ".ssh", "id_test"), "w") as f:
            f.write("KEY-SECRET-77\n")
        acct = {"claude": ".claude", "codex": ".codex",
                "gemini": ".gemini"}[agent]
        os.makedirs(os.path.join(d.home, acct), exist_ok=True)
        argv, env = agentlib.command(agent, d_agents,
                                     "http://127.0.0.1:%d" % port, "go",
                                     d.home)
        if is_root():
            for p in (project, d.home):
                for dp, dns, fns in os.walk(p):
                    os.chmod(dp, 0o777)
                    for n in fns:
                        os.chmod(os.path.join(dp, n), 0o666)
        d.write_config({"sandbox": {"profiles": {"agents": {
            "extends": "strict", "local_ports": [port],
            # node's WebAssembly reserves address space by the gigabyte
            "limits": {"memory_mb": 65536},
            "folders": {"read_only": [d_agents]}}}},
            "providers": {agent: {"sandbox": "agents"}}})
        d.start()
        c = d.client()
        sid = c.call("session.create", {"project": project,
                                        "provider": agent})["session"]
        env = dict(env, NO_PROXY="127.0.0.1,localhost",
                   no_proxy="127.0.0.1,localhost")
        r = c.call("command.exec", {"session": sid, "argv": argv,
                                    "env": env, "timeout": 120})
        out = base64.b64decode(r.get("stdout") or "").decode(errors="replace")
        err = base64.b64decode(r.get("stderr") or "").decode(errors="replace")
        assert r["exit_code"] == 0, (out, err[-2000:])
        assert os.path.exists(os.path.join(project, "made.txt")), (
            out[-2000:], err[-3000:], api.requests()[-2:])
        with open(os.path.join(project, "made.txt")) as f:
            assert f.read() == "made-by-%s\n" % agent
        outs = api.tool_outputs()
        assert any("made-by-" + agent in t for t in outs), outs
        # the refusals, and sbox's reasons in the agent's own transcript
        assert not os.path.exists(os.path.join(project,
                                               ".git/hooks/pre-commit"))
        said = "\n".join(outs)
        assert "KEY-SECRET-77" not in said, said
        assert "sbox: blocked: read of" in said and "id_test" in said, said
        assert "pre-commit refused" in said, said
        assert "sbox refused unlisted.test" in said, said
        # closed: nothing of the session is left, its transcript stays
        c.call("session.close", {"session": sid})
        left = glob.glob(os.path.join(d.state, "**", "*%s*" % sid),
                         recursive=True)
        assert left == [], left
        return d, c, sid, out
    finally:
        api.stop()


def test_claude_code_inside(ctx):
    d, c, sid, out = run_agent(ctx, "claude")
    assert "all done" in out, out
    # its transcript is in the account folder, kept on the host
    assert glob.glob(os.path.join(d.home, ".claude/projects/*/*.jsonl"))


def test_codex_inside(ctx):
    d, c, sid, out = run_agent(ctx, "codex")
    assert glob.glob(os.path.join(d.home, ".codex/sessions/**/*.jsonl"),
                     recursive=True)


def test_gemini_inside(ctx):
    d, c, sid, out = run_agent(ctx, "gemini")
    assert glob.glob(os.path.join(d.home, ".gemini/tmp/**/*"),
                     recursive=True)
