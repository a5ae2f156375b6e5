"""Exact read refusals (issue 13 item 1, reads): sbox-init's file guard
reports each read-only open that a hidden path refused, from the kernel's
point of view (the notify filter, then the open performed for the caller),
never from what a program prints. Each report in blocked.files names the
absolute path, op "read", the plan's rule and its reason, and the process
(pid inside the sandbox and its name). A hidden stand-in (a file bound to
/dev/null) read successfully is reported too; a name the host lacks as well
is not; text that merely looks like an error is not.

Each case runs with stdio "pipes", "none" and "fds" (command.exec), and
through the CLI (`sbox session exec`: its stderr line, and --json)."""
import json
import os
import shutil
import tempfile

import sboxtest
from sboxtest import Skip
from sandboxlib import CRED_RULE, SECRET, run, write

DENY_RULE = "profile folders, denied"
HOME_RULE = "the home folder, hidden"


class Setup:
    """A daemon whose HOME holds credentials, a project with a denied file
    (a hidden stand-in inside a visible folder), a session of a profile
    that denies it."""

    def __init__(self, ctx):
        self.tmp = ctx.tmp
        self.proj = os.path.join(ctx.tmp, "proj")
        os.makedirs(self.proj)
        write(os.path.join(self.proj, "README"), "hello\n")
        self.standin = os.path.join(self.proj, "secret.env")
        write(self.standin, "TOKEN=" + SECRET + "\n")
        self.denydir = os.path.join(self.proj, "private")
        write(os.path.join(self.denydir, "key"), SECRET + "\n")
        self.d = ctx.daemon({"sandbox": {"profiles": {"mine": {
            "extends": "workspace",
            "folders": {"deny": [self.standin, self.denydir]}}}}})
        self.home = self.d.home
        self.ssh = os.path.join(self.home, ".ssh", "id_test")
        self.aws = os.path.join(self.home, ".aws", "credentials")
        self.private = os.path.join(self.home, "notes.txt")
        for p in (self.ssh, self.aws, self.private):
            write(p, SECRET + "\n", 0o600)
        self.c = self.d.client()
        self.sid = self.c.call("session.create", {
            "project": self.proj, "sandbox": "mine",
            "env": {"PATH": "/usr/bin:/bin", "HOME": self.home}})["session"]

    def exec(self, argv, stdio):
        """Run argv with stdio "pipes", "none" or "fds" (the command gets
        our descriptors: a file for its stderr); returns (exit code,
        blocked.files, its stderr)."""
        if stdio == "fds":
            errf = tempfile.TemporaryFile()
            null = os.open(os.devnull, os.O_RDWR)
            try:
                res = self.c.call("command.exec", {
                    "session": self.sid, "argv": argv, "stdio": "fds"},
                    fds=[null, null, errf.fileno()])
            finally:
                os.close(null)
            errf.seek(0)
            err = errf.read().decode(errors="replace")
            errf.close()
            return res.get("exit_code"), res["blocked"]["files"], err
        r = run(self.c, self.sid, None, argv=argv, stdio=stdio)
        return r.code, r.blocked, r.err


def reads(blocked, path):
    return [b for b in blocked if b["path"] == path and b["op"] == "read"]


def check_read(blocked, path, rule, process):
    """Exactly one read report of path, with every field right."""
    got = reads(blocked, path)
    assert len(got) == 1, (path, blocked)
    b = got[0]
    assert b["rule"] == rule, b
    assert b["message"].startswith("read of ") and \
        b["message"].endswith("refused: " + rule), b
    assert isinstance(b["reason"], str) and b["reason"], b
    assert isinstance(b["pid"], int) and b["pid"] > 0, b
    assert b["process"] == process, b
    return b


MODES = ("pipes", "none", "fds")


