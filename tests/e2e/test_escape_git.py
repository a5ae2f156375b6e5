"""The escape suite, git (issue 10): each attempt runs inside a real session,
then the HOST runs the real git that would act on it, and no marker may
appear, during the session and after it closed. Attacks aim at
core.fsmonitor / hooks, which host git (or an editor's git status) runs."""
import os
import subprocess

import sboxtest
from sandboxlib import RUNS_LATER, create, run

# The text that would make host git run a command writing the marker.
def _evil_config(marker):
    return "[core]\n\tfsmonitor = touch %s; false\n\thooksPath = .\n" % marker


def _git(*args, cwd, home):
    return subprocess.run(["git"] + list(args), cwd=cwd, capture_output=True,
                          text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "HOME": home,
                               "GIT_CONFIG_NOSYSTEM": "1",
                               "GIT_CEILING_DIRECTORIES": os.path.dirname(
                                   cwd)})


def _repo(path, home):
    os.makedirs(path, exist_ok=True)
    assert _git("init", "-q", cwd=path, home=home).returncode == 0
    _git("config", "user.email", "t@example.test", cwd=path, home=home)
    _git("config", "user.name", "t", cwd=path, home=home)
    with open(os.path.join(path, "README"), "w") as f:
        f.write("hi\n")
    _git("add", "README", cwd=path, home=home)
    r = _git("commit", "-qm", "one", cwd=path, home=home)
    assert r.returncode == 0, r.stderr


class Setup:
    """A daemon, a host home, a project repo and a marker path."""

    def __init__(self, ctx, name="proj"):
        self.d = ctx.daemon()
        self.c = self.d.client()
        self.home = os.path.join(ctx.tmp, "hosthome")
        os.makedirs(self.home, exist_ok=True)
        self.proj = os.path.join(ctx.tmp, name)
        self.marker = os.path.join(ctx.tmp, "MARKER")
        _repo(self.proj, self.home)

    def session(self):
        return create(self.c, self.proj)

    def host_git(self, *dirs):
        """Run what an editor runs (git status, git commit) in each folder."""
        for rel in dirs:
            cwd = os.path.join(self.proj, rel)
            if not os.path.isdir(cwd):
                continue
            _git("status", cwd=cwd, home=self.home)
            _git("diff", "--stat", cwd=cwd, home=self.home)
            _git("commit", "-qam", "host", "--allow-empty", cwd=cwd,
                 home=self.home)
        assert not os.path.exists(self.marker), "host git ran the sandbox's code"


def test_escape_nested_repo(ctx):
    """git init vendor/lib + core.fsmonitor + git add; bare layouts;
    commondir anywhere; a gitfile evil/.git."""
    S = Setup(ctx)
    sid = S.session()
    cfg = _evil_config(S.marker)
    r = run(S.c, sid, """
git init -q vendor/lib 2>&1; test -e vendor/lib/.git && echo MADE-NESTED
printf '%s' > /tmp/evilcfg
git -C vendor/lib config core.fsmonitor 'touch %s' 2>/dev/null
git add vendor/lib 2>/dev/null
mkdir -p evil .hidden
printf 'gitdir: ../.hidden\\n' > evil/.git && echo WROTE-GITFILE
mkdir -p .hidden/objects .hidden/refs; echo 'ref: refs/heads/main' > .hidden/HEAD && echo BARE-HEAD
mkdir -p bare; (cd bare && echo 'ref: refs/heads/x' > HEAD && mkdir objects && mkdir refs) && echo BARE-ALL
git init -q --bare sub.git 2>/dev/null && echo BARE-INIT
mkdir -p cd1; echo ../.git > cd1/commondir && echo COMMONDIR
cp /tmp/evilcfg .hidden/config
true
""" % (cfg, S.marker))
    for word in ("MADE-NESTED", "WROTE-GITFILE", "BARE-HEAD", "BARE-ALL",
                 "BARE-INIT", "COMMONDIR"):
        assert word not in r.out, (word, r)
    assert not os.path.exists(os.path.join(S.proj, "vendor/lib/.git"))
    assert not os.path.exists(os.path.join(S.proj, "evil/.git"))
    assert not os.path.exists(os.path.join(S.proj, "cd1/commondir"))
    assert sorted(os.listdir(os.path.join(S.proj, "bare"))) != \
        ["HEAD", "objects", "refs"]
    S.host_git(".", "vendor/lib", "evil", ".hidden", "bare", "sub.git", "cd1")
    S.c.call("session.close", {"session": sid})
    S.host_git(".", "vendor/lib", "evil", ".hidden", "bare", "sub.git", "cd1")


