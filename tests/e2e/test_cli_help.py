"""End-to-end tests of the CLI of issue 15: --help on every command and
subcommand, "did you mean", one-line option errors, --json anywhere and
exactly one JSON document on stdout for every command, human text for
session close/allow-host, sbox command list|read|wait|kill, config check
with every error, daemon reload, warnings for silent drops, the approval
note, a missing program named, bash completion. They pass as root and as an
unprivileged user."""
import json
import os
import subprocess
import time

import sboxtest
from clilib import sbox_path, text
from sandboxlib import make_home

CONFIG = {"sandbox": {"profiles": {
    "guarded": {"extends": "workspace", "exclude": ["touch excluded-*"],
                "folders": {"read_only": ["~/no-such-folder"]}}}}}


def commands(d):
    r = d.cli("--json", "help")
    assert r.returncode == 0, text(r)
    return json.loads(r.stdout)["commands"]


def test_cli_help_everywhere(ctx):
    d = ctx.daemon()
    cmds = commands(d)
    assert len(cmds) >= 25, cmds
    seen = set()
    for c in cmds:
        words = [c["command"]] + ([c["subcommand"]] if c["subcommand"] else [])
        for args in (words + ["--help"], words + ["-h"], ["help"] + words):
            r = d.cli(*args)
            assert r.returncode == 0, (args, text(r))
            o = r.stdout.decode()
            assert o.startswith("usage: sbox " + c["command"]), (args, o)
            assert r.stderr == b"", (args, text(r))
        if c["command"] not in seen:
            seen.add(c["command"])
            r = d.cli(c["command"], "--help")
            assert r.returncode == 0 and "usage: sbox" in r.stdout.decode(), text(r)
    # --help after a "--" belongs to the command run, not to sbox
    proj = os.path.join(ctx.tmp, "p")
    os.makedirs(proj)
    r = d.cli("run", "--sandbox", "none", "--project", proj, "--", "sh",
              "-c", "echo \"$@\"", "sh", "--help", "--json")
    assert r.returncode == 0 and r.stdout.decode() == "--help --json\n", text(r)


def test_cli_typos_suggest(ctx):
    d = ctx.daemon()
    for args, want in ((["sesion", "list"], "did you mean 'session'"),
                       (["sandbx"], "did you mean 'sandbox'"),
                       (["session", "lst"], "did you mean 'sbox session list'"),
                       (["sandbox", "shwo", "x"], "did you mean 'sbox sandbox show'"),
                       (["command", "wiat", "1"], "did you mean 'sbox command wait'"),
                       (["help", "sesion"], "did you mean 'session'")):
        r = d.cli(*args)
        err = r.stderr.decode()
        assert r.returncode == 2, (args, text(r))
        assert want in err, (args, err)
        assert len(err.strip().splitlines()) == 1 and err.startswith("sbox: "), err


def test_cli_option_errors_one_line(ctx):
    d = ctx.daemon()
    for args, cmd in ((["run", "--bogus", "--", "true"], "run"),
                      (["session", "create", "--projct", "/tmp"], "session create"),
                      (["session", "exec", "x", "--cwd"], "session exec"),
                      (["sandbox", "resolve", "--nope"], "sandbox resolve"),
                      (["command", "kill", "1", "--sig", "9"], "command kill"),
                      (["daemon", "status", "-x"], "daemon status"),
                      (["--bogus", "version"], None)):
        r = d.cli(*args)
        err = r.stderr.decode()
        assert r.returncode == 2, (args, text(r))
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("sbox: "), (args, err)
        if cmd:
            assert "sbox help %s" % cmd in err, (args, err)
        assert r.stdout == b"", (args, text(r))


def one_json(d, *args, rc=0, **kw):
    r = d.cli(*args, **kw)
    assert r.returncode == rc, (args, r.returncode, text(r))
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        raise AssertionError("sbox %s: stdout is not one JSON document (%s):\n%s"
                             % (" ".join(args), e, text(r)))


