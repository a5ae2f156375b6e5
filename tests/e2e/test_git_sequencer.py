"""git's sequencer inside a session (issue 41): rebase, am, cherry-pick and
revert of several commits work inside; what host git would run later from
the state left behind (an exec line, a strategy, options for git apply, a
symlink, a hard link) is moved out of git's sight when the command ends and
again when the session closes, and refused like any other write. Each
attack is followed by the HOST's real git (`rebase --continue`, `am
--continue`, `cherry-pick --continue`, `revert --continue`) in the project,
and no marker may appear on the real filesystem."""
import glob
import os
import subprocess
import time

from sandboxlib import RUNS_LATER, create, run


def _git(*args, cwd, home, check=False, path=None):
    r = subprocess.run(["git"] + list(args), cwd=cwd, capture_output=True,
                       text=True, timeout=60,
                       env={"PATH": (path + ":" if path else "") +
                            "/usr/bin:/bin", "HOME": home,
                            "GIT_CONFIG_NOSYSTEM": "1",
                            "GIT_EDITOR": "true",
                            "GIT_CEILING_DIRECTORIES": os.path.dirname(
                                cwd)})
    if check:
        assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


class Setup:
    """A daemon, a host home, a project whose branch topic has three
    commits over main's first; main has one more (or, with conflict, one
    that conflicts with topic's first)."""

    def __init__(self, ctx, conflict=False):
        self.d = ctx.daemon()
        self.c = self.d.client()
        self.tmp = ctx.tmp
        self.home = os.path.join(ctx.tmp, "hosthome")
        os.makedirs(self.home, exist_ok=True)
        self.proj = os.path.join(ctx.tmp, "proj")
        self.marker = os.path.join(ctx.tmp, "MARKER")
        os.makedirs(self.proj)
        g = self.git
        g("init", "-q", "-b", "main", check=True)
        g("config", "user.email", "t@example.test")
        g("config", "user.name", "t")
        _write(os.path.join(self.proj, "README"), "hi\n")
        _write(os.path.join(self.proj, "shared"), "base\n")
        g("add", "-A", check=True)
        g("commit", "-qm", "one", check=True)
        g("checkout", "-qb", "topic", check=True)
        for i, n in enumerate(("a", "b", "c")):
            _write(os.path.join(self.proj, n), "%s\n" % n)
            if i == 0 and conflict:
                _write(os.path.join(self.proj, "shared"), "topic\n")
            g("add", "-A", check=True)
            g("commit", "-qm", "topic %s" % n, check=True)
        g("checkout", "-q", "main", check=True)
        _write(os.path.join(self.proj, "d"), "d\n")
        if conflict:
            _write(os.path.join(self.proj, "shared"), "main\n")
        g("add", "-A", check=True)
        g("commit", "-qm", "main d", check=True)
        os.chmod(self.proj, 0o755)
        if os.geteuid() == 0:
            # the sandbox's user owns what it writes: the host user (root
            # here) must still be able to run git in it
            g("config", "--global", "--add", "safe.directory", "*")

    def git(self, *args, check=False, path=None):
        return _git(*args, cwd=self.proj, home=self.home, check=check,
                    path=path)

    def session(self):
        return create(self.c, self.proj)

    def run(self, sid, script):
        return run(self.c, sid, "export GIT_EDITOR=true\n" + script)

    def close(self, sid):
        self.c.call("session.close", {"session": sid})

    def state(self, name):
        return os.path.lexists(os.path.join(self.proj, ".git", name))

    def quarantined(self, name):
        return glob.glob(os.path.join(self.proj, ".git",
                                      "sbox-quarantine-*-" + name))

    def host_continues(self, path=None):
        """What a person runs on the host after the agent stopped (path:
        a folder put first in PATH, where the sandbox left programs)."""
        for cmd in ("rebase", "am", "cherry-pick", "revert"):
            self.git(cmd, "--continue", path=path)
            self.git(cmd, "--skip", path=path)
        assert not os.path.exists(self.marker), "host git ran the sandbox's code"