def test_escape_existing_nested_and_submodule(ctx):
    """An existing nested repo's config and hooks, an existing submodule's
    gitfile and its module folder, the top repo's config.worktree."""
    S = Setup(ctx)
    _repo(os.path.join(S.proj, "vendor/lib"), S.home)
    sub = os.path.join(S.proj, "sub")
    os.makedirs(sub)
    os.makedirs(os.path.join(S.proj, ".git/modules"))
    assert _git("init", "-q", "--separate-git-dir",
                os.path.join(S.proj, ".git/modules/sub"), cwd=sub,
                home=S.home).returncode == 0
    sid = S.session()
    cfg = _evil_config(S.marker)
    r = run(S.c, sid, """
printf '%s' > /tmp/c
cat /tmp/c >> vendor/lib/.git/config && echo W1
printf '#!/bin/sh\\ntouch %s\\n' > vendor/lib/.git/hooks/pre-commit && echo W2
chmod +x vendor/lib/.git/hooks/pre-commit.sample && echo W3
mv vendor/lib/.git/hooks vendor/lib/.git/hooks.old && echo W4
ln vendor/lib/.git/config linked && echo W5
printf 'gitdir: ../.hidden\\n' > sub/.git && echo W6
cat /tmp/c >> .git/modules/sub/config && echo W7
cat /tmp/c > .git/config.worktree && echo W8
cat /tmp/c > vendor/lib/.git/config.worktree && echo W9
mkdir -p st/hooks; mv st .git/modules/sub2 && echo W10
git -C vendor/lib config core.fsmonitor 'touch %s' && echo W11
true
""" % (cfg, S.marker, S.marker))
    for w in ("W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9", "W10",
              "W11"):
        assert w + "\n" not in r.out, (w, r)
    S.host_git(".", "vendor/lib", "sub")
    S.c.call("session.close", {"session": sid})
    S.host_git(".", "vendor/lib", "sub")


def test_escape_separate_git_dir(ctx):
    """A project whose .git is a gitfile: the real git folder's config,
    commondir and config.worktree stay read-only."""
    S = Setup(ctx, name="plain")
    proj = os.path.join(ctx.tmp, "sep")
    os.makedirs(proj)
    assert _git("init", "-q", "--separate-git-dir",
                os.path.join(proj, ".gd"), cwd=proj,
                home=S.home).returncode == 0
    S.proj = proj
    sid = S.session()
    r = run(S.c, sid, """
echo ../evil > .gd/commondir && echo W1
printf '[core]\\n\\tfsmonitor = touch %s\\n' >> .gd/config && echo W2
printf '[core]\\n\\tfsmonitor = touch %s\\n' > .gd/config.worktree && echo W3
printf 'gitdir: .gd2\\n' > .git && echo W4
true
""" % (S.marker, S.marker))
    for w in ("W1", "W2", "W3", "W4"):
        assert w + "\n" not in r.out, (w, r)
    assert not os.path.exists(os.path.join(proj, ".gd/commondir"))
    S.host_git(".")
    S.c.call("session.close", {"session": sid})
    S.host_git(".")


def test_escape_symlink_rename_link(ctx):
    """Dangling symlinks, renames, hard and symbolic links onto .git."""
    S = Setup(ctx)
    sid = S.session()
    r = run(S.c, sid, None, argv=["python3", "-c", r"""
import os
os.makedirs('d', exist_ok=True)
os.makedirs('d2', exist_ok=True)
open('d2/g', 'w').write('gitdir: ../.git\n')
res = []
def t(name, f):
    try:
        f()
        res.append(name)
    except OSError:
        pass
os.symlink('.git', 'd/x')
t('dangling', lambda: open('d/x', 'w').write('gitdir: ..\n'))
t('rename', lambda: os.rename('d2/g', 'd2/.git'))
t('link', lambda: os.link('d2/g', 'd2/.git'))
t('symlink', lambda: os.symlink('g', 'd2/.git'))
os.makedirs('d3/.gitx', exist_ok=True)
t('renamedir', lambda: os.rename('d3/.gitx', 'd3/.git'))
t('mkdir', lambda: os.mkdir('d3/.git'))
t('exchange', lambda: os.system('true'))
print('OK:' + ','.join(res))
"""])
    assert r.code == 0, r
    made = set(r.out.strip().split("OK:")[-1].split(","))
    assert made <= {"exchange", ""}, r
    for rel in ("d/.git", "d2/.git", "d3/.git"):
        assert not os.path.lexists(os.path.join(S.proj, rel)), rel
    S.host_git(".", "d", "d2", "d3")
    S.c.call("session.close", {"session": sid})


