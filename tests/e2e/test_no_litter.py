"""No litter (issue 10): while a session runs, nothing of sbox's is in the
project on the host (missing protected names are kept uncreatable by the
file guard, not by placeholders), so host `git status` shows nothing,
`git add -A` inside or outside commits nothing of sbox's, file.list lists
only the project's own files, and nothing is left after close."""
import os
import subprocess

from sandboxlib import create, run

ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "GIT_AUTHOR_NAME": "t",
       "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def _git(cwd, *args):
    r = subprocess.run(["git", "-C", cwd] + list(args), capture_output=True,
                       text=True, env=ENV, timeout=60)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


def test_no_litter_while_running_and_after(ctx):
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    _git(proj, "init", "-q")
    with open(os.path.join(proj, "main.c"), "w") as f:
        f.write("int main(void) { return 0; }\n")
    _git(proj, "add", "-A")
    _git(proj, "commit", "-qm", "first")
    before = sorted(os.listdir(proj))
    d = ctx.daemon()
    c = d.client()
    sessions = [create(c, proj, "workspace"), create(c, proj, "strict")]
    # host git sees nothing of sbox's while the sessions run
    assert _git(proj, "status", "--porcelain") == ""
    assert sorted(os.listdir(proj)) == before
    # git add -A inside commits only what the command wrote
    r = run(c, sessions[0], "export HOME=/tmp GIT_AUTHOR_NAME=t "
            "GIT_COMMITTER_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid "
            "GIT_COMMITTER_EMAIL=t@example.invalid; echo x > new.txt && "
            "git add -A && git commit -qm inside && git show --stat "
            "--format= HEAD")
    assert r.code == 0, r
    assert r.out.split()[0] == "new.txt" and "1 file changed" in r.out, r
    # and outside
    with open(os.path.join(proj, "host.txt"), "w") as f:
        f.write("h\n")
    _git(proj, "add", "-A")
    assert _git(proj, "diff", "--cached", "--name-only").split() == ["host.txt"]
    # file.list lists the project's own files only
    lst = c.call("file.list", {"session": sessions[0], "path": proj})
    names = sorted(e["name"] for e in lst["entries"])
    assert names == sorted(os.listdir(proj)), (names, os.listdir(proj))
    # protected names that do not exist stay uncreatable all the same
    r = run(c, sessions[0], "echo x > .envrc; mkdir .vscode; "
            "echo x > .git/hooks/pre-commit; ls -a")
    assert ".envrc" not in r.out.split() and ".vscode" not in r.out.split(), r
    for s in sessions:
        c.call("session.close", {"session": s})
    assert sorted(os.listdir(proj)) == sorted(before + ["new.txt", "host.txt"])
    assert not os.path.exists(os.path.join(proj, ".git", "hooks", "pre-commit"))
