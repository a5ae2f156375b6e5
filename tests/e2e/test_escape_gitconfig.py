"""The escape suite, git config (issue 20, items 6 and 7): the host
repository's own config names project files that host git runs or reads
(a hook folder, an included file, programs and scripts in command lines).
Each attempt to plant something there runs inside a real session; then the
HOST runs the real git command that would run it, and no marker may appear.
Children made through the channel stay out of git folders of any name."""
import base64
import os
import shutil
import subprocess

import sboxtest
from sandboxlib import create, run


def _git(*args, cwd, home, check=False, inp=None):
    r = subprocess.run(["git"] + list(args), cwd=cwd, capture_output=True,
                       text=True, timeout=60, input=inp,
                       env={"PATH": "/usr/bin:/bin", "HOME": home,
                            "GIT_CONFIG_NOSYSTEM": "1",
                            "GIT_TERMINAL_PROMPT": "0",
                            "GIT_CEILING_DIRECTORIES": os.path.dirname(
                                cwd)})
    if check:
        assert r.returncode == 0, (args, r.stderr)
    return r


def _write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


class Setup:
    """A daemon, a host home, a project repository, a marker path."""

    def __init__(self, ctx, config=None):
        self.d = ctx.daemon()
        self.c = self.d.client()
        self.home = os.path.join(ctx.tmp, "hosthome")
        os.makedirs(self.home, exist_ok=True)
        self.proj = os.path.join(ctx.tmp, "proj")
        self.marker = os.path.join(ctx.tmp, "MARKER")
        os.makedirs(self.proj)
        self.git("init", "-q")
        self.git("config", "user.email", "t@example.test")
        self.git("config", "user.name", "t")
        for k, v in (config or {}).items():
            self.git("config", k, v)
        _write(os.path.join(self.proj, "README"), "hi\n")
        self.git("add", "README")
        self.git("commit", "-qm", "one", "--no-verify")

    def git(self, *args, cwd=None, **kw):
        return _git(*args, cwd=cwd or self.proj, home=self.home, **kw)

    def session(self):
        return create(self.c, self.proj)

    def evil(self, name="evil"):
        """A script that writes the marker."""
        return "#!/bin/sh\ntouch %s.%s\nexit 0\n" % (self.marker, name)

    def no_marker(self):
        found = [n for n in os.listdir(os.path.dirname(self.marker))
                 if n.startswith("MARKER")]
        assert not found, "host git ran the sandbox's code: %s" % found


def test_hooks_path_in_project(ctx):
    """core.hooksPath = tools/hooks: the folder, its hooks, its parents."""
    S = Setup(ctx, {"core.hooksPath": "tools/hooks"})
    os.makedirs(os.path.join(S.proj, "tools", "hooks"))
    _write(os.path.join(S.proj, "tools", "hooks", "pre-commit"),
           "#!/bin/sh\nexit 0\n", 0o755)
    sid = S.session()
    evil = S.evil("pre-commit")
    r = run(S.c, sid, """
printf '%s' > /tmp/evil; chmod 755 /tmp/evil
cat /tmp/evil > tools/hooks/pre-commit && echo WROTE
cp /tmp/evil tools/hooks/commit-msg && echo CREATED
rm -f tools/hooks/pre-commit && echo REMOVED
mv tools/hooks tools/hooks.old && echo MOVED-HOOKS
mv tools tools.old && echo MOVED-TOOLS
mkdir -p x/hooks && cp /tmp/evil x/hooks/pre-commit
rm -rf tools 2>/dev/null; ln -sT x tools && echo LINKED
mv -T x tools 2>/dev/null && echo RENAMED-ONTO
ln -s x/hooks tools/hooks 2>/dev/null && echo LINKED-HOOKS
cat tools/hooks/pre-commit
""" % evil)
    _write(os.path.join(S.proj, "f"), "x\n")
    S.git("add", "f")
    S.git("commit", "-qm", "host")
    S.no_marker()
    with open(os.path.join(S.proj, "tools", "hooks", "pre-commit")) as f:
        assert f.read() == "#!/bin/sh\nexit 0\n"
    for word in ("WROTE", "CREATED", "REMOVED", "MOVED-HOOKS", "MOVED-TOOLS",
                 "LINKED\n", "RENAMED-ONTO", "LINKED-HOOKS"):
        assert word not in r.out, r


