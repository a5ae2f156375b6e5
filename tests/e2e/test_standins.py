"""Read reports by stand-ins (issue 38): the kernel decides every read-only
open and only an open that reaches a hidden area is seen, by the FUSE file
system sboxd serves under the hidden areas (daemon/container/standin.c):
the lower layer of an overlay for the private home and /run, bound for
hidden files and folders. No notification per open; each refused open is
still reported, once per command and again in the next one (an overlay
caches the names its lower layer lacks, so hidden names are positive names
whose opens fail); what the sandbox sees of them is what it saw before (a
hidden name does not exist, a hidden folder is empty); a private file made
over a hidden name starts empty and never holds a byte of the host's.

Stand-ins are opt-in (SBOX_READS_BY=standins in sboxd's environment): a
folder the host's home has shows inside as an empty folder. Without them
(the default, or where they cannot be mounted) the seccomp reporter is used and `sandbox status`
says so; and what a sandboxed process can try against the stand-ins."""
import json
import os
import subprocess

from sandboxlib import CRED_RULE, SECRET, run, write

HOME_RULE = "the home folder, hidden"


def reads(blocked, path):
    return [b for b in blocked if b["op"] == "read" and b["path"] == path]


class Setup:
    def __init__(self, ctx, env={"SBOX_READS_BY": "standins"}):
        old = {}
        for k, v in (env or {}).items():
            old[k] = os.environ.get(k)
            os.environ[k] = v
        try:
            self.d = ctx.daemon()
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        self.home = self.d.home
        self.proj = os.path.join(ctx.tmp, "proj")
        os.makedirs(self.proj)
        self.ssh = os.path.join(self.home, ".ssh", "id_test")
        self.notes = os.path.join(self.home, "notes.txt")
        self.gitcfg = os.path.join(self.home, ".config", "git", "config")
        write(self.ssh, SECRET + "\n", 0o600)
        write(self.notes, SECRET + "\n", 0o600)
        write(self.gitcfg, "[alias]\n\tpwn = !touch /tmp/pwned\n")
        self.c = self.d.client()
        self.sid = self.c.call("session.create", {
            "project": self.proj, "sandbox": "workspace",
            "env": {"PATH": "/usr/bin:/bin", "HOME": self.home}})["session"]

    def status(self):
        r = self.d.cli("sandbox", "status", "--session", self.sid, "--json")
        assert r.returncode == 0, r
        return json.loads(r.stdout.decode())["sandbox"]["read_reports"]


def test_status_says_stand_ins_and_counts(ctx):
    S = Setup(ctx)
    st = S.status()
    assert st["reads_by"] == "stand-ins", st
    r = run(S.c, S.sid, "cat %s" % S.ssh)
    assert r.code != 0 and SECRET not in r.out
    st2 = S.status()
    assert st2["reads_seen"] >= st["reads_seen"] + 1, (st, st2)
    text = S.d.cli("sandbox", "status", "--session", S.sid)
    assert b"read reports" in text.stdout and b"stand-ins" in text.stdout, \
        text.stdout


def test_each_open_reported_in_each_command(ctx):
    """The kernel never caches a refusal: the same hidden file read again,
    in the same command (one report: the same refusal) and in later ones
    (one each)."""
    S = Setup(ctx)
    for i in range(3):
        r = run(S.c, S.sid, "cat %s; cat %s; cat %s" % (S.ssh, S.ssh,
                                                         S.notes))
        assert r.code != 0 and SECRET not in r.out, r
        assert len(reads(r.blocked, S.ssh)) == 1, (i, r.blocked)
        got = reads(r.blocked, S.notes)
        assert len(got) == 1 and got[0]["rule"] == HOME_RULE, (i, r.blocked)
        assert reads(r.blocked, S.ssh)[0]["rule"] == CRED_RULE
        assert r.err.count("No such file or directory") == 3, r.err


