"""Every refusal's reason is true (issue 43 item 6): for each rule of the
file guard, an operation on a path that exists and on one that does not
(where both apply) is refused with a reason that names the rule and says
what the path really is. Writing the existing .git/config was refused with
"a protected path that does not exist stays uncreatable": the paths git's
config names (the config itself among them) are kept by the guard whether
they exist or not, and the text was the one of a missing path.

Runs as root and as an unprivileged user."""
import os
import subprocess

from sandboxlib import run


def setup(ctx):
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    subprocess.run(["git", "init", "-q", proj], check=True)
    os.makedirs(os.path.join(proj, "myhooks"))
    os.makedirs(os.path.join(proj, ".vscode"))
    for name, text in (("inc.cfg", "[user]\n\tname = x\n"),
                       (".envrc", "export A=1\n"),
                       ("myhooks/pre-push", "#!/bin/sh\n"),
                       (".vscode/settings.json", "{}\n")):
        with open(os.path.join(proj, name), "w") as f:
            f.write(text)
    cfg = os.path.join(proj, ".git", "config")
    with open(cfg, "a") as f:
        f.write("[include]\n\tpath = ../inc.cfg\n\tpath = ../gone.cfg\n"
                "[core]\n\thooksPath = %s/myhooks\n" % proj)
    d = ctx.daemon({})
    if os.geteuid() == 0:
        for dp, dns, fns in os.walk(proj):
            os.chmod(dp, 0o777)
            for fn in fns:
                os.chmod(os.path.join(dp, fn), 0o666)
    c = d.client()
    sid = c.call("session.create", {
        "project": proj, "sandbox": "workspace",
        "env": {"PATH": "/usr/bin:/bin", "HOME": d.home}})["session"]
    return c, sid, proj


def refused(c, sid, proj, script, rel):
    """Run script in the project; the refusal of PROJECT/rel (its rule and
    reason)."""
    r = run(c, sid, script + " 2>/dev/null; true", cwd=proj)
    path = os.path.join(proj, rel)
    got = [b for b in r.blocked if b["path"] == path]
    assert got, (script, r.blocked)
    return got[0]["rule"], got[0]["reason"]


MISSING_WORDS = ("does not exist", "uncreatable", "a new ")
EXISTING_WORDS = ("stays read-only", "is read-only", "holds the protected")


def says_exists(reason):
    assert not any(w in reason for w in MISSING_WORDS), reason


def says_missing(reason):
    assert not any(w in reason for w in EXISTING_WORDS), reason


RUNS_LATER = "read-only, files that run programs later"


def test_guard_reasons_git_folder(ctx):
    """Inside a git folder: the existing .git/config (git's config names
    it) and a missing hook, each by the git folder's rule."""
    c, sid, proj = setup(ctx)
    rule, why = refused(c, sid, proj, "echo x >> .git/config", ".git/config")
    assert rule == RUNS_LATER, rule
    assert "inside a git folder only what git's own work writes" in why, why
    says_exists(why)
    rule, why = refused(c, sid, proj, "echo x > .git/hooks/pre-commit",
                        ".git/hooks/pre-commit")
    assert rule == RUNS_LATER and "inside a git folder" in why, why
    says_missing(why)
    rule, why = refused(c, sid, proj, "echo x > .git/config.worktree",
                        ".git/config.worktree")
    assert rule == RUNS_LATER and "inside a git folder" in why, why
    says_missing(why)


def test_guard_reasons_gitfile(ctx):
    """.git itself: the existing folder removed or a gitfile written over
    it, by the gitfile rule."""
    c, sid, proj = setup(ctx)
    rule, why = refused(c, sid, proj, "echo gitdir: /x > .git; rm -f .git",
                        ".git")
    assert rule == RUNS_LATER and ".git" in why, why
    says_exists(why)


def test_guard_reasons_protected_names(ctx):
    """A protected name of the table (.envrc): existing (written) and
    missing (made in a subfolder); a protected folder (.vscode) existing
    and a file inside it."""
    c, sid, proj = setup(ctx)
    rule, why = refused(c, sid, proj, "echo x >> .envrc", ".envrc")
    assert rule == RUNS_LATER and why.startswith(".envrc: direnv"), why
    says_exists(why)
    os.makedirs(os.path.join(proj, "sub"), exist_ok=True)
    os.chmod(os.path.join(proj, "sub"), 0o777)
    rule, why = refused(c, sid, proj, "echo x > sub/.envrc", "sub/.envrc")
    assert rule == RUNS_LATER and why.startswith(".envrc: direnv"), why
    says_missing(why)
    rule, why = refused(c, sid, proj, "echo x > .vscode/tasks.json",
                        ".vscode/tasks.json")
    assert rule == RUNS_LATER and ".vscode" in why, why
    says_missing(why)