def test_hooks_path_missing(ctx):
    """core.hooksPath names a folder that does not exist (nor its parent):
    it cannot be made, by mkdir, a symlink or a rename, nor its parent
    removed."""
    S = Setup(ctx, {"core.hooksPath": "tools/hooks",
                    "alias.y": "!sh .githooks/run.sh"})
    os.makedirs(os.path.join(S.proj, "tools"))
    sid = S.session()
    r = run(S.c, sid, """
printf '%s' > /tmp/evil; chmod 755 /tmp/evil
mkdir -p other/hooks; cp /tmp/evil other/hooks/pre-commit
mv other/hooks tools/hooks && echo RENAMED
ln -s ../other/hooks tools/hooks && echo LINKED
rmdir tools && echo RMDIR-TOOLS; mv -T other tools && echo MOVED-ONTO
ln -sT other tools && echo LINKED-TOOLS
mkdir tools/hooks && echo MKDIR
mkdir .githooks && echo MKDIR-GITHOOKS
echo 'touch %s.alias' > .githooks/run.sh
true
""" % (S.evil("pre-commit"), S.marker))
    _write(os.path.join(S.proj, "f"), "x\n")
    S.git("add", "f")
    S.git("commit", "-qm", "host")
    S.git("y")
    S.no_marker()
    assert not os.path.exists(os.path.join(S.proj, "tools", "hooks"))
    assert not os.path.exists(os.path.join(S.proj, ".githooks"))
    # (the folder holding the missing hooks folder cannot be removed
    # either: a removal is decided like the rename that would follow)
    for word in ("MKDIR\n", "RENAMED", "LINKED\n", "MOVED-ONTO",
                 "LINKED-TOOLS", "MKDIR-GITHOOKS", "RMDIR-TOOLS"):
        assert word not in r.out, r


def test_include_path(ctx):
    """include.path = ../.gitconfig (relative to .git/config): the project's
    .gitconfig cannot gain a core.fsmonitor; a missing include cannot be
    made."""
    S = Setup(ctx, {"include.path": "../.gitconfig"})
    S.git("config", "--add", "include.path", "../extra/more.cfg")
    _write(os.path.join(S.proj, ".gitconfig"), "[user]\n\tname = t\n")
    sid = S.session()
    line = "[core]\n\tfsmonitor = touch %s.fsmonitor; false\n" % S.marker
    r = run(S.c, sid, """
printf '%s' >> .gitconfig && echo APPENDED
printf '%s' > .gitconfig.new && mv .gitconfig.new .gitconfig && echo REPLACED
mkdir -p extra && printf '%s' > extra/more.cfg && echo CREATED
true
""" % (line, line, line))
    S.git("status")
    S.no_marker()
    assert not os.path.exists(os.path.join(S.proj, "extra", "more.cfg"))
    for word in ("APPENDED", "REPLACED", "CREATED"):
        assert word not in r.out, r


def test_named_commands(ctx):
    """core.fsmonitor, alias.x = !sh scripts/x.sh, alias.r = !sh run.sh,
    diff.external,
    filter.*.clean, credential.helper (absolute), core.pager: the programs
    and scripts they name cannot be written."""
    S = Setup(ctx)
    S.git("config", "core.fsmonitor", "tools/fsmon.sh")
    S.git("config", "alias.x", "!sh scripts/x.sh")
    S.git("config", "diff.external", "tools/diff.sh --side")
    S.git("config", "filter.f.clean", "tools/clean.sh %f")
    S.git("config", "credential.helper",
          os.path.join(S.proj, "bin", "cred.sh"))
    S.git("config", "core.pager", "pagers/p.sh")
    S.git("config", "alias.r", "!sh run.sh")
    _write(os.path.join(S.proj, "tools", "diff.sh"), "#!/bin/sh\nexit 0\n",
           0o755)
    sid = S.session()
    script = "printf '%s' > /tmp/evil; chmod 755 /tmp/evil\n" % S.evil()
    for rel in ("tools/fsmon.sh", "scripts/x.sh", "tools/diff.sh",
                "tools/clean.sh", "bin/cred.sh", "pagers/p.sh", "run.sh"):
        script += ("mkdir -p %s 2>/dev/null; cp /tmp/evil %s && "
                   "echo PLANTED %s\n" % (os.path.dirname(rel), rel, rel))
    script += "printf '* filter=f\\n' > .gitattributes; true\n"
    r = run(S.c, sid, script)
    _write(os.path.join(S.proj, "README"), "changed\n")
    S.git("status")
    S.git("x")
    S.git("r")
    S.git("diff")
    S.git("add", "-A")
    S.git("credential", "fill", inp="protocol=https\nhost=example.test\n\n")
    S.git("-c", "core.pager=", "log", "-1")
    S.no_marker()
    assert "PLANTED" not in r.out, r