def _refused(r, name, word=None):
    """The command's blocked files name .git/NAME (the sequencer's refusal)."""
    for b in r.blocked:
        if b["path"].endswith("/.git/" + name) and b["rule"] == RUNS_LATER \
                and "sequencer state" in b["message"] and \
                (word is None or word in b["message"]):
            return True
    return False


def test_rebase_of_three_inside(ctx):
    """git rebase main on topic (three commits) inside: done, nothing
    refused, nothing left."""
    S = Setup(ctx)
    sid = S.session()
    r = S.run(sid, "git checkout -q topic && git rebase main 2>&1 && "
              "echo REBASED")
    assert r.code == 0 and "REBASED" in r.out, r
    assert not [b for b in r.blocked if ".git" in b["path"]], r.blocked
    r = S.git("log", "--format=%s", "main..topic", check=True)
    assert r.stdout.splitlines() == ["topic c", "topic b", "topic a"], r
    assert S.git("merge-base", "--is-ancestor", "main", "topic").returncode \
        == 0
    assert not S.state("rebase-merge") and not S.quarantined("rebase-merge")
    # interactive-free -i with autosquash too (the todo is git's own)
    r = S.run(sid, "git rebase -i --autosquash HEAD~2 2>&1 && echo REB2")
    assert r.code == 0 and "REB2" in r.out, r
    S.close(sid)
    S.host_continues()


def test_am_of_a_series_inside(ctx):
    """git am of three patches made by format-patch: three commits."""
    S = Setup(ctx)
    pdir = os.path.join(S.proj, "patches")
    S.git("format-patch", "-q", "-o", pdir, "main~1..topic", check=True)
    assert len(os.listdir(pdir)) == 3
    sid = S.session()
    r = S.run(sid, "git am -q patches/*.patch 2>&1 && echo APPLIED")
    assert r.code == 0 and "APPLIED" in r.out, r
    r2 = S.git("log", "--format=%s", "-3", "main", check=True)
    assert r2.stdout.splitlines() == ["topic c", "topic b", "topic a"], r2
    assert not S.state("rebase-apply")
    assert not [b for b in r.blocked if ".git" in b["path"]], r.blocked
    S.close(sid)
    S.host_continues()


def test_cherry_pick_range_and_revert_inside(ctx):
    """git cherry-pick main~1..topic, then git revert of two: all done."""
    S = Setup(ctx)
    sid = S.session()
    r = S.run(sid, "git cherry-pick main~1..topic 2>&1 && echo PICKED")
    assert r.code == 0 and "PICKED" in r.out, r
    r2 = S.git("log", "--format=%s", "-3", "main", check=True)
    assert r2.stdout.splitlines() == ["topic c", "topic b", "topic a"], r2
    r = S.run(sid, "git revert --no-edit HEAD~2..HEAD 2>&1 && echo REVERTED")
    assert r.code == 0 and "REVERTED" in r.out, r
    r2 = S.git("log", "--format=%s", "-2", "main", check=True)
    assert all(s.startswith("Revert") for s in r2.stdout.splitlines()), r2
    assert not S.state("sequencer")
    S.close(sid)
    S.host_continues()


def test_conflict_left_safe_and_continued(ctx):
    """A rebase stopped on a conflict inside stays (its state is git's
    own), is continued inside in a later command; a cherry-pick range
    stopped on a conflict is left for the host, which finishes it."""
    S = Setup(ctx, conflict=True)
    sid = S.session()
    r = S.run(sid, "git checkout -q topic && git rebase main 2>&1; "
              "echo RC=$?")
    assert "RC=0" not in r.out, r
    assert S.state("rebase-merge"), r
    assert not S.quarantined("rebase-merge"), r
    assert not _refused(r, "rebase-merge"), r.blocked
    r = S.run(sid, "echo both > shared && git add shared && "
              "git rebase --continue 2>&1 && echo DONE")
    assert "DONE" in r.out, r
    assert not S.state("rebase-merge")
    r2 = S.git("log", "--format=%s", "main..topic", check=True)
    assert r2.stdout.splitlines() == ["topic c", "topic b", "topic a"], r2
    # a range picked onto main that stops at its first: left for the host
    r = S.run(sid, "git checkout -q main && git cherry-pick main~1..topic~0 "
              "2>&1; echo RC=$?")
    S.close(sid)
    S.host_continues()


