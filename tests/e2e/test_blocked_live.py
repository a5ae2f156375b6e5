"""What the sandbox refused, shown when it matters (issue 25 item 2):

- at `sbox session shell` (and `session exec -t`) a refusal shows on the
  screen when it happens, as a line of its own, not when the shell exits
  (sboxd sends command.blocked to the client that runs the command), and
  is not printed again at the end;
- a fresh shell prints no refusal for the home folder's own top-level
  dotfiles it probes (.bashrc, .inputrc, .bash_history...): the sandbox's
  home is empty by design; a file in a folder of the home stays reported;
- an allowed host the proxy could not reach (its name does not resolve,
  the connection is refused) is on the CLI's `blocked:` line with the
  cause, and in the result's blocked.unreachable;
- `sbox session status` shows a host allowed after its refusal as allowed,
  not as refused.

The terminal tests give sbox a pty of the test (test_tty's Term); they and
the status test pass as root and as an unprivileged user; the unreachable
hosts need the test's network namespace (root)."""
import json
import os
import re

import nethost
import sboxtest
from sandboxlib import Shared, run, write
from test_network import Net, get, with_remote
from test_tty import run_term

SH = Shared("live", lambda d: {})

# dotfiles of the home a shell or its tools probe (make_home adds
# .bash_history and .gitconfig)
DOTFILES = [".bashrc", ".profile", ".bash_profile", ".inputrc",
            ".bash_logout"]


def teardown_module():
    SH.stop()


def failure_log():
    return SH.log()


def session():
    """The module's session (workspace), its home full of dotfiles."""
    d = SH.get()
    for f in DOTFILES:
        write(os.path.join(d.home, f), "# %s of the host\n" % f)
    proj = os.path.join(d.root, "proj")
    os.makedirs(proj, exist_ok=True)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": d.home}
    return d, SH.session("s", proj, env=env)


def screen(t):
    """What the terminal shows, escape sequences left out."""
    return re.sub(r"\x1b(\[[0-9;?]*[@-~]|\][^\x07]*\x07|.)", "",
                  t.text()).replace("\r\n", "\n")


def test_live_refusal_in_session_shell(ctx):
    """In session shell, a refusal shows while the shell still runs (the
    command that caused it waits for a line the test types only once the
    refusal is on the screen), starts a line of its own, and is not
    printed again when the shell exits. The shell's start prints none."""
    d, sid = session()
    rc, t = run_term(d, ["session", "shell", sid], steps=[
        (rb"[$#] $", b"cat ~/.ssh/id_rsa; read line; echo got-$line\r"),
        (rb"sbox: blocked: read of [^\r\n]*/\.ssh/id_rsa refused", b"x\r"),
        (rb"got-x", None),
        (rb"[$#] $", b"exit 3\r")], cols=250)
    out = screen(t)
    raw = repr(t.text())
    assert rc == 3, raw
    lines = [ln for ln in out.split("\n") if "sbox: blocked:" in ln]
    # one line, not repeated at the end, at the left edge of the screen
    assert len(lines) == 1, raw
    assert re.search(r"(^|[\r\n])sbox: blocked: read of \S*/\.ssh/id_rsa "
                     r"refused: credentials", out), raw
    assert "sbox session outside %s" % sid in lines[0], raw
    # it came before the shell ended: the line typed after it ran
    assert out.index("sbox: blocked:") < out.index("got-x"), raw


def test_live_host_refusal_in_session_shell(ctx):
    """A host the allowlist refuses shows too while the shell runs, with
    what a person can do."""
    d, sid = session()
    rc, t = run_term(d, ["session", "shell", sid], steps=[
        (rb"[$#] $", b"curl -sS -m 20 -o /dev/null http://refused.test/; "
                     b"read line\r"),
        (rb"sbox: blocked: connection to refused\.test:80 refused by rule "
         rb"\"network allowlist\"[^\r\n]*allow-host " + sid.encode() +
         rb" refused\.test", b"\r"),
        (rb"[$#] $", b"exit 0\r")], cols=250)
    out = screen(t)
    assert rc == 0, repr(t.text())
    assert out.count("sbox: blocked:") == 1, repr(t.text())


