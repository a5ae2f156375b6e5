"""The CLI forgives (issue 25, item 2): options anywhere before "--",
`session create` in the project by default (the git top level), `session
send` reading a piped stdin without --stdin, signal names for `command
kill`, "did you mean" for options, usage errors as one JSON document with
--json, `events` that dumps and exits unless --follow. They pass as root and
as an unprivileged user."""
import json
import os
import subprocess

import sboxtest
from clilib import text
from sandboxlib import make_project


def cli_in(d, cwd, *args, input=b"", timeout=60):
    return subprocess.run([os.path.join(sboxtest.BIN, "sbox")] + list(args),
                          input=input, capture_output=True, env=d.env(),
                          cwd=cwd, timeout=timeout)


def session(d, proj, sandbox="workspace"):
    r = d.cli("session", "create", "--project", proj, "--sandbox", sandbox,
              input=b"")
    assert r.returncode == 0, text(r)
    return r.stdout.decode().strip()


def test_options_anywhere_before_dashes(ctx):
    d = ctx.daemon(config={})
    proj = os.path.join(ctx.tmp, "p")
    make_project(proj)
    sid = session(d, proj)
    # before the id, after it, mixed; --json anywhere; --opt=value
    for args in (["session", "exec", "--no-tty", sid, "--", "echo", "a"],
                 ["session", "exec", sid, "--no-tty", "--", "echo", "a"],
                 ["session", "exec", "--cwd=.", "--no-tty", sid, "--env",
                  "X=1", "--", "echo", "a"]):
        r = d.cli(*args, input=b"")
        assert r.returncode == 0 and r.stdout == b"a\n", (args, text(r))
    # after "--" an option belongs to the command
    r = d.cli("session", "exec", "--no-tty", sid, "--", "echo", "--no-tty",
              input=b"")
    assert r.returncode == 0 and r.stdout == b"--no-tty\n", text(r)
    r = d.cli("session", "close", "--json", sid)
    assert r.returncode == 0 and json.loads(r.stdout)["closed"] is True, \
        text(r)
    # the old order still works
    r = d.cli("session", "create", "--sandbox", "strict", "--project", proj,
              input=b"")
    assert r.returncode == 0, text(r)


def test_did_you_mean_option(ctx):
    d = ctx.daemon(config={})
    for args, want in ((["session", "exec", "--no-tyy", "x", "--", "true"],
                        "did you mean --no-tty?"),
                       (["session", "create", "--projet", "/tmp"],
                        "did you mean --project?"),
                       (["run", "--sandbx", "strict", "--", "true"],
                        "did you mean --sandbox?")):
        r = d.cli(*args, input=b"")
        assert r.returncode == 2 and want in r.stderr.decode(), (args,
                                                                  text(r))
    r = d.cli("session", "exec", "--zzzzzzzz", "x", "--", "true")
    assert r.returncode == 2 and "did you mean" not in r.stderr.decode(), \
        text(r)


def test_session_create_defaults_to_the_project_here(ctx):
    """In a subfolder of a git work tree, the project is its top level;
    outside any, the current folder."""
    d = ctx.daemon(config={})
    proj = os.path.join(ctx.tmp, "repo")
    make_project(proj)
    sub = os.path.join(proj, "src", "deep")
    os.makedirs(sub)
    r = cli_in(d, sub, "--json", "session", "create")
    assert r.returncode == 0, text(r)
    assert json.loads(r.stdout)["project"] == os.path.realpath(proj), text(r)
    plain = os.path.join(ctx.tmp, "plain")
    os.makedirs(plain)
    r = cli_in(d, plain, "--json", "session", "create")
    assert r.returncode == 0, text(r)
    assert json.loads(r.stdout)["project"] == os.path.realpath(plain), \
        text(r)