# a rebase that stops at once at a break (no conflict): the host's
# `git rebase --continue` would go on with the rest of the todo
BREAK = "GIT_SEQUENCE_EDITOR=\"sed -i '1i break'\" git rebase -i "


def test_break_left_safe_host_finishes(ctx):
    """A rebase stopped at a break inside is git's own state: kept, and the
    host's `git rebase --continue` finishes it."""
    S = Setup(ctx)
    sid = S.session()
    r = S.run(sid, "git checkout -q topic && " + BREAK + "main 2>&1; "
              "test -d .git/rebase-merge && echo STOPPED")
    assert "STOPPED" in r.out, r
    assert not _refused(r, "rebase-merge"), r.blocked
    S.close(sid)
    assert S.state("rebase-merge") and not S.quarantined("rebase-merge")
    S.git("rebase", "--continue", check=True)
    r2 = S.git("log", "--format=%s", "main..topic", check=True)
    assert r2.stdout.splitlines() == ["topic c", "topic b", "topic a"], r2


def test_exec_line_refused(ctx):
    """rebase -x stopped at a break, and exec / x lines planted in a safe
    todo in a later command: the state is moved aside after the command and
    refused; host git continues nothing (without sbox it would run them:
    the stop is a break, not a conflict)."""
    S = Setup(ctx)
    sid = S.session()
    r = S.run(sid, "git checkout -q topic && " + BREAK + "-x 'touch %s' "
              "main 2>&1; echo RC=$?" % S.marker)
    assert not S.state("rebase-merge"), r
    assert S.quarantined("rebase-merge"), r
    assert _refused(r, "rebase-merge", "exec"), r.blocked
    S.host_continues()
    for line in ("exec touch %s" % S.marker, "x touch %s" % S.marker,
                 "break\nexec touch %s" % S.marker,
                 "  \texec\ttouch %s" % S.marker):
        S.git("checkout", "-q", "-f", "topic")
        r = S.run(sid, BREAK + "main >/dev/null 2>&1; test -d "
                  ".git/rebase-merge && echo STOPPED")
        assert "STOPPED" in r.out, r
        assert not _refused(r, "rebase-merge"), r.blocked
        r = S.run(sid, "printf '%%s\\n' '%s' >> .git/rebase-merge/"
                  "git-rebase-todo && echo PLANTED" % line.replace(
                      "\n", "' '"))
        assert "PLANTED" in r.out, r
        assert not S.state("rebase-merge"), (line, r)
        assert _refused(r, "rebase-merge"), (line, r.blocked)
        S.host_continues()
    S.close(sid)
    S.host_continues()