SWAP = r"""
import ctypes, os, threading, time
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs('race', exist_ok=True)
buf = ctypes.create_string_buffer(64)
a, b = b'race/okdir', b'race/.git'
stop = False
def flip():
    while not stop:
        ctypes.memmove(buf, a + b'\0', len(a) + 1)
        ctypes.memmove(buf, b + b'\0', len(b) + 1)
th = threading.Thread(target=flip)
th.start()
end = time.time() + 1.5
n = 0
while time.time() < end:
    if libc.mkdir(buf, 0o755) == 0:
        n += 1
        try:
            os.rmdir('race/okdir')
        except OSError:
            pass
stop = True
th.join()
print('made', n, os.path.lexists('race/.git'))
"""


def test_escape_path_swap_race(ctx):
    """Another thread flips the path buffer while mkdir runs: sbox-init
    reads it once, so what it checks is what it makes."""
    S = Setup(ctx)
    sid = S.session()
    r = run(S.c, sid, None, argv=["python3", "-c", SWAP])
    assert r.code == 0, r
    assert "False" in r.out, r
    assert not os.path.lexists(os.path.join(S.proj, "race/.git"))
    S.host_git(".", "race")
    S.c.call("session.close", {"session": sid})


def test_legit_git_work(ctx):
    """Commits, branches and logs inside still work; git init in the
    scratch folder and in /tmp too; ordinary writes."""
    S = Setup(ctx)
    sid = S.session()
    scratch = S.c.call("session.info", {"session": sid})["scratch"]
    out = run(S.c, sid, """
set -e
export HOME=/tmp GIT_CONFIG_NOSYSTEM=1
git -c user.email=a@b -c user.name=a commit -q --allow-empty -m inside
git branch topic
git checkout -q topic
echo more > more.txt && git add more.txt
git -c user.email=a@b -c user.name=a commit -qm more
git log --oneline | wc -l
cd /tmp && git init -q scratchrepo && cd scratchrepo && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m t && echo TMPREPO
cd %s
git init -q s2 && cd s2 && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m t && echo SCRATCHREPO
""" % scratch)
    assert out.code == 0, out
    assert "TMPREPO" in out.out and "SCRATCHREPO" in out.out, out
    assert out.blocked == [], out
    r = run(S.c, sid, """
set -e
mkdir -p node_modules/.bin pkg/lib
echo 'module.exports = 1' > node_modules/x.js
printf '#!/bin/sh\\n' > node_modules/.bin/tool && chmod +x node_modules/.bin/tool
mv node_modules/x.js node_modules/y.js && ln -s y.js node_modules/z.js && ln node_modules/y.js hard.js
truncate -s 0 hard.js
echo done
""")
    assert r.code == 0 and "done" in r.out and r.blocked == [], r
    log = _git("log", "--oneline", "topic", cwd=S.proj, home=S.home)
    assert log.returncode == 0 and "more" in log.stdout, log
    S.host_git(".")
    S.c.call("session.close", {"session": sid})


def test_exact_reports(ctx):
    """blocked.files lists a refusal a program handles quietly, with its op
    and rule; a program that only prints the words reports nothing."""
    S = Setup(ctx)
    sid = S.session()
    r = run(S.c, sid, None, argv=["python3", "-c",
        "import os\ntry:\n  open('.envrc','w')\nexcept OSError:\n  pass\n"
        "try:\n  os.mkdir('x.git'); os.rename('x.git', '.vscode')\n"
        "except OSError:\n  pass\n"])
    assert r.code == 0 and r.err == "", r
    got = {(os.path.relpath(b["path"], S.proj), b["op"], b["rule"])
           for b in r.blocked}
    assert (".envrc", "create", RUNS_LATER) in got, r
    assert (".vscode", "rename", RUNS_LATER) in got, r
    # a refused path that is not UTF-8 is reported, sbox-init keeps going
    r = run(S.c, sid, None, argv=["python3", "-c",
        "import os\nos.mkdir(b'b\\xffd')\ntry:\n  open(b'b\\xffd/.envrc','w')\n"
        "except OSError:\n  print('refused')\n"])
    assert "refused" in r.out, r
    assert any(b["path"].endswith("/b?d/.envrc") for b in r.blocked), r
    r = run(S.c, sid, "echo 'cp: cannot create x: Read-only file system' "
            ">&2; echo '/usr/x: Read-only file system' >&2; true")
    assert r.blocked == [], r
    S.c.call("session.close", {"session": sid})