def test_send_reads_a_piped_stdin(ctx):
    d = ctx.daemon(config={})
    proj = os.path.join(ctx.tmp, "p")
    make_project(proj)
    sid = session(d, proj)
    r = d.cli("session", "send", sid, input=b"echo from-pipe\n")
    assert r.returncode == 0 and r.stdout == b"from-pipe\n", text(r)
    r = d.cli("session", "send", sid, "--stdin", input=b"echo again\n")
    assert r.returncode == 0 and r.stdout == b"again\n", text(r)


def test_kill_takes_signal_names(ctx):
    d = ctx.daemon(config={})
    proj = os.path.join(ctx.tmp, "p")
    make_project(proj)
    sid = session(d, proj)
    for sig, num in (("KILL", 9), ("SIGINT", 2), ("term", 15), ("9", 9),
                     ("--signal=HUP", 1)):
        r = d.cli("session", "exec", sid, "--detach", "--", "sleep", "600",
                  input=b"")
        assert r.returncode == 0, text(r)
        cid = r.stdout.decode().split()[0]
        if sig.startswith("--"):
            r = d.cli("command", "kill", sig, cid)
        else:
            r = d.cli("command", "kill", cid, "--signal", sig)
        assert r.returncode == 0, (sig, text(r))
        r = d.cli("--json", "command", "wait", cid)
        j = json.loads(r.stdout)
        assert j["signal"] == num, (sig, j)
    r = d.cli("command", "kill", "1", "--signal", "NOPE")
    assert r.returncode == 2 and "signal name or number" in \
        r.stderr.decode(), text(r)


def test_json_usage_errors_are_one_document(ctx):
    d = ctx.daemon(config={})
    for args in (["--json", "bogus"], ["bogus", "--json"],
                 ["--json", "session", "exec", "--no-tyy", "x", "--", "true"],
                 ["--json", "--bogus-global"], ["--json"],
                 ["command", "kill", "1", "--signal", "NOPE", "--json"]):
        r = d.cli(*args, input=b"")
        assert r.returncode == 2, (args, text(r))
        j = json.loads(r.stdout)    # exactly one document
        assert j["error"]["name"] == "sbox.Usage" and \
            j["error"]["exit_code"] == 2 and j["error"]["message"], (args, j)