def test_include_if(ctx):
    """includeIf gitdir: (followed now) and onbranch: (not followed now,
    read anyway): what the included files name stays read-only too."""
    S = Setup(ctx)
    S.git("config", "includeIf.gitdir:%s/.path" % S.proj, "../inc/a.cfg")
    S.git("config", "includeIf.onbranch:other.path", "../inc/b.cfg")
    _write(os.path.join(S.proj, "inc", "a.cfg"), "[user]\n\tname = t\n")
    _write(os.path.join(S.proj, "inc", "b.cfg"),
           "[core]\n\thooksPath = later/hooks\n")
    os.makedirs(os.path.join(S.proj, "later"))
    sid = S.session()
    r = run(S.c, sid, """
printf '[core]\\n\\tfsmonitor = touch %s.fsm; false\\n' >> inc/a.cfg && echo WROTE-A
mkdir later/hooks && echo MKDIR
printf '%s' > later/hooks/pre-commit && echo PLANTED
chmod 755 later/hooks/pre-commit; true
""" % (S.marker, S.evil()))
    S.git("status")
    S.git("checkout", "-q", "-b", "other")
    S.git("commit", "-q", "--allow-empty", "-m", "host")
    S.no_marker()
    for word in ("WROTE-A", "MKDIR", "PLANTED"):
        assert word not in r.out, r


def test_nested_repo_config(ctx):
    """A nested repository's config names a project path (its hooks folder
    two levels up): kept read-only like the top repository's."""
    S = Setup(ctx)
    lib = os.path.join(S.proj, "vendor", "lib")
    os.makedirs(lib)
    _git("init", "-q", cwd=lib, home=S.home, check=True)
    _git("config", "core.hooksPath", "../../shared-hooks", cwd=lib,
         home=S.home, check=True)
    os.makedirs(os.path.join(S.proj, "shared-hooks"))
    sid = S.session()
    r = run(S.c, sid, """
printf '%s' > shared-hooks/pre-commit && echo PLANTED
chmod 755 shared-hooks/pre-commit 2>/dev/null; true
""" % S.evil())
    _git("-c", "user.email=t@example.test", "-c", "user.name=t", "commit",
         "-q", "--allow-empty", "-m", "host", cwd=lib, home=S.home)
    S.no_marker()
    assert "PLANTED" not in r.out, r


def test_config_changed_during_session(ctx):
    """The person sets core.hooksPath on the host while the session runs:
    the next command (and the agent's own file.write) already finds the
    new hook folder read-only."""
    S = Setup(ctx)
    os.makedirs(os.path.join(S.proj, "late", "tool"))
    sid = S.session()
    assert "OK" in run(S.c, sid, "mkdir late/probe && echo OK").out
    S.git("config", "core.fsmonitor", "late/tool/fsmon.sh")
    evil = base64.b64encode(S.evil("fsm").encode()).decode()
    e = S.c.error("file.write", {"session": sid, "data": evil, "mode": 0o755,
                                 "path": os.path.join(S.proj, "late", "tool",
                                                      "fsmon.sh")})
    S.git("status")
    S.no_marker()
    assert e.name in ("sbox.Blocked", "sbox.PermissionDenied"), e
    S.git("config", "core.hooksPath", "late/hooks")
    r = run(S.c, sid, """
mkdir late/hooks && echo MKDIR
printf '%s' > late/hooks/pre-commit && echo PLANTED
chmod 755 late/hooks/pre-commit; true
""" % S.evil())
    S.git("commit", "-q", "--allow-empty", "-m", "host")
    S.no_marker()
    assert "MKDIR" not in r.out and "PLANTED" not in r.out, r


def _exec_channel(c, sid, script):
    r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c", script],
                                "channel": True})
    return (r["exit_code"], base64.b64decode(r["stdout"]).decode(),
            base64.b64decode(r["stderr"]).decode())


def test_child_in_bare_repo_refused(ctx):
    """A child session on vendor/lib.git/hooks (a bare nested repository),
    on the bare repository itself, on a folder holding one: refused."""
    S = Setup(ctx)
    bare = os.path.join(S.proj, "vendor", "lib.git")
    os.makedirs(os.path.dirname(bare))
    _git("init", "-q", "--bare", bare, cwd=S.proj, home=S.home, check=True)
    os.makedirs(os.path.join(S.proj, "ok", "sub"))
    shutil.copy(sboxtest.sbox_for_sandbox(), os.path.join(S.proj, "sbox"))
    os.chmod(os.path.join(S.proj, "sbox"), 0o755)
    sid = S.session()
    answers = []
    for t in ("vendor/lib.git/hooks", "vendor/lib.git", "vendor",
              "vendor/lib.git/refs", "vendor/lib.git/objects"):
        plant = ("for f in pre-receive hooks/pre-receive lib.git/hooks/"
                 "pre-receive; do printf \"#!/bin/sh\\ntouch %s\\n\""
                 " > $f && chmod 755 $f; done" % S.marker)
        code, out, err = _exec_channel(S.c, sid, (
            "child=$(./sbox session create --project \"$PWD/%s\" "
            "--sandbox strict) || exit 7; ./sbox session exec $child -- "
            "sh -c '%s'" % (t, plant)))
        answers.append((t, code, out, err))
    # a folder without git metadata is still fine
    code, out, err = _exec_channel(S.c, sid,
                                   "./sbox session create --project "
                                   "\"$PWD/ok\" --sandbox strict")
    assert code == 0, err
    # the host's git pushing into the bare repository runs nothing planted
    S.git("push", "-q", bare, "HEAD:refs/heads/x")
    S.no_marker()
    for t, code, out, err in answers:
        assert code == 7, (t, code, out, err)
        assert "git" in err, (t, err)