def test_reads_of_credentials_reported(ctx):
    S = Setup(ctx)
    cases = [
        (["cat", S.ssh], S.ssh, "cat"),
        (["sh", "-c", "read x < %s" % S.aws], S.aws, "sh"),
        (["python3", "-c", "open(%r).read()" % S.ssh], S.ssh, "python3"),
        (["git", "-C", S.proj, "hash-object", S.aws], S.aws, "git"),
    ]
    if shutil.which("node"):
        cases.append((["node", "-e", "require('fs').readFileSync(%r)" %
                       S.ssh], S.ssh, "node"))
    for mode in MODES:
        for argv, path, proc in cases:
            code, blocked, err = S.exec(argv, mode)
            assert code != 0, (mode, argv, blocked, err)
            assert SECRET not in err, (mode, argv)
            b = check_read(blocked, path, CRED_RULE, proc)
            assert "credential" in b["reason"], b
            # nothing else is reported (the loader, the libraries)
            assert len(blocked) == 1, (mode, argv, blocked)


def test_program_ignoring_the_error_still_reported(ctx):
    S = Setup(ctx)
    prog = ("import os\ntry:\n    open(%r)\nexcept OSError:\n    pass\n"
            "print('fine')\n" % S.aws)
    for mode in MODES:
        code, blocked, err = S.exec(["python3", "-c", prog], mode)
        assert code == 0, (mode, blocked, err)
        check_read(blocked, S.aws, CRED_RULE, "python3")


def test_error_text_without_a_refusal_reports_nothing(ctx):
    S = Setup(ctx)
    text = ("cat: %s: Permission denied\nbash: %s: No such file or "
            "directory\nopen '%s': Read-only file system\n" % (
                S.ssh, S.aws, S.standin))
    for mode in MODES:
        code, blocked, err = S.exec(["sh", "-c", "printf '%s' >&2; exit 1"
                                     % text], mode)
        assert code == 1, (mode, blocked)
        assert blocked == [], (mode, blocked)


def test_standins_read_copied_listed(ctx):
    S = Setup(ctx)
    for mode in MODES:
        # a denied file is /dev/null bound read-only without devices: the
        # open fails (EACCES) where the host has the file
        code, blocked, err = S.exec(["cat", S.standin], mode)
        assert code != 0, (mode, blocked, err)
        check_read(blocked, S.standin, DENY_RULE, "cat")
        code, blocked, err = S.exec(["cp", S.standin, "/tmp/copy"], mode)
        assert code != 0, (mode, blocked, err)
        check_read(blocked, S.standin, DENY_RULE, "cp")
        # a denied folder is an empty tmpfs: listed successfully, empty
        code, blocked, err = S.exec(["ls", "-A", S.denydir], mode)
        assert code == 0, (mode, blocked, err)
        check_read(blocked, S.denydir, DENY_RULE, "ls")
        code, blocked, err = S.exec(["python3", "-c", "import os; assert "
                                     "os.listdir(%r) == []" % S.denydir],
                                    mode)
        assert code == 0, (mode, blocked, err)
        check_read(blocked, S.denydir, DENY_RULE, "python3")
    # what the command got is what was reported: nothing of the secret
    r = run(S.c, S.sid, "cat %s; ls -A %s; echo end" % (S.standin,
                                                        S.denydir))
    assert r.out == "end\n" and SECRET not in r.err, r


def test_names_the_host_lacks_are_not_reported(ctx):
    S = Setup(ctx)
    missing = os.path.join(S.home, ".ssh", "id_absent")
    nowhere = os.path.join(S.home, "no-such-folder", "x")
    for mode in MODES:
        code, blocked, err = S.exec(
            ["sh", "-c", "cat %s %s /nonexistent-sbox; cat %s/README"
             % (missing, nowhere, S.proj)], mode)
        assert code == 0 and "No such file" in err, (mode, blocked, err)
        assert blocked == [], (mode, blocked)


def test_home_rule_and_process_fields(ctx):
    S = Setup(ctx)
    # a file of the host's home outside any credential: the home rule, with
    # what a person can do; the pid is the reading process, not its shell
    code, blocked, err = S.exec(
        ["sh", "-c", "cat %s; echo $$ >&2" % S.private], "pipes")
    b = check_read(blocked, S.private, HOME_RULE, "cat")
    assert "folders" in b["reason"], b
    shell = int(err.strip().split("\n")[-1])
    assert b["pid"] != shell, (b, err)