X32 = r"""
import ctypes, os, sys
os.makedirs('abi', exist_ok=True)
libc = ctypes.CDLL(None, use_errno=True)
# mkdir through the x32 ABI (x86_64 number 83 with bit 30): libseccomp's
# filters kill it (or the kernel has no x32); either way nothing is made
r = libc.syscall(0x40000000 | 83, b'abi/.git', 0o755)
print('x32', r, ctypes.get_errno())
"""

M32 = r"""
void _start(void) {
	static const char p[] = "abi/.git";
	long ret;
	__asm__ volatile ("int $0x80" : "=a"(ret) : "a"(39), "b"(p), "c"(0755) : "memory");
	__asm__ volatile ("int $0x80" : : "a"(1), "b"(ret == 0 ? 0 : 1));
	for (;;) ;
}
"""


def test_escape_other_abis(ctx):
    """mkdir through the x32 ABI and through 32-bit int 0x80: the guard's
    filter covers the compat ABI and libseccomp kills x32 calls."""
    import platform
    import shutil
    if platform.machine() != "x86_64":
        raise sboxtest.Skip("x86_64 only")
    S = Setup(ctx)
    sid = S.session()
    r = run(S.c, sid, None, argv=["python3", "-c", X32])
    assert not os.path.lexists(os.path.join(S.proj, "abi/.git")), r
    src = os.path.join(ctx.tmp, "m32.c")
    with open(src, "w") as f:
        f.write(M32)
    binary = os.path.join(S.proj, "m32")
    if shutil.which("gcc") is None or subprocess.run(
            ["gcc", "-m32", "-nostdlib", "-static", "-fno-pie", "-no-pie",
             "-o", binary, src], capture_output=True).returncode != 0:
        raise sboxtest.Skip("no 32-bit compiler for the int 0x80 case")
    r = run(S.c, sid, "./m32; echo rc=$?")
    assert not os.path.lexists(os.path.join(S.proj, "abi/.git")), r
    if "rc=126" in r.out or "Exec format" in r.err:
        raise sboxtest.Skip("this kernel runs no 32-bit programs (x32 "
                            "case checked)")
    S.c.call("session.close", {"session": sid})


HOSTILE = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs('h', exist_ok=True)
for a, b in (('h/loop1', 'h/loop2'), ('h/loop2', 'h/loop1')):
    try:
        os.symlink(os.path.basename(b), a)
    except OSError:
        pass
paths = [b'', b'/', b'.', b'..', b'h/loop1', b'h/loop1/x', b'../' * 3000,
         b'a' * 5000, (b'x/' * 2100), b'/proc/self/fd/1', b'/proc/1/environ',
         b'/proc/thread-self/comm', b'/proc/self/cwd/.git',
         b'/proc/self/root/proc/self/cwd/h/.git', b'h/\xff\xfe/.envrc',
         b'/dev/fd/1', b'h/' + b'../h/' * 800 + b'.git']
for p in paths:
    for fn in (lambda: libc.mkdir(p, 0o755),
               lambda: libc.open(p, os.O_WRONLY | os.O_CREAT, 0o644),
               lambda: libc.rename(b'h', p), lambda: libc.link(b'h', p),
               lambda: libc.symlink(b'h', p), lambda: libc.truncate(p, 0),
               lambda: libc.chmod(p, 0o755)):
        fn()
# a bad pointer
libc.syscall(83, ctypes.c_void_p(8), 0o755)
libc.syscall(83, ctypes.c_void_p(0xffffffffffff0000), 0o755)
print('survived')
"""


def test_escape_hostile_paths(ctx):
    """Loops, huge and odd paths, bad pointers, /proc tricks: sbox-init
    keeps serving, and nothing of git appears."""
    S = Setup(ctx)
    sid = S.session()
    r = run(S.c, sid, None, argv=["python3", "-c", HOSTILE])
    assert "survived" in r.out, r
    assert run(S.c, sid, "echo still-here").out.strip() == "still-here"
    for rel in ("h/.git", ".git/HEAD"):
        assert rel == ".git/HEAD" or not os.path.lexists(
            os.path.join(S.proj, rel)), rel
    S.host_git(".", "h")
    S.c.call("session.close", {"session": sid})