def test_cli_json_every_command(ctx):
    d = ctx.daemon(CONFIG)
    make_home(d.home)
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    # --json before the command, after it, and after the subcommand
    s = one_json(d, "session", "create", "--project", proj, "--sandbox",
                 "workspace", "--json")
    sid = s["session"]
    one_json(d, "--json", "version")
    one_json(d, "version", "--json")
    one_json(d, "daemon", "status", "--json")
    one_json(d, "--json", "help")
    one_json(d, "--json", "help", "session")
    one_json(d, "session", "list", "--json")
    one_json(d, "session", "--json", "info", sid)
    j = one_json(d, "--json", "session", "exec", sid, "--", "sh", "-c",
                 "echo out; echo err >&2; exit 3", rc=3)
    assert j["stdout_text"] == "out\n" and j["stderr_text"] == "err\n", j
    assert j["exit_code"] == 3 and j["sandboxed"] is True, j
    j = one_json(d, "session", "send", sid, "--stdin", "--json",
                 input=b"echo sent\n")
    assert j["stdout_text"] == "sent\n", j
    job = one_json(d, "session", "exec", sid, "--detach", "--json", "--",
                   "sh", "-c", "echo bg; sleep 30")
    one_json(d, "command", "list", sid, "--json")
    # killed only once it has written (a kill before the echo would leave
    # no output to check)
    sboxtest.wait_for(lambda: one_json(
        d, "command", "read", str(job["command"]), "--json").get(
        "stdout_text") == "bg\n", 30, 0.05, "the job's output")
    one_json(d, "command", "kill", str(job["command"]), "--json")
    j = one_json(d, "command", "wait", str(job["command"]), "--json", rc=143)
    assert j["stdout_text"] == "bg\n" and j["sandboxed"] is True, j
    one_json(d, "session", "log", sid, "--json")
    one_json(d, "session", "allow-host", sid, "example.com", "--json")
    one_json(d, "sandbox", "list", "--json")
    one_json(d, "sandbox", "show", "strict", "--json")
    one_json(d, "sandbox", "resolve", "--json")
    one_json(d, "sandbox", "status", "--session", sid, "--json")
    one_json(d, "approvals", "--json")
    one_json(d, "audit", "--json")
    one_json(d, "config", "check", "--json")
    one_json(d, "daemon", "reload", "--json")
    one_json(d, "completion", "bash", "--json")
    j = one_json(d, "run", "--json", "--project", proj, "--", "echo", "r")
    assert j["stdout_text"] == "r\n", j
    # failures are one JSON document too, the error inside
    j = one_json(d, "--json", "session", "info", "0000000000000000", rc=1)
    assert j["error"]["name"] == "sbox.SessionNotFound", j
    j = one_json(d, "--json", "approve", "999", rc=1)
    assert "error" in j, j
    one_json(d, "session", "close", sid, "--json")
    one_json(d, "daemon", "stop", "--json")


def test_cli_close_and_allow_host_are_text(ctx):
    d = ctx.daemon()
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    sid = d.cli("session", "create", "--project", proj, "--sandbox",
                "workspace").stdout.decode().strip()
    r = d.cli("session", "allow-host", sid, "example.com")
    o = r.stdout.decode()
    assert r.returncode == 0 and not o.startswith("{"), text(r)
    assert "example.com" in o and sid in o, o
    r = d.cli("session", "close", sid)
    o = r.stdout.decode()
    assert r.returncode == 0 and o == "session %s closed\n" % sid, text(r)


def test_cli_command_jobs(ctx):
    d = ctx.daemon()
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    sid = d.cli("session", "create", "--project", proj, "--sandbox",
                "workspace").stdout.decode().strip()
    r = d.cli("session", "exec", sid, "--detach", "--", "sh", "-c",
              "echo started; sleep 0.3; echo finished; exit 4")
    cid = r.stdout.decode().strip()
    assert r.returncode == 0 and cid.isdigit(), text(r)
    r = d.cli("command", "list", sid)
    lines = r.stdout.decode().splitlines()
    assert lines[0].split()[0] == "COMMAND", lines
    assert any(l.split()[0] == cid for l in lines[1:]), lines
    r = d.cli("command", "wait", cid)
    assert r.returncode == 4, text(r)
    assert r.stdout.decode() == "started\nfinished\n", text(r)
    r = d.cli("command", "read", cid)
    assert r.returncode == 0 and "finished" in r.stdout.decode(), text(r)
    # the id of session log is the same
    j = json.loads(d.cli("session", "log", sid, "--json").stdout)
    assert int(cid) in [c["command"] for c in j["commands"]], j
    r = d.cli("session", "exec", sid, "--detach", "--", "sleep", "30")
    cid = r.stdout.decode().strip()
    r = d.cli("command", "kill", cid, "--signal", "9")
    assert r.returncode == 0 and ("command %s" % cid) in r.stdout.decode(), text(r)
    r = d.cli("command", "wait", cid)
    assert r.returncode == 137, text(r)
    r = d.cli("command", "read", "abc")
    assert r.returncode == 2, text(r)
    d.cli("session", "close", sid)


