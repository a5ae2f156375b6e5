"""Worktree sessions (issue 14): a session on a linked worktree (`git worktree
add`) gets its repository's git folders, so git works fully inside, while
what runs programs later in them (config, hooks, info, the other worktrees'
folders, the main worktree's index) stays read-only, and host git in the
main worktree runs nothing the sandbox planted."""
import os
import subprocess

from sandboxlib import create, run

GIT_ENV = {"PATH": "/usr/bin:/bin", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def _git(cwd, *args):
    env = dict(GIT_ENV, HOME=cwd)
    r = subprocess.run(["git", "-C", cwd] + list(args), capture_output=True,
                       text=True, env=env, timeout=60)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r.stdout


def _repo(ctx):
    main = os.path.join(ctx.tmp, "main")
    os.makedirs(main)
    _git(main, "init", "-q", "-b", "main")
    with open(os.path.join(main, "a.txt"), "w") as f:
        f.write("a\n")
    _git(main, "add", "a.txt")
    _git(main, "commit", "-qm", "first")
    wt = os.path.join(ctx.tmp, "wt")
    _git(main, "worktree", "add", "-q", "-b", "feature", wt)
    return main, wt


def test_git_works_in_a_worktree_session(ctx):
    main, wt = _repo(ctx)
    d = ctx.daemon()
    c = d.client()
    s = create(c, wt, "workspace", env=GIT_ENV)
    script = ("set -e; export HOME=/tmp GIT_AUTHOR_NAME=t GIT_COMMITTER_NAME=t "
              "GIT_AUTHOR_EMAIL=t@example.invalid "
              "GIT_COMMITTER_EMAIL=t@example.invalid; git status --short; echo b > b.txt; "
              "git add b.txt; git commit -qm second; git branch topic; "
              "git log --oneline | wc -l; echo c >> a.txt; git stash -q; "
              "git stash list | wc -l; git branch --list")
    r = run(c, s, script)
    assert r.code == 0, r
    lines = r.out.split()
    assert "2" in lines and "1" in lines and "topic" in r.out, r
    # the commit landed in the repository
    assert "second" in _git(main, "log", "--oneline", "feature")
    assert "topic" in _git(main, "branch", "--list")


def test_worktree_common_folder_protected(ctx):
    main, wt = _repo(ctx)
    common = os.path.join(main, ".git")
    hook = os.path.join(common, "hooks", "post-checkout")
    os.makedirs(os.path.join(common, "info"), exist_ok=True)
    d = ctx.daemon()
    c = d.client()
    s = create(c, wt, "workspace", env=GIT_ENV)
    marker = os.path.join(ctx.tmp, "ran")
    before = open(os.path.join(common, "config")).read()
    index = open(os.path.join(common, "index"), "rb").read()
    attempts = [
        "printf '[core]\\n\\tfsmonitor = touch %s\\n' >> '%s/config'" % (marker, common),
        "git config core.fsmonitor 'touch %s'" % marker,
        "printf '#!/bin/sh\\ntouch %s\\n' > '%s'; chmod +x '%s'" % (marker, hook, hook),
        "echo x > '%s/info/attributes'" % common,
        "echo x > '%s/config.worktree'" % common,
        "echo '../../evil' > '%s/worktrees/wt/commondir'" % common,
        "echo x > '%s/index'" % common,
        "mkdir -p '%s/worktrees/evil' && echo x > '%s/worktrees/evil/gitdir'" % (
            common, common),
    ]
    for a in attempts:
        run(c, s, "export HOME=/tmp; " + a + "; true")
    # host git in the main worktree and in the worktree runs nothing
    _git(main, "status")
    _git(main, "checkout", "-q", "-b", "host-branch")
    _git(wt, "status")
    assert not os.path.exists(marker)
    assert open(os.path.join(common, "config")).read() == before
    assert open(os.path.join(common, "index"), "rb").read() == index
    assert not os.path.exists(hook)
    assert not os.path.exists(os.path.join(common, "worktrees", "evil"))
    # the main worktree's files are not in the sandbox at all
    r = run(c, s, "cat '%s/a.txt'; true" % main)
    assert r.out.strip() == "", r


def test_cli_makes_and_removes_a_worktree(ctx):
    main = os.path.join(ctx.tmp, "main")
    os.makedirs(main)
    _git(main, "init", "-q", "-b", "main")
    with open(os.path.join(main, "a.txt"), "w") as f:
        f.write("a\n")
    _git(main, "add", "a.txt")
    _git(main, "commit", "-qm", "first")
    d = ctx.daemon()
    r = d.cli("session", "create", "--project", main, "--worktree",
              "agent/one", "--sandbox", "workspace")
    assert r.returncode == 0, r
    sid = r.stdout.decode().strip()
    wt = os.path.join(ctx.tmp, "main-worktrees", "agent-one")
    info = d.client().call("session.info", {"session": sid})
    assert info["project"] == os.path.realpath(wt), info
    assert "agent/one" in _git(main, "worktree", "list")
    # git works inside it
    r = run(d.client(), sid, "export HOME=/tmp; git status --short && "
            "git rev-parse --abbrev-ref HEAD")
    assert r.code == 0 and "agent/one" in r.out, r
    # a bad branch name is refused before anything is made
    r = d.cli("session", "create", "--project", main, "--worktree", "-x")
    assert r.returncode != 0 and not os.path.exists(os.path.join(
        ctx.tmp, "main-worktrees", "-x")), r
    # closing with --remove-worktree removes it; the branch stays
    r = d.cli("session", "close", sid, "--remove-worktree")
    assert r.returncode == 0, r
    assert not os.path.exists(wt)
    assert "agent/one" in _git(main, "branch", "--list")
    assert "agent-one" not in _git(main, "worktree", "list")


def test_worktree_session_follows_its_project(ctx):
    """Issue 21, item 4: a configured project's choice follows it into the
    worktree sbox makes beside it (through a pipe too), and provenance says
    so; a folder claiming to be a worktree without the repository's side
    gets nothing from it."""
    main = os.path.join(ctx.tmp, "app")
    os.makedirs(main)
    _git(main, "init", "-q", "-b", "main")
    with open(os.path.join(main, "a.txt"), "w") as f:
        f.write("a\n")
    _git(main, "add", "a.txt")
    _git(main, "commit", "-qm", "first")
    d = ctx.daemon({"sandbox": {"profiles": {"mine": {
        "extends": "workspace"}}},
        "projects": {os.path.realpath(main): {"sandbox": "mine"}}})
    r = d.cli("session", "create", "--project", main, "--worktree", "f1")
    assert r.returncode == 0, r
    sid = r.stdout.decode().strip()
    info = d.client().call("session.info", {"session": sid})
    wt = os.path.realpath(os.path.join(ctx.tmp, "app-worktrees", "f1"))
    assert info["project"] == wt, info
    assert info["profile"] == "mine" and info["sandboxed"] is True, info
    assert "from project %s" % os.path.realpath(main) in info["provenance"]
    assert "worktree" in info["provenance"], info
    # it is really sandboxed: a folder beside the project is out of reach
    other = os.path.join(ctx.tmp, "other")
    os.makedirs(other)
    with open(os.path.join(other, "s.txt"), "w") as f:
        f.write("secret\n")
    r2 = run(d.client(), sid, "cat %s/s.txt 2>/dev/null || echo HIDDEN"
             % other)
    assert "HIDDEN" in r2.out and "secret" not in r2.out, r2
    # a forged .git file (no link back from the repository) is no worktree
    fake = os.path.join(ctx.tmp, "fake")
    os.makedirs(fake)
    with open(os.path.join(fake, ".git"), "w") as f:
        f.write("gitdir: %s/.git/worktrees/f1\n" % os.path.realpath(main))
    c = d.client()
    s2 = c.call("session.create", {"project": fake})
    assert s2["profile"] == "none", s2
    assert "worktree" not in s2["provenance"], s2