def test_options_and_editors_refused(ctx):
    """A merge strategy of the sandbox's own (a git-merge-evil it left in
    the host's PATH), -X options, a signing option, a config in the state,
    options for git apply, a sequencer opts with another section or
    strategy, a sequence editor in the config: refused; the host's git
    (continue and skip, the folder first in its PATH) runs nothing."""
    S = Setup(ctx, conflict=True)
    evil = os.path.join(S.proj, "git-merge-evil")
    sid = S.session()
    r = S.run(sid, """
printf '#!/bin/sh\\ntouch %s\\nexit 1\\n' > git-merge-evil; chmod +x git-merge-evil
git config sequence.editor 'touch %s' && echo CFG1
git config rebase.instructionFormat '%%(exec)' && echo CFG2
git config core.editor 'touch %s' && echo CFG3
GIT_SEQUENCE_EDITOR='touch %s.inside' git rebase -i main >/dev/null 2>&1
true
""" % (S.marker, S.marker, S.marker, S.marker))
    assert "CFG1" not in r.out and "CFG2" not in r.out and \
        "CFG3" not in r.out, r
    assert os.access(evil, os.X_OK), r
    S.git("rebase", "--abort")
    plants = [
        ("rebase-merge", BREAK + "main >/dev/null 2>&1; "
         "echo evil > .git/rebase-merge/strategy"),
        ("rebase-merge", BREAK + "main >/dev/null 2>&1; "
         "echo \" --'x;touch %s'\" > .git/rebase-merge/strategy_opts" %
         S.marker),
        ("rebase-merge", BREAK + "main >/dev/null 2>&1; "
         "echo -S--exec > .git/rebase-merge/gpg_sign_opt"),
        ("rebase-merge", BREAK + "main >/dev/null 2>&1; "
         "printf '[core]\\n\\teditor = touch %s\\n' > .git/rebase-merge/"
         "config" % S.marker),
        ("rebase-apply", "rm -rf /tmp/p; git format-patch -q -o /tmp/p "
         "main~1..topic && git checkout -q main && git am -q /tmp/p/*.patch "
         ">/dev/null 2>&1; echo \" '--unsafe-paths' '--directory=../..'\" > "
         ".git/rebase-apply/apply-opt"),
        ("sequencer", "git checkout -q main && git cherry-pick main~1..topic"
         " >/dev/null 2>&1; printf '[core]\\n\\tsshCommand = touch %s\\n' "
         ">> .git/sequencer/opts" % S.marker),
        ("sequencer", "git checkout -q main && git cherry-pick main~1..topic"
         " >/dev/null 2>&1; printf '[options]\\n\\tstrategy = evil\\n' > "
         ".git/sequencer/opts"),
    ]
    for name, script in plants:
        for cmd in ("rebase", "am", "cherry-pick"):
            S.git(cmd, "--abort")
        S.git("checkout", "-q", "-f", "topic", check=True)
        r = S.run(sid, script + " && echo PLANTED")
        assert "PLANTED" in r.out, (script, r)
        assert not S.state(name), (script, r)
        assert _refused(r, name), (script, r.blocked)
        S.host_continues(path=S.proj)
        for n in ("a", "b", "c"):
            assert not os.path.exists(os.path.join(os.path.dirname(
                os.path.dirname(S.proj)), n)), (script, n)
    S.close(sid)
    S.host_continues(path=S.proj)
    os.unlink(evil)