def test_cli_config_check_and_reload(ctx):
    d = ctx.daemon({})
    bad = os.path.join(ctx.tmp, "bad.json")
    with open(bad, "w") as f:
        json.dump({"bogus": 1, "sandbox": {"all_sessions": "nope", "profiles": {
            "a": {"hosts": ["bad host"], "network": "x"}}}}, f)
    r = d.cli("config", "check", bad)
    assert r.returncode == 1, text(r)
    o = r.stdout.decode()
    for want in ("bogus", "hosts[0]", "network", "all_sessions", "4 errors"):
        assert want in o, (want, o)
    j = one_json(d, "--json", "config", "check", bad, rc=1)
    assert j["ok"] is False and len(j["errors"]) == 4, j
    r = d.cli("config", "check")
    assert r.returncode == 0 and d.config in r.stdout.decode(), text(r)
    r = d.cli("config", "check", os.path.join(ctx.tmp, "nope", "x.json"))
    assert r.returncode == 0, text(r)    # a missing file is an empty config
    # daemon reload: a good file is loaded, a broken one refused
    d.write_config({"sandbox": {"all_sessions": "strict"}})
    r = d.cli("daemon", "reload")
    assert r.returncode == 0 and "reloaded" in r.stdout.decode(), text(r)
    j = one_json(d, "--json", "sandbox", "resolve")
    assert j["profile"] == "strict", j
    d.write_config("{oops")
    r = d.cli("daemon", "reload")
    assert r.returncode == 1 and "invalid JSON" in r.stderr.decode(), text(r)
    assert one_json(d, "--json", "sandbox", "resolve")["profile"] == "strict"


def test_cli_warnings_and_notes(ctx):
    d = ctx.daemon(CONFIG)
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    # an unknown provider is refused (issue 37), with the closest name
    r = d.cli("sandbox", "resolve", "--provider", "claud")
    assert r.returncode != 0, text(r)
    assert 'no provider "claud"' in r.stderr.decode(), text(r)
    assert 'did you mean "claude' in r.stderr.decode(), text(r)
    # unknown model or space in resolve
    r = d.cli("sandbox", "resolve", "--model", "m", "--space", "s")
    err = r.stderr.decode()
    assert r.returncode == 0, text(r)
    for w in ('no model "m"', 'no space "s"'):
        assert w in err, (w, err)
    j = one_json(d, "--json", "sandbox", "resolve", "--model", "nope")
    assert j["warnings"] and j["chosen_by"] == "default", j
    r = d.cli("session", "create", "--project", proj, "--sandbox", "guarded")
    sid = r.stdout.decode().strip()
    # a granted folder that does not exist
    assert "warning: the folder %s/no-such-folder" % d.home in r.stderr.decode(), text(r)
    j = one_json(d, "--json", "run", "--sandbox", "guarded", "--project",
                 proj, "--", "true")
    assert any("no-such-folder" in w for w in j["warnings"]), j
    # a variable the profile drops
    r = d.cli("session", "exec", sid, "--env", "MY_TOKEN=x", "--", "sh",
              "-c", "echo ${MY_TOKEN:-unset}")
    assert r.stdout.decode() == "unset\n", text(r)
    assert "warning: MY_TOKEN is not passed" in r.stderr.decode(), text(r)
    j = one_json(d, "--json", "session", "exec", sid, "--env", "MY_TOKEN=x",
                 "--", "true")
    assert any("MY_TOKEN" in w for w in j["warnings"]), j
    # a program that does not exist is named
    r = d.cli("session", "exec", sid, "--", "no-such-program-x")
    assert r.returncode != 0, text(r)
    assert "no-such-program-x" in r.stderr.decode(), text(r)
    # a command matching exclude: a line says it waits for a person
    r = d.cli("session", "exec", sid, "--", "touch", "excluded-1")
    assert "matches an exclude pattern" in r.stderr.decode(), text(r)
    assert r.returncode == 77, text(r)   # no approver: refused at once
    d.cli("session", "close", sid)


def test_cli_bash_completion(ctx):
    d = ctx.daemon()
    r = d.cli("completion", "bash")
    assert r.returncode == 0, text(r)
    script = r.stdout.decode()
    assert "complete -o default -F _sbox sbox" in script
    for w in ("session", "create", "--project", "command", "wait"):
        assert w in script, w
    chk = subprocess.run(["bash", "-n"], input=r.stdout, capture_output=True)
    assert chk.returncode == 0, chk.stderr
    # completing "sbox session c" offers create and close
    prog = script + '\nCOMP_WORDS=(sbox session c); COMP_CWORD=2; _sbox; echo "${COMPREPLY[@]}"\n'
    out = subprocess.run(["bash", "-c", prog], capture_output=True)
    assert set(out.stdout.decode().split()) == {"create", "close", "choices"}, out
