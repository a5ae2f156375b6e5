"""Agents on the host, their shell commands in a session (issue 37 item 6,
issue 43 item 5): `sbox shell` (the program an agent takes as its shell),
`sbox agent claude|codex|gemini` (the real CLI on this computer, pointed at
sbox shell, its session closed when it exits) and session.create's
close_with_client. The agents are the pinned real CLIs (tests/agents)
against modelapi's scripted model API on this machine's loopback: the
agent itself reaches it directly, its tool commands run in the sandbox."""
import glob
import json
import os
import signal
import subprocess
import time

import agentlib
import modelapi
import sboxtest
from sboxtest import is_root, wait_for


def _sbox():
    return os.path.abspath(os.path.join(sboxtest.BIN, "sbox"))


def _project(ctx, d, name="proj"):
    """A git project (its hooks folder there) that the sandbox's uid may
    write when the test runs as root."""
    project = os.path.join(ctx.tmp, name)
    os.makedirs(os.path.join(project, "sub", "deeper"))
    subprocess.run(["git", "init", "-q", project], check=True)
    if is_root():
        for p in (project, d.home):
            for dp, dns, fns in os.walk(p):
                os.chmod(dp, 0o777)
                for n in fns:
                    os.chmod(os.path.join(dp, n), 0o666)
    return project


def _session(d, project, extra=()):
    r = d.cli("session", "create", "--project", project, "--sandbox",
              "workspace", *extra)
    assert r.returncode == 0, r.stderr
    return r.stdout.decode().strip()


def _shell(d, *args, cwd, input=None, env=None, argv0=None):
    e = d.env()
    if env:
        e.update(env)
    argv = [argv0 or _sbox()] + list(args)
    return subprocess.run(argv, cwd=cwd, env=e, input=input,
                          capture_output=True, timeout=60)