def test_links_and_late_writes(ctx):
    """rebase-merge/ as a symlink to a state outside, a hard link into it,
    a folder in it, and an exec line written by a process left running
    after its command: moved aside (after the command, or at the close),
    and what the links name is left as it was."""
    S = Setup(ctx, conflict=True)
    outside = os.path.join(S.tmp, "outside-state")
    os.makedirs(outside)
    onto = S.git("rev-parse", "main", check=True).stdout.strip()
    _write(os.path.join(outside, "git-rebase-todo"),
           "exec touch %s\n" % S.marker)
    _write(os.path.join(outside, "head-name"), "refs/heads/topic\n")
    _write(os.path.join(outside, "onto"), onto + "\n")
    _write(os.path.join(outside, "interactive"), "")
    os.chmod(S.tmp, 0o755)
    for n in os.listdir(outside):
        os.chmod(os.path.join(outside, n), 0o644)
    os.chmod(outside, 0o755)
    before = sorted(os.listdir(outside))
    sid = S.session()
    r = S.run(sid, "ln -s %s .git/rebase-merge && echo LINKED" % outside)
    if "LINKED" in r.out:
        assert os.path.islink(S.quarantined("rebase-merge")[0]), r
        assert _refused(r, "rebase-merge", "not a folder"), r.blocked
    assert not S.state("rebase-merge")
    assert sorted(os.listdir(outside)) == before
    S.host_continues()
    # a hard link as the todo (its safe content now, another name of it
    # writable later: .git/MERGE_MSG is one git writes)
    S.git("checkout", "-q", "topic")
    r = S.run(sid, "git rebase main >/dev/null 2>&1; cd .git && "
              "cp rebase-merge/git-rebase-todo MERGE_MSG && rm "
              "rebase-merge/git-rebase-todo && ln MERGE_MSG "
              "rebase-merge/git-rebase-todo && echo LINKED")
    assert "LINKED" in r.out, r
    assert not S.state("rebase-merge"), r
    assert _refused(r, "rebase-merge", "hard link"), r.blocked
    assert os.path.exists(os.path.join(S.proj, ".git", "MERGE_MSG"))
    S.host_continues()
    # a folder inside the state
    S.git("reset", "-q", "--hard", "topic")
    r = S.run(sid, "git rebase main >/dev/null 2>&1; "
              "mkdir .git/rebase-merge/hooks && echo MADE")
    assert "MADE" in r.out and not S.state("rebase-merge"), r
    S.host_continues()
    # a safe stop, then a writer left running after its command
    S.git("reset", "-q", "--hard", "topic")
    r = S.run(sid, "git rebase main >/dev/null 2>&1; test -d "
              ".git/rebase-merge && echo STOPPED")
    assert "STOPPED" in r.out, r
    r = S.run(sid, "(sleep 1; printf 'exec touch %s\\n' >> "
              ".git/rebase-merge/git-rebase-todo; echo w > /tmp/wrote) "
              ">/dev/null 2>&1 </dev/null & echo STARTED" % S.marker)
    assert "STARTED" in r.out, r
    assert S.state("rebase-merge"), r  # (safe when its command ended)
    deadline = time.time() + 20
    while time.time() < deadline:
        with open(os.path.join(S.proj, ".git", "rebase-merge",
                               "git-rebase-todo")) as f:
            if "exec" in f.read():
                break
        time.sleep(0.2)
    S.close(sid)
    # the close checks at once, and again when every process has ended
    assert not S.state("rebase-merge")
    assert S.quarantined("rebase-merge")
    S.host_continues()


def test_worktree_session(ctx):
    """A session on a linked worktree: its rebase works in its own git
    folder (common/worktrees/NAME), a planted exec line there is moved
    aside; the main worktree's state (the common folder) stays
    uncreatable."""
    S = Setup(ctx)
    wt = os.path.join(S.tmp, "wt")
    S.git("worktree", "add", "-q", wt, "topic", check=True)
    os.chmod(wt, 0o755)
    gd = os.path.join(S.proj, ".git", "worktrees", "wt")
    sid = create(S.c, wt)
    r = run(S.c, sid, "export GIT_EDITOR=true; git rebase main 2>&1 && "
            "echo REBASED; mkdir %s/.git/rebase-merge && echo MAIN" % S.proj)
    assert "REBASED" in r.out and "MAIN" not in r.out, r
    r2 = _git("log", "--format=%s", "main..topic", cwd=wt, home=S.home,
              check=True)
    assert r2.stdout.splitlines() == ["topic c", "topic b", "topic a"], r2
    _git("reset", "-q", "--hard", "topic~3", cwd=wt, home=S.home, check=True)
    r = run(S.c, sid, "export GIT_EDITOR=true; " + BREAK + "main "
            ">/dev/null 2>&1; printf 'exec touch %s\\n' >> \"$(git rev-parse "
            "--git-dir)/rebase-merge/git-rebase-todo\" && echo PLANTED"
            % S.marker)
    assert "PLANTED" in r.out, r
    assert not os.path.lexists(os.path.join(gd, "rebase-merge")), r
    assert glob.glob(os.path.join(gd, "sbox-quarantine-*-rebase-merge")), r
    assert any(b["path"].endswith("/worktrees/wt/rebase-merge") and
               "exec" in b["message"] for b in r.blocked), r.blocked
    S.close(sid)
    for cmd in ("rebase", "am", "cherry-pick"):
        _git(cmd, "--continue", cwd=wt, home=S.home)
    S.host_continues()