def test_fresh_shell_reports_no_home_dotfiles(ctx):
    """A shell's start reads ~/.bashrc, ~/.inputrc and ~/.bash_history,
    which the host has and the sandbox's empty home does not: no
    `blocked:` line. The rule is exact: a top-level dotfile of the home is
    not reported, a file in one of its folders is."""
    d, sid = session()
    rc, t = run_term(d, ["session", "shell", sid], steps=[
        (rb"[$#] $", b"echo started-$((40 + 2))\r"),
        (rb"started-42", None),
        (rb"[$#] $", b"exit 0\r")], cols=250)
    out = screen(t)
    assert rc == 0, out
    assert "blocked" not in out, out
    c = SH.client()
    r = run(c, sid, "cat ~/.bashrc ~/.gitconfig ~/.bash_history ~/.netrc "
            "~/.config/other/app.conf; true")
    paths = [b["path"] for b in r.blocked]
    # a credential among the dotfiles has its own rule: still reported
    assert paths == [os.path.join(d.home, ".netrc"),
                     os.path.join(d.home, ".config/other/app.conf")], r
    assert r.blocked[0]["rule"] == "credentials, hidden", r
    # the host has them all: the sandbox, not the host, hid them
    for f in (".bashrc", ".gitconfig", ".bash_history"):
        assert os.path.exists(os.path.join(d.home, f)), f


def test_exec_tty_refusal_shown_once(ctx):
    """session exec -t: the refusal shows while the command runs, and the
    end prints no second copy."""
    d, sid = session()
    rc, t = run_term(d, ["session", "exec", sid, "-t", "--no-ask", "--", "sh",
                         "-c",
                         "cat ~/.aws/credentials; read x; exit 5"], steps=[
        (rb"sbox: blocked: read of [^\r\n]*/\.aws/credentials", b"\r")],
        cols=250)
    out = screen(t)
    assert rc == 5, out
    assert out.count("sbox: blocked:") == 1, out


def test_unreachable_host_cause_on_the_blocked_line(ctx):
    """An allowed name the DNS does not know, and an allowed host whose
    port refuses the connection: the proxy answers 502, and the CLI's
    blocked line says why; the result's blocked.unreachable has the
    cause."""
    def body(remote):
        n = Net(ctx, remote, profile={"hosts": ["up-a.test", "gone.test"]})
        r = n.d.cli("session", "exec", "--no-tty", n.sid, "--", "sh", "-c",
                    "curl -sSf -m 20 -o /dev/null http://gone.test/; "
                    "curl -sSf -m 20 -o /dev/null http://up-a.test:81/; true")
        err = r.stderr.decode(errors="replace")
        assert r.returncode == 0, err
        assert "502" in err, err
        assert "sbox: blocked: connection to gone.test:80 failed: DNS: no " \
               "such name\n" in err, err
        assert "sbox: blocked: connection to up-a.test:81 failed: " \
               "Connection refused\n" in err, err
        assert "gone.test" in remote.dns_queries(), remote.dns_queries()
        # the protocol: blocked.unreachable {host, port, cause}
        res = n.run(["sh", "-c", "curl -sS -m 20 http://gone.test/x; true"])
        assert res["blocked"]["unreachable"] == [{
            "host": "gone.test", "port": 80,
            "cause": "DNS: no such name"}], res
        assert res["blocked"]["hosts"] == [], res
    with_remote(ctx, body)


def test_status_shows_hosts_allowed_later(ctx):
    """session status: a refused host allowed later with session
    allow-host is listed as allowed, not as refused; one still refused
    stays refused."""
    n = Net(ctx, profile={"hosts": []})
    for host in ("later.test", "never.test"):
        p = n.http(get(host))
        assert p["responses"][0].startswith("HTTP/1.1 403"), p
    r = n.d.cli("session", "status", n.sid)
    out = r.stdout.decode()
    assert re.search(r"^refused\s+(later|never)\.test:80 ", out, re.M), out
    r = n.d.cli("session", "allow-host", n.sid, "later.test")
    assert r.returncode == 0, r
    r = n.d.cli("session", "status", n.sid)
    out = r.stdout.decode()
    assert r.returncode == 0, r
    assert re.search(r"^refused\s+never\.test:80 ", out, re.M), out
    assert re.search(r"^allowed\s+later\.test:80 \(allowed later", out,
                     re.M), out
    assert not re.search(r"^refused.*later\.test", out, re.M), out
    st = n.c.call("session.status", {"session": n.sid})
    flags = {e["host"]: e.get("allowed", False) for e in st["refused"]}
    assert flags == {"later.test": True, "never.test": False}, st
    r = n.d.cli("sandbox", "status", "--session", n.sid)
    out = r.stdout.decode()
    assert re.search(r"later\.test:80 .* allowed since by session "
                     r"allow-host$", out, re.M), out
    assert re.search(r"never\.test:80 .* not in the allowlist", out), out
    # --json: the same flag
    r = n.d.cli("session", "status", n.sid, "--json")
    got = json.loads(r.stdout)
    assert {e["host"]: e.get("allowed", False) for e in got["refused"]} == \
        flags, got