def test_shell_exit_codes_stdin_and_flags(ctx):
    d = ctx.daemon({})
    project = _project(ctx, d)
    sid = _session(d, project)
    r = _shell(d, "shell", sid, "-c", "exit 7", cwd=project)
    assert r.returncode == 7, r.stderr
    r = _shell(d, "shell", sid, "-c", "kill -TERM $$", cwd=project)
    assert r.returncode == 128 + signal.SIGTERM, r.stderr
    r = _shell(d, "shell", sid, "-c", "tr a-z A-Z; echo err >&2",
               cwd=project, input=b"from stdin\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"FROM STDIN\n"
    assert b"err\n" in r.stderr
    # the shapes agents call a shell with
    for flags in (["-c"], ["-l", "-c"], ["-lc"], ["-c", "-l"], ["--login",
                  "-c"], ["-ic"], ["-e", "-c"]):
        r = _shell(d, "shell", sid, *flags, 'echo "$0:$1:$SBOX_SANDBOX"',
                   "nm", "a1", cwd=project)
        assert r.returncode == 0, (flags, r.stderr)
        assert r.stdout == b"nm:a1:workspace\n", (flags, r.stdout)
    # commands from stdin when there is no -c and no terminal
    r = _shell(d, "shell", sid, cwd=project, input=b"echo one; exit 4\n")
    assert (r.returncode, r.stdout) == (4, b"one\n"), r.stderr
    # -e is passed to the inner shell
    r = _shell(d, "shell", sid, "-ec", "false; echo no", cwd=project)
    assert r.returncode == 1 and r.stdout == b"", r.stdout
    r = _shell(d, "shell", sid, "--bogus", "-c", "true", cwd=project)
    assert r.returncode == 2
    r = _shell(d, "shell", "0123456789abcdef", "-c", "true", cwd=project)
    assert r.returncode == 1 and b"sbox:" in r.stderr


def test_shell_cwd_mapping_and_session_from_env(ctx):
    d = ctx.daemon({})
    project = _project(ctx, d)
    sid = _session(d, project)
    deeper = os.path.join(project, "sub", "deeper")
    r = _shell(d, "shell", sid, "-c", "pwd", cwd=deeper)
    assert r.stdout.decode().strip() == deeper, r.stderr
    # outside the project: the project's top
    r = _shell(d, "shell", sid, "-c", "pwd", cwd=ctx.tmp)
    assert r.stdout.decode().strip() == project, r.stderr
    # a folder whose name starts like the project's is outside it
    os.makedirs(project + "-other")
    r = _shell(d, "shell", sid, "-c", "pwd", cwd=project + "-other")
    assert r.stdout.decode().strip() == project, r.stderr
    # SBOX_SESSION: "sbox shell -c CMD" with no session argument
    r = _shell(d, "shell", "-lc", "pwd; exit 5", cwd=deeper,
               env={"SBOX_SESSION": sid})
    assert r.returncode == 5 and r.stdout.decode().strip() == deeper
    # the one-path forms: the links sbox-bash and shell/bash that make
    # makes, run as a shell (no session argument at all)
    for link in ("sbox-bash", os.path.join("shell", "bash")):
        path = os.path.join(os.path.dirname(_sbox()), link)
        r = _shell(d, "-c", "echo via $0", cwd=deeper, argv0=path,
                   env={"SBOX_SESSION": sid})
        assert r.returncode == 0 and r.stdout.startswith(b"via "), (
            link, r.stdout, r.stderr)
    r = _shell(d, "shell", "-c", "true", cwd=deeper)
    assert r.returncode == 2 and b"SBOX_SESSION" in r.stderr


def test_shell_refusals_on_stderr(ctx):
    d = ctx.daemon({})
    os.makedirs(os.path.join(d.home, ".ssh"))
    with open(os.path.join(d.home, ".ssh", "id_rsa"), "w") as f:
        f.write("PRIVATE KEY\n")
    project = _project(ctx, d)
    sid = _session(d, project)
    r = _shell(d, "shell", sid, "-c", "echo x > .git/hooks/pre-commit",
               cwd=project)
    assert r.returncode != 0
    err = r.stderr.decode()
    assert "sbox: blocked: " in err and ".git/hooks/pre-commit" in err, err
    assert not os.path.exists(os.path.join(project, ".git/hooks/pre-commit"))
    r = _shell(d, "shell", sid, "-c", "cat ~/.ssh/id_rsa", cwd=project)
    assert b"PRIVATE KEY" not in r.stdout
    assert b"sbox: blocked: read of" in r.stderr and b"id_rsa" in r.stderr


def test_close_with_client_rpc(ctx):
    d = ctx.daemon({})
    project = _project(ctx, d)
    a = d.client()
    sid = a.call("session.create", {"project": project, "sandbox":
                                    "workspace",
                                    "close_with_client": True})["session"]
    info = a.call("session.info", {"session": sid})
    assert info["close_with_client"] is True and info["state"] == "ready"
    # another client coming and going changes nothing
    b = d.client()
    b.call("session.info", {"session": sid})
    b.close()
    time.sleep(0.3)
    c = d.client()
    assert c.call("session.info", {"session": sid})["live"] is True
    # a session made without it outlives its client
    other = a.call("session.create", {"project": project, "sandbox":
                                      "workspace"})["session"]
    a.close()

    def ended():
        return not c.call("session.info", {"session": sid})["live"]
    wait_for(ended, 10, what="the session to close with its client")
    rec = c.call("session.info", {"session": sid})
    assert rec["state"] == "closed"
    assert rec["close_reason"] == "ended_with_client", rec
    assert not os.path.exists(info["scratch"])
    assert c.call("session.info", {"session": other})["live"] is True
    listed = c.call("session.list", {"all": True})["sessions"]
    assert [s["close_reason"] for s in listed if s["session"] == sid] == \
        ["ended_with_client"]


def test_session_list_idle_time(ctx):
    """session list shows each live session's idle time: 0 while a command
    runs, counting from the end of the last one."""
    d = ctx.daemon({})
    project = _project(ctx, d)
    c = d.client()
    sid = c.call("session.create", {"project": project,
                                    "sandbox": "workspace"})["session"]

    def idle():
        return [s.get("idle_s") for s in c.call("session.list")["sessions"]
                if s["session"] == sid][0]
    c.call("command.exec", {"session": sid, "argv": ["sleep", "1.5"]})
    assert idle() <= 1
    time.sleep(2.2)
    assert idle() >= 2
    c.call("command.exec", {"session": sid, "argv": ["sleep", "4"],
                            "detach": True})
    time.sleep(2.2)
    assert idle() == 0
    r = d.cli("session", "list")
    assert r.returncode == 0 and b"IDLE" in r.stdout and b" 0s " in r.stdout, r


def test_close_with_client_cli_sigkill(ctx):
    d = ctx.daemon({})
    project = _project(ctx, d)
    p = subprocess.Popen([_sbox(), "session", "create", "--project", project,
                          "--sandbox", "workspace", "--close-with-client"],
                         env=d.env(), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        sid = p.stdout.readline().decode().strip()
        assert len(sid) == 16, p.stderr.read()
        assert p.stdout.read() == b""   # stdout closed, sbox still there
        assert p.poll() is None
        r = _shell(d, "shell", sid, "-c", "echo alive", cwd=project)
        assert r.stdout == b"alive\n"
        p.send_signal(signal.SIGKILL)
        p.wait(10)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    c = d.client()
    wait_for(lambda: not c.call("session.info", {"session": sid})["live"],
             10, what="the session to close with its killed client")
    rec = c.call("session.info", {"session": sid})
    assert rec["close_reason"] == "ended_with_client", rec
    r = d.cli("session", "info", sid)
    assert b"ended_with_client" in r.stdout, r.stdout


SETTINGS = {"claude": ".claude/settings.json", "codex": ".codex/config.toml",
            "gemini": ".gemini/settings.json"}


def run_host_agent(ctx, agent):
    """The agent on the host through `sbox agent`, against the mock: one
    turn writes a file in the project, one tries a hook, the agent's own
    settings, a key and an unlisted host; returns (daemon, api, result,
    tool outputs)."""
    d_agents = agentlib.install()
    settings = SETTINGS[agent]
    attack = ("echo x > .git/hooks/pre-commit; echo hacked >> ~/%s; "
              "cat ~/.ssh/id_rsa; curl -sS -m 10 https://unlisted.test/; "
              "echo attack-done" % settings)
    api = modelapi.ModelAPI([
        {"shell": "echo made-by-%s > made.txt && cat made.txt" % agent},
        {"shell": attack}, {"text": "all done"}])
    port = api.start()
    try:
        d = ctx.daemon({}, start=False)
        d.start()
        os.makedirs(os.path.join(d.home, ".ssh"))
        with open(os.path.join(d.home, ".ssh", "id_rsa"), "w") as f:
            f.write("PRIVATE KEY\n")
        sfile = os.path.join(d.home, settings)
        os.makedirs(os.path.dirname(sfile), exist_ok=True)
        argv, env = agentlib.command(agent, d_agents,
                                     "http://127.0.0.1:%d" % port, "go",
                                     d.home)
        if not os.path.exists(sfile):
            with open(sfile, "w") as f:
                f.write("{}\n" if sfile.endswith(".json") else "\n")
        with open(sfile) as f:
            before = f.read()
        project = _project(ctx, d)
        e = dict(d.env(), **env)
        e["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
        r = subprocess.run([_sbox(), "agent", "--bin", argv[0], agent] +
                           argv[1:], cwd=project, env=e,
                           capture_output=True, timeout=170)
        outs = api.tool_outputs()
        out = r.stdout.decode(errors="replace")
        err = r.stderr.decode(errors="replace")
        assert r.returncode == 0, (out[-2000:], err[-3000:], outs)
        with open(os.path.join(project, "made.txt")) as f:
            assert f.read() == "made-by-%s\n" % agent
        assert any("made-by-" + agent in t for t in outs), outs
        # the attacks: refused, and the transcript holds sbox's reasons
        t = [x for x in outs if "attack-done" in x or "blocked:" in x]
        assert t, outs
        t = "\n".join(t)
        assert not os.path.exists(os.path.join(project,
                                                ".git/hooks/pre-commit"))
        assert "sbox: blocked:" in t and ".git/hooks/pre-commit" in t, t
        with open(sfile) as f:
            assert f.read() == before
        assert settings.split("/")[-1] in t, t
        assert "PRIVATE KEY" not in t and "id_rsa" in t, t
        assert 'connection to unlisted.test:443 refused by rule "network ' \
            'allowlist"' in t, t
        # the session is closed and nothing of it is left
        c = d.client()
        assert c.call("session.list")["sessions"] == []
        rec = [s for s in c.call("session.list", {"all": True})["sessions"]
               if s.get("provider") in (agent, "claude-code", "gemini-cli")]
        assert len(rec) == 1 and rec[0]["state"] == "closed", rec
        left = glob.glob(os.path.join(d.state, "**", "*%s*" %
                                      rec[0]["session"]), recursive=True)
        assert left == [], left
        return d, api, r, outs
    finally:
        api.stop()


def test_claude_code_on_host(ctx):
    run_host_agent(ctx, "claude")


def test_codex_on_host(ctx):
    run_host_agent(ctx, "codex")


def test_gemini_on_host(ctx):
    run_host_agent(ctx, "gemini")


def test_agent_session_closes_when_sbox_is_killed(ctx):
    """sbox agent killed with SIGKILL while the agent's tool runs: sboxd
    closes its session (close_with_client) and the tool's command ends."""
    _agent_stopped(ctx, signal.SIGKILL, "ended_with_client")


def test_agent_sigterm_ends_the_cli_and_its_session(ctx):
    """SIGTERM to sbox agent goes to the CLI; once it has exited sbox
    closes the session itself and exits."""
    _agent_stopped(ctx, signal.SIGTERM, "closed by a client")


def _agent_stopped(ctx, sig, reason):
    d_agents = agentlib.install()
    api = modelapi.ModelAPI([{"shell": "echo started > started.txt; "
                              "sleep 60"}, {"text": "done"}])
    port = api.start()
    p = None
    try:
        d = ctx.daemon({})
        project = _project(ctx, d)
        argv, env = agentlib.command("claude", d_agents,
                                     "http://127.0.0.1:%d" % port, "go",
                                     d.home)
        e = dict(d.env(), **env)
        p = subprocess.Popen([_sbox(), "agent", "--bin", argv[0], "claude"] +
                             argv[1:], cwd=project, env=e,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        wait_for(lambda: os.path.exists(os.path.join(project, "started.txt")),
                 90, what="the agent's tool to start")
        c = d.client()
        live = c.call("session.list")["sessions"]
        assert len(live) == 1
        sid = live[0]["session"]
        os.kill(p.pid, sig)
        p.wait(30)
        wait_for(lambda: not c.call("session.info", {"session": sid})["live"],
                 15, what="the session to close with sbox agent")
        assert c.call("session.info", {"session": sid})["close_reason"] == \
            reason
    finally:
        if p is not None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
        api.stop()


def test_agent_usage(ctx):
    d = ctx.daemon({})
    r = d.cli("agent", "bogus")
    assert r.returncode == 2 and b"claude, codex and gemini" in r.stderr
    r = d.cli("agent", "claude", env={"PATH": "/nonexistent"})
    assert r.returncode == 1 and b"not found" in r.stderr, r.stderr
    r = d.cli("agent", "-x", "claude")
    assert r.returncode == 2 and b"unknown option" in r.stderr
    r = d.cli("agent", "--sandbox")
    assert r.returncode == 2 and b"needs a value" in r.stderr
    r = d.cli("agent", "--help")
    assert r.returncode == 0 and b"sbox agent" in r.stdout
    # nothing was made
    assert d.client().call("session.list")["sessions"] == []


def test_idle_close_s(ctx):
    """daemon.idle_close_s: a session with no running command, no client
    request about it and no close_with_client client for that long is
    closed; a running command keeps it, and so does its creating client."""
    d = ctx.daemon({"daemon": {"idle_close_s": 1}})
    project = _project(ctx, d)
    c = d.client()
    sid = c.call("session.create", {"project": project,
                                    "sandbox": "workspace"})["session"]
    held = c.call("session.create", {"project": project, "sandbox":
                                     "workspace",
                                     "close_with_client": True})["session"]
    r = c.call("command.exec", {"session": sid, "argv": ["sleep", "2.5"]})
    assert r["exit_code"] == 0     # not closed while it ran
    o = d.client()                 # asks about neither
    wait_for(lambda: not any(s["session"] == sid for s in
                             o.call("session.list")["sessions"]), 10,
             what="the idle session to close")
    rec = [s for s in o.call("session.list", {"all": True})["sessions"]
           if s["session"] == sid][0]
    assert rec["close_reason"].startswith("idle"), rec
    time.sleep(1.5)
    assert any(s["session"] == held for s in
               o.call("session.list")["sessions"])
    r = d.cli("config", "check", d.config)
    assert r.returncode == 0, r.stdout + r.stderr
    d.write_config({"daemon": {"idle_close_s": -1}})
    r = d.cli("config", "check", d.config)
    assert r.returncode == 1 and b"idle_close_s" in r.stdout + r.stderr