def test_guard_reasons_git_named_paths(ctx):
    """What git's config names and the guard keeps: an included file that
    exists (a protected file, read-only), one that does not (stays
    uncreatable), a file inside the hooks folder it names."""
    c, sid, proj = setup(ctx)
    rule, why = refused(c, sid, proj, "echo x >> inc.cfg", "inc.cfg")
    assert rule == RUNS_LATER, rule
    assert why.startswith("inc.cfg: a protected file stays read-only"), why
    says_exists(why)
    rule, why = refused(c, sid, proj, "echo x > gone.cfg", "gone.cfg")
    assert rule == RUNS_LATER, rule
    assert why.startswith("gone.cfg: a protected path that does not exist "
                          "stays uncreatable"), why
    says_missing(why)
    rule, why = refused(c, sid, proj, "echo x > myhooks/pre-commit",
                        "myhooks/pre-commit")
    assert rule == RUNS_LATER, rule
    inside = "inside the protected folder %s/myhooks nothing is made" % proj
    assert why.startswith(inside), why
    rule, why = refused(c, sid, proj, "echo x >> myhooks/pre-push",
                        "myhooks/pre-push")
    assert why.startswith(inside), why
    rule, why = refused(c, sid, proj, "rm -rf myhooks; mv myhooks m2",
                        "myhooks")
    assert why.startswith("myhooks: a protected folder stays read-only"), \
        why


def test_guard_reasons_accounts(ctx):
    """An agent's account folder: an existing settings file and a missing
    instructions file, by the account rule; the sign-in (existing) by the
    same rule, which names it; a script the agent's settings name
    (existing, in a writable part) and the project hook it names, by the
    kept-path rule that says a protected file."""
    from test_escape_accounts import setup as acct_setup, create, \
        run as arun
    d, c, project = acct_setup(ctx)
    a = d.home + "/.claude"
    sid = create(c, project, "claude")

    def refusal(script, path):
        r = arun(c, sid, script + " 2>/dev/null; true")
        got = [b for b in r.get("blocked", {}).get("files", [])
               if b["path"] == path]
        assert got, (script, r)
        return got[0]["rule"], got[0]["reason"]

    account = "an agent's account folder, read-only but what the agent " \
        "writes while it works"
    for script, path in (("echo x >> %s/settings.json" % a,
                          a + "/settings.json"),
                         ("echo x > %s/CLAUDE.md" % a, a + "/CLAUDE.md"),
                         ("echo x > %s/.credentials.json" % a,
                          a + "/.credentials.json")):
        rule, why = refusal(script, path)
        assert rule == account, (path, rule)
        assert why.startswith("an agent's account folder is read-only"), why
        assert "sign-in" in why, why
    for script, path in (("echo x >> %s/todos/bar-line.sh" % a,
                          a + "/todos/bar-line.sh"),
                         ("echo x >> %s/tools/fmt-hook.sh" % project,
                          project + "/tools/fmt-hook.sh")):
        rule, why = refusal(script, path)
        assert rule == RUNS_LATER, (path, rule)
        assert why.startswith(os.path.basename(path) + ": a protected file "
                              "stays read-only (named by git's config or "
                              "an agent's settings"), why
        says_exists(why)


SOCK_PY = r"""
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
    print("CONNECTED")
except OSError as e:
    print("refused", e.errno)
"""

BIND_PY = r"""
import os, socket
s = socket.socket(socket.AF_UNIX)
try:
    s.bind(os.path.expanduser("~/.cache/r.sock"))
    print("BOUND")
except OSError as e:
    print("refused", e.errno)
"""


def test_guard_reasons_sockets_and_caches(ctx):
    """A host program's socket (it exists: a missing one has nothing to
    refuse) by the sockets rule, saying the sandbox did not make it; a
    socket bound in a package cache (a new name) by the caches rule."""
    import socket
    c, sid, proj = setup(ctx)
    path = os.path.join(proj, "host.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    os.chmod(path, 0o777)
    srv.listen(1)
    try:
        r = run(c, sid, None, argv=["python3", "-c", SOCK_PY, path])
        assert "CONNECTED" not in r.out, r
        got = [b for b in r.blocked if b["path"] == path]
        assert got and got[0]["rule"] == "host Unix sockets, hidden", r
        assert "a Unix socket the sandbox did not make (a host " \
            "program's) is refused" in got[0]["reason"], got
    finally:
        srv.close()
    r = run(c, sid, None, argv=["python3", "-c", BIND_PY])
    assert "BOUND" not in r.out, r
    got = [b for b in r.blocked if b["path"].endswith("/r.sock")]
    assert got and got[0]["rule"] == "package caches", r
    assert got[0]["reason"].startswith("no socket is served from a package "
                                       "cache"), got