def test_global_config_names_project_paths(ctx):
    """The person's ~/.gitconfig (and a file it includes) names paths in the
    project: a hook folder, a fsmonitor program. Host git with that HOME
    runs nothing the sandbox wrote."""
    S = Setup(ctx)
    os.makedirs(os.path.join(S.proj, "ghooks"))
    _write(os.path.join(S.proj, "shared.cfg"), "[user]\n\tname = t\n")
    _write(os.path.join(S.d.home, ".gitconfig"),
           "[core]\n\thooksPath = %s/ghooks\n[include]\n\tpath = %s/shared.cfg\n"
           "[alias]\n\tz = !%s/tools/z.sh\n" % (S.proj, S.proj, S.proj))
    sid = S.session()
    r = run(S.c, sid, """
printf '%s' > ghooks/pre-commit && chmod 755 ghooks/pre-commit && echo PLANTED
printf '[core]\\n\\tfsmonitor = touch %s.fsm; false\\n' >> shared.cfg && echo APPENDED
mkdir -p tools && printf '%s' > tools/z.sh && chmod 755 tools/z.sh && echo ALIAS
true
""" % (S.evil(), S.marker, S.evil("alias")))
    _git("commit", "-q", "--allow-empty", "-m", "host", cwd=S.proj,
         home=S.d.home)
    _git("status", cwd=S.proj, home=S.d.home)
    _git("z", cwd=S.proj, home=S.d.home)
    S.no_marker()
    for word in ("PLANTED", "APPENDED", "ALIAS"):
        assert word not in r.out, r


def test_repository_git_refuses(ctx):
    """A nested git folder the host's git will not open as a repository (an
    extension it does not know, as a test fixture may have): the session
    starts, and what its config names is still kept read-only."""
    S = Setup(ctx)
    fix = os.path.join(S.proj, "fixtures", "odd.git")
    os.makedirs(os.path.dirname(fix))
    _git("init", "-q", "--bare", fix, cwd=S.proj, home=S.home, check=True)
    with open(os.path.join(fix, "config"), "a") as f:
        f.write("[core]\n\trepositoryformatversion = 1\n"
                "\tfsmonitor = tools/odd-fsmon.sh\n"
                "[extensions]\n\tnosuchextension = yes\n")
    assert _git("--git-dir", fix, "status", cwd=S.proj,
                home=S.home).returncode != 0
    sid = S.session()
    r = run(S.c, sid, "mkdir -p fixtures/odd.git/tools && "
            "echo x > fixtures/odd.git/tools/odd-fsmon.sh && echo PLANTED; "
            "echo ok > fine.txt && echo FINE")
    assert "FINE" in r.out, r
    assert "PLANTED" not in r.out, r
    assert not os.path.exists(os.path.join(fix, "tools", "odd-fsmon.sh"))


def test_repository_made_during_session(ctx):
    """The project is not a repository when the session starts; the person
    runs `git init` and sets core.hooksPath on the host: the next command
    already finds the hook folder read-only."""
    d = ctx.daemon()
    c = d.client()
    home = os.path.join(ctx.tmp, "hosthome")
    os.makedirs(home)
    proj = os.path.join(ctx.tmp, "plain")
    os.makedirs(os.path.join(proj, "h"))
    marker = os.path.join(ctx.tmp, "MARKER")
    sid = create(c, proj)
    assert "OK" in run(c, sid, "echo x > h/probe && echo OK").out
    _git("init", "-q", cwd=proj, home=home, check=True)
    _git("config", "core.hooksPath", "h", cwd=proj, home=home, check=True)
    r = run(c, sid, "printf '#!/bin/sh\\ntouch %s\\n' > h/pre-commit && "
            "chmod 755 h/pre-commit && echo PLANTED; true" % marker)
    _git("-c", "user.email=t@example.test", "-c", "user.name=t", "commit",
         "-q", "--allow-empty", "-m", "host", cwd=proj, home=home)
    assert not os.path.exists(marker), "host git ran the sandbox's hook"
    assert "PLANTED" not in r.out, r