def test_hidden_names_look_as_before(ctx):
    """A hidden file does not exist for stat, test and access; a stat is
    no read; a listing of the home shows no host name; a hidden folder
    the host has lists empty."""
    S = Setup(ctx)
    r = run(S.c, S.sid, "test -e %s && echo EXISTS; stat %s 2>/dev/null "
            "&& echo STAT; test -r %s && echo READABLE; ls -A ~; echo "
            "rc=$?" % (S.ssh, S.notes, S.notes))
    assert "EXISTS" not in r.out and "STAT" not in r.out, r
    assert "READABLE" not in r.out, r
    assert "notes.txt" not in r.out and ".ssh" not in r.out, r
    assert "rc=0" in r.out, r
    assert r.blocked == [], r.blocked


def test_private_files_over_hidden_names_start_empty(ctx):
    """Writes in the private home land in its tmpfs as before: a folder
    the host has is made (empty), a file the host has is a new private
    file that starts empty (an append shows no host byte), and the host's
    files are untouched (read on the host after)."""
    S = Setup(ctx)
    r = run(S.c, S.sid, "mkdir -p ~/.config/tool && echo a > "
            "~/.config/tool/x && cat ~/.config/tool/x; echo -n >> %s; "
            "wc -c < %s; echo mine > %s; cat %s" % (S.notes, S.notes,
                                                     S.notes, S.notes))
    assert r.code == 0, r
    assert r.out.split() == ["a", "0", "mine"], r
    assert SECRET not in r.out
    with open(S.notes) as f:
        assert f.read() == SECRET + "\n"
    assert not os.path.exists(os.path.join(S.home, ".config", "tool"))
    # a private file over a hidden credential holds only what was
    # written there; the host's is untouched
    r = run(S.c, S.sid, "echo x >> %s; cat %s" % (S.ssh, S.ssh))
    assert SECRET not in r.out and SECRET not in r.err, r
    with open(S.ssh) as f:
        assert f.read() == SECRET + "\n"


def test_moving_a_hidden_file_is_refused(ctx):
    S = Setup(ctx)
    for cmd, op in (("mv %s %s/stolen" % (S.ssh, S.proj), "rename"),
                    ("ln %s %s/link" % (S.ssh, S.proj), "link"),
                    ("cp %s %s/copy" % (S.notes, S.proj), None)):
        r = run(S.c, S.sid, cmd)
        assert r.code != 0, (cmd, r)
        # (cp stats first: no such file, and a stat is no read)
        got = [b["op"] for b in r.blocked if b["path"] in (S.ssh, S.notes)]
        assert got == ([op] if op else []), (cmd, r.blocked)
    for name in ("stolen", "copy", "link"):
        assert not os.path.exists(os.path.join(S.proj, name)), name


def test_sandboxed_process_cannot_reach_the_stage(ctx):
    """What the mount table names of the stand-ins (the stage folder) is
    not there inside; no FUSE device to mount another; a flood of lookups
    is served and sboxd stays up."""
    S = Setup(ctx)
    mi = run(S.c, S.sid, "cat /proc/self/mountinfo").out
    stage = [l.split("lowerdir=", 1)[1].split(",")[0]
             for l in mi.splitlines() if "lowerdir=" in l]
    assert stage, mi
    for p in stage:
        r = run(S.c, S.sid, "ls -A %s; ls -A %s/..; echo end" % (p, p))
        assert SECRET not in r.out, r
    r = run(S.c, S.sid, "test -e /dev/fuse && echo FUSE; echo end")
    assert "FUSE" not in r.out, r
    r = run(S.c, S.sid, "i=0; while [ $i -lt 3000 ]; do "
            "test -e ~/.ssh/n$i; i=$((i+1)); done; cat ~/.ssh/id_test; "
            "echo done")
    assert "done" in r.out and SECRET not in r.out, r
    assert S.d.client().call("daemon.status", {})


def test_seccomp_fallback_says_why(ctx):
    S = Setup(ctx, env={})
    st = S.status()
    assert st["reads_by"] == "seccomp" and "SBOX_READS_BY" in st["why"], st
    r = run(S.c, S.sid, "cat %s; cat %s" % (S.ssh, S.notes))
    assert len(reads(r.blocked, S.ssh)) == 1, r.blocked
    assert len(reads(r.blocked, S.notes)) == 1, r.blocked
    mi = run(S.c, S.sid, "cat /proc/self/mountinfo").out
    assert "lowerdir=" not in mi, mi