def test_events_dumps_and_exits(ctx):
    d = ctx.daemon(config={})
    c = d.client()
    c.call("daemon.reload")
    c.call("daemon.reload")
    # no --follow: the stored events, then exit (a timeout fails the test)
    r = d.cli("events", timeout=20)
    assert r.returncode == 0, text(r)
    lines = [json.loads(l) for l in r.stdout.decode().splitlines()]
    assert [e["topic"] for e in lines].count("config.reloaded") == 2, lines
    last = lines[-1]["seq"]
    r = d.cli("events", "--since", str(last - 1), timeout=20)
    assert r.returncode == 0, text(r)
    assert [json.loads(l)["seq"] for l in r.stdout.decode().splitlines()] \
        == [last], text(r)
    r = d.cli("events", "--since", str(last), timeout=20)
    assert r.returncode == 0 and r.stdout == b"", text(r)
    r = d.cli("events", "session.*", timeout=20)
    assert r.returncode == 0 and r.stdout == b"", text(r)
    # --follow keeps going: it ends only when the daemon does
    p = subprocess.Popen([os.path.join(sboxtest.BIN, "sbox"), "events",
                          "-f", "--since", "0", "config.*"], env=d.env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        seen = [json.loads(p.stdout.readline()) for _ in range(2)]
        assert all(e["replayed"] for e in seen), seen
        c.call("daemon.reload")
        live = json.loads(p.stdout.readline())
        assert live["topic"] == "config.reloaded" and \
            "replayed" not in live, live
        assert p.poll() is None
    finally:
        p.kill()
        p.wait()
    c.close()


def test_unknown_profile_names_refused_with_a_suggestion(ctx):
    d = ctx.daemon(config={"sandbox": {"profiles": {
        "mine": {"extends": "workspace"}}}})
    proj = os.path.join(ctx.tmp, "p")
    make_project(proj)
    for args in (["session", "create", "--project", proj, "--sandbox",
                  "strcit"],
                 ["run", "--project", proj, "--sandbox", "strcit", "--",
                  "true"],
                 ["sandbox", "show", "strcit"],
                 ["sandbox", "check", "--profile", "strcit"],
                 ["cache", "list", "--profile", "strcit"],
                 ["cache", "clear", "--profile", "strcit"],
                 ["session", "choices", "--project", proj, "--sandbox",
                  "strcit"]):
        r = d.cli(*args, input=b"", timeout=90)
        err = r.stderr.decode()
        assert r.returncode != 0, (args, text(r))
        assert "strcit" in err and 'did you mean "strict"' in err, (
            args, text(r))
    r = d.cli("cache", "list", "--profile", "mnie", input=b"")
    assert r.returncode == 1 and 'did you mean "mine"' in \
        r.stderr.decode(), text(r)
    r = d.cli("cache", "list", "--profile", "mine", input=b"")
    assert r.returncode == 0, text(r)


def test_config_keys_did_you_mean(ctx):
    d = ctx.daemon(config={})
    bad = os.path.join(ctx.tmp, "bad.json")
    with open(bad, "w") as f:
        json.dump({"sandbox": {"report_readz": True}}, f)
    r = d.cli("config", "check", bad)
    assert r.returncode == 1 and "did you mean report_reads?" in \
        (r.stdout + r.stderr).decode(), text(r)
    with open(bad, "w") as f:
        json.dump({"sandbx": {}}, f)
    r = d.cli("config", "check", bad)
    assert r.returncode == 1 and "did you mean sandbox?" in \
        (r.stdout + r.stderr).decode(), text(r)


def test_completion_of_ids_and_profiles(ctx):
    d = ctx.daemon(config={"sandbox": {"profiles": {
        "mine": {"extends": "workspace"}}}})
    proj = os.path.join(ctx.tmp, "p")
    make_project(proj)
    sid = session(d, proj)
    script = d.cli("completion", "bash").stdout.decode()
    sbox = os.path.join(sboxtest.BIN, "sbox")

    def complete(*words):
        prog = script + "\nCOMP_WORDS=(%s); COMP_CWORD=%d; _sbox; " \
            "echo \"${COMPREPLY[@]}\"\n" % (
                " ".join("'%s'" % w for w in (sbox,) + words), len(words))
        r = subprocess.run(["bash", "-c", prog], capture_output=True,
                           env=d.env(), timeout=30)
        assert r.returncode == 0, text(r)
        return r.stdout.decode().split()

    assert sid in complete("session", "exec", "")
    assert sid in complete("session", "info", sid[:3])
    assert complete("session", "create", "--sandbox", "m") == ["mine"]
    assert "strict" in complete("run", "--sandbox", "")
    assert "mine" in complete("sandbox", "show", "")
    assert complete("cache", "list", "--profile", "wor") == ["workspace"]
    r = d.cli("completion", "words", "sessions")
    assert r.returncode == 0 and r.stdout.decode().split() == [sid], text(r)


def test_one_time_format_for_people(ctx):
    """Text output shows times as local "YYYY-MM-DD HH:MM:SS" (JSON keeps
    *_at_ms)."""
    import re
    import time
    d = ctx.daemon(config={})
    proj = os.path.join(ctx.tmp, "p")
    make_project(proj)
    sid = session(d, proj)
    r = d.cli("--json", "session", "info", sid)
    ms = json.loads(r.stdout)["created_at_ms"]
    r = d.cli("session", "info", sid)
    m = re.search(r"^created\s+(\S+ \S+)$", r.stdout.decode(), re.M)
    assert m, text(r)
    want = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ms // 1000))
    assert m.group(1) == want, (m.group(1), want)
    r = d.cli("session", "exec", sid, "--no-tty", "--", "sh", "-c",
              "curl -sS -m 5 -o /dev/null http://refused.test/; true",
              input=b"")
    r = d.cli("session", "status", sid)
    line = [l for l in r.stdout.decode().splitlines() if "refused.test" in l]
    assert line and re.search(r"\(\d+x, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)",
                              line[0]), text(r)
