"""Ways a sandboxed command could make host git run its code later: the
git folder's config and hooks, and what tells git where to read them from
(commondir, a linked worktree's folder)."""
import base64
import os
import subprocess

import sboxtest


def _git(*args, cwd):
    return subprocess.run(["git"] + list(args), cwd=cwd, capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin",
                                          "HOME": cwd, "GIT_CONFIG_NOSYSTEM": "1"})


def test_git_commondir_and_worktrees_protected(ctx):
    d = ctx.daemon()
    c = d.client()
    proj = os.path.join(ctx.tmp, "repo")
    os.makedirs(proj)
    assert _git("init", "-q", cwd=proj).returncode == 0
    sid = c.call("session.create", {"project": proj, "sandbox": "workspace",
                                    "env": {"PATH": "/usr/bin:/bin"}})["session"]
    script = """
mkdir -p ../evil 2>/dev/null
echo ../evil > .git/commondir && echo WROTE-commondir
mkdir .git/worktrees/x 2>/dev/null && echo MADE-worktree
printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > .git/config && echo WROTE-config
echo ok > .git/description && echo WROTE-description
echo 0000000000000000000000000000000000000000 > .git/ORIG_HEAD && echo WROTE-orig
"""
    r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c", script]})
    out = base64.b64decode(r["stdout"]).decode()
    assert "MADE-worktree" not in out and "WROTE-config" not in out, out
    # a new commondir cannot be kept from being written with a mount (git
    # dies on an empty placeholder): sboxd removes it as it appears
    sboxtest.wait_for(lambda: not os.path.exists(os.path.join(
        proj, ".git", "commondir")), timeout=2, what="commondir to be removed")
    ev = c.call("events.subscribe", {"topics": ["file.refused"]})
    r2 = c.call("command.exec", {"session": sid, "argv": ["sh", "-c",
        "ln -s ../evil .git/commondir; "
        "sleep 0.3; test -e .git/commondir || test -L .git/commondir && "
        "echo STILL-THERE; true"]})
    assert "STILL-THERE" not in base64.b64decode(r2["stdout"]).decode()
    assert any(".git/commondir" in f["message"] for f in r2["blocked"]["files"]), \
        r2["blocked"]
    n = c.wait_notification("events.event", lambda p: p["topic"] == "file.refused")
    assert n["data"]["path"].endswith(".git/commondir")
    # what git's own work writes stays writable (objects, refs, ORIG_HEAD,
    # ...); the rest is read-only (an allow list: description is not on it)
    assert "WROTE-orig" in out, out
    assert "WROTE-description" not in out, out
    c.call("session.close", {"session": sid})
    # nothing is left for host git to follow (placeholders go once the
    # container has ended)
    sboxtest.wait_for(lambda: not os.path.exists(os.path.join(
        proj, ".git", "commondir")) and not os.path.exists(os.path.join(
        proj, ".git", "worktrees")), what="the placeholders to go")
    st = _git("status", "--porcelain", cwd=proj)
    assert st.returncode == 0, st.stderr