def test_cli_stderr_line_and_json(ctx):
    S = Setup(ctx)
    want = "read of %s refused: %s" % (S.ssh, CRED_RULE)
    # the terminal's own stdio (fds): one explanation line on stderr
    r = S.d.cli("session", "exec", S.sid, "--no-ask", "--", "cat", S.ssh)
    assert r.returncode != 0
    lines = [l for l in r.stderr.decode().split("\n")
             if l.startswith("sbox: blocked: ")]
    assert len(lines) == 1 and want in lines[0], r.stderr
    assert "credential" in lines[0], lines
    # --json: the result's blocked.files, with the explanation
    r = S.d.cli("session", "exec", S.sid, "--no-ask", "--json", "--", "cat",
                S.ssh)
    res = json.loads(r.stdout.decode())
    b = check_read(res["blocked"]["files"], S.ssh, CRED_RULE, "cat")
    assert b["explanation"].startswith(want), b
    # text that looks like a refusal is no refusal
    r = S.d.cli("session", "exec", S.sid, "--no-ask", "--json", "--", "sh",
                "-c", "echo 'cat: %s: Permission denied' >&2" % S.ssh)
    res = json.loads(r.stdout.decode())
    assert res["blocked"]["files"] == [], res
    r = S.d.cli("session", "exec", S.sid, "--no-ask", "--", "sh", "-c",
                "echo 'cat: %s: Permission denied' >&2" % S.ssh)
    assert b"sbox: blocked" not in r.stderr, r.stderr


def test_mv_and_ln_of_hidden_sources(ctx):
    S = Setup(ctx)
    for mode in MODES:
        code, blocked, err = S.exec(["mv", S.ssh, S.proj + "/stolen"], mode)
        assert code != 0, (mode, blocked)
        got = [b for b in blocked if b["path"] == S.ssh]
        assert [b["op"] for b in got] == ["rename"], (mode, blocked)
        assert got[0]["rule"] == CRED_RULE and got[0]["process"] == "mv", got
        code, blocked, err = S.exec(["ln", S.aws, S.proj + "/stolen"], mode)
        assert code != 0, (mode, blocked)
        got = [b for b in blocked if b["path"] == S.aws]
        assert [b["op"] for b in got] == ["link"], (mode, blocked)
        assert got[0]["rule"] == CRED_RULE and got[0]["process"] == "ln", got
    assert not os.path.exists(S.proj + "/stolen")


def test_report_reads_false_turns_reads_off_not_writes(ctx):
    """sandbox.report_reads false (for build-heavy setups: read reports
    cost a notification per read-only open): reads of hidden paths are
    refused as before but not reported; refused writes still are."""
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(os.path.join(proj, ".git"))
    write(os.path.join(proj, ".git", "config"), "[core]\n")
    d = ctx.daemon({"sandbox": {"report_reads": False}})
    ssh = os.path.join(d.home, ".ssh", "id_test")
    write(ssh, SECRET + "\n", 0o600)
    c = d.client()
    sid = c.call("session.create", {"project": proj, "sandbox": "workspace"})[
        "session"]
    r = run(c, sid, "cat %s; echo x >> .git/config; echo done" % ssh)
    assert SECRET not in r.out and "done" in r.out, r
    assert reads(r.blocked, ssh) == [], r.blocked
    assert [b for b in r.blocked if b["op"] in ("write", "create") and
            b["path"].endswith("/.git/config")], r.blocked
    # a wrong type is an error that names the key
    bad = d.cli("config", "check", write_tmp(ctx, {"sandbox": {
        "report_reads": "no"}}))
    assert bad.returncode == 1 and b"sandbox.report_reads" in bad.stdout, bad


def write_tmp(ctx, cfg):
    p = os.path.join(ctx.tmp, "bad-config.json")
    with open(p, "w") as f:
        json.dump(cfg, f)
    return p
