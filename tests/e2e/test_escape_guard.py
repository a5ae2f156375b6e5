"""The escape suite, the file guard decides on what the kernel will do
(issue 20): privilege bits, magic links whose path cannot be read, symlinks
at a leading part of a protected name, git folders' state that runs
commands, Unix sockets (bind and connect), shared folders as projects.
Each attempt runs inside a real session; then the host runs the tool that
would act on it (stat and the file itself, git status / commit / rebase
--continue, cargo, a host socket server)."""
import os
import platform
import shutil
import socket
import stat
import subprocess

from sboxtest import is_root
from sandboxlib import RUNS_LATER, TRY_PY, create, has_rule, run

ENV = {"PATH": "/usr/bin:/bin"}


def _git(*args, cwd, home):
    return subprocess.run(["git"] + list(args), cwd=cwd, capture_output=True,
                          text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "HOME": home,
                               "GIT_CONFIG_NOSYSTEM": "1",
                               "GIT_EDITOR": "true",
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

    def __init__(self, ctx):
        self.d = ctx.daemon()
        self.c = self.d.client()
        self.home = os.path.join(ctx.tmp, "hosthome")
        os.makedirs(self.home, exist_ok=True)
        self.proj = os.path.join(ctx.tmp, "proj")
        self.marker = os.path.join(ctx.tmp, "MARKER")
        _repo(self.proj, self.home)
        os.chmod(self.proj, 0o755)

    def session(self):
        return create(self.c, self.proj)

    def host_git(self, *dirs):
        """What an editor and a person run in each folder."""
        for rel in dirs:
            cwd = os.path.join(self.proj, rel)
            if not os.path.isdir(cwd):
                continue
            _git("status", cwd=cwd, home=self.home)
            _git("commit", "-qam", "host", "--allow-empty", cwd=cwd,
                 home=self.home)
            _git("rebase", "--continue", cwd=cwd, home=self.home)
            _git("cherry-pick", "--continue", cwd=cwd, home=self.home)
            _git("am", "--continue", cwd=cwd, home=self.home)
        assert not os.path.exists(self.marker), "host git ran the sandbox's code"

    def close(self, sid):
        self.c.call("session.close", {"session": sid})


def _said(out, *tags):
    """The tags a script printed (each on its own line)."""
    lines = out.split("\n")
    return [t for t in tags if t in lines]


# -- privilege bits ---------------------------------------------------------

SETUID_PY = r"""
import ctypes, os, platform
def t(tag, f):
    try:
        f()
        print(tag, flush=True)
    except OSError:
        pass
t("P1", lambda: os.close(os.open("p1", os.O_CREAT | os.O_WRONLY, 0o4755)))
t("P2", lambda: os.mknod("p2", 0o104755))
t("P3", lambda: os.mkdir("p3", 0o2755))
fd = os.open("p4", os.O_CREAT | os.O_WRONLY, 0o755)
t("P4", lambda: os.fchmod(fd, 0o4755))
t("P5", lambda: os.chmod("/proc/self/fd/%d" % fd, 0o6755))
t("P6", lambda: os.setxattr("p4", "security.capability",
  bytes.fromhex("010000020020000000000000000000000000000000")))
t("P7", lambda: os.close(os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o4755)))
t("P8", lambda: os.chmod("p4", 0o2755))
t("P9", lambda: os.close(os.open("p9", os.O_CREAT | os.O_WRONLY | os.O_EXCL,
  0o6777)))
if platform.machine() == "x86_64":
    libc = ctypes.CDLL(None, use_errno=True)
    # fchmodat (268) and mkdir (83) with high bits set above the mode
    if libc.syscall(268, -100, b"p4", ctypes.c_ulong((1 << 40) | 0o4755),
                    0) == 0:
        print("P10")
    if libc.syscall(83, b"p11", ctypes.c_ulong((1 << 33) | 0o2755)) == 0 \
            and os.stat("p11").st_mode & 0o6000:
        print("P11")
t("P12", lambda: os.chmod("p4", 0o755))
"""


def _no_privilege_bits(root):
    bad = []
    for dirpath, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            if st.st_mode & (stat.S_ISUID | stat.S_ISGID):
                bad.append((p, oct(st.st_mode)))
            try:
                os.getxattr(p, "security.capability", follow_symlinks=False)
                bad.append((p, "security.capability"))
            except OSError:
                pass
    return bad


def test_escape_setuid_bits(ctx):
    """chmod 4755/6755/g+s, a setgid folder, open(O_CREAT, 04755), mknod of
    a setuid file, fchmod, chmod through /proc/self/fd, file capabilities:
    none leaves a privilege bit on the host; the mount is nosuid inside."""
    S = Setup(ctx)
    sid = S.session()
    r = run(S.c, sid, """
cp /bin/sh suid1; chmod 4755 suid1 && echo C1
cp /bin/sh suid2; chmod 6755 suid2 && echo C2
cp /bin/sh sgid3; chmod g+s sgid3 && echo C3
chmod u+s suid1 && echo C4
mkdir sgdir; chmod 2775 sgdir && echo C5
mkdir -m 2755 sgdir2 && echo C6
install -m 4755 /bin/sh suid7 && echo C7
cp -p suid1 suid8 && echo C8
true
""")
    assert _said(r.out, "C1", "C2", "C3", "C4", "C5", "C6", "C7") == [], r
    r2 = run(S.c, sid, None, argv=["python3", "-c", SETUID_PY])
    assert _said(r2.out, *("P%d" % i for i in range(1, 12))) == [], r2
    assert "P12" in r2.out.split("\n"), r2  # a plain mode still works
    # a second layer inside: the project is mounted nosuid
    m = run(S.c, sid, "awk -v p=%s '$5 == p {print $6}' /proc/self/mountinfo"
            % S.proj)
    assert m.out.strip() and all("nosuid" in line for line in
                                 m.out.strip().split("\n")), m
    S.close(sid)
    assert _no_privilege_bits(S.proj) == []
    assert os.path.exists(os.path.join(S.proj, "suid1"))
    if is_root():
        # run what was made as another user: it runs as that user
        for n in ("suid1", "suid2", "sgid3", "suid7"):
            p = os.path.join(S.proj, n)
            if not os.path.exists(p) or not os.stat(p).st_mode & 0o001:
                continue  # (install leaves 0600 when its chmod fails)
            out = subprocess.run(
                ["setpriv", "--reuid=65534", "--regid=65534",
                 "--clear-groups", p, "-c", "id -u; id -g"],
                capture_output=True, text=True, timeout=30)
            assert out.stdout.split() == ["65534", "65534"], (n, out)


# -- magic links --------------------------------------------------------------

MAGIC_PY = r"""
import ctypes, os
def t(tag, f):
    try:
        f()
        print(tag, flush=True)
    except OSError as e:
        print("no", tag, e.errno, flush=True)
EVIL = open("/tmp/evil", "rb").read()
libc = ctypes.CDLL(None, use_errno=True)
AT_EMPTY_PATH = 0x1000
cfg = os.open("vendor/lib/.git/config", os.O_PATH)
hook = os.open("vendor/lib/.git/hooks/pre-commit.sample", os.O_RDONLY)
t("RENAMED", lambda: os.rename("vendor/lib", "vendor/lib (deleted)"))
t("M1", lambda: open("/proc/self/fd/%d" % cfg, "ab").write(EVIL))
t("M2", lambda: os.chmod("/proc/self/fd/%d" % cfg, 0o666))
t("M3", lambda: os.truncate("/proc/self/fd/%d" % cfg, 0))
t("M4", lambda: os.fchmod(hook, 0o777))
t("M5", lambda: open("/proc/%d/fd/%d" % (os.getpid(), cfg), "wb").write(EVIL))
def link_from_fd(fd, new):
    if libc.linkat(fd, b"", -100, new.encode(), AT_EMPTY_PATH) != 0:
        raise OSError(ctypes.get_errno(), "linkat")
t("M6", lambda: link_from_fd(cfg, "stolen-config"))
src = os.open("payload", os.O_CREAT | os.O_WRONLY, 0o755)
os.write(src, b"#!/bin/sh\ntouch " + MARKER.encode() + b"\n")
t("M7", lambda: link_from_fd(src, "vendor/lib (deleted)/.git/hooks/pre-commit"))
t("M8", lambda: os.link("/proc/self/fd/%d" % cfg, "stolen2"))
# a path over PATH_MAX: the repository moved into a deep chain of short
# folders, whose names then grow (deepest first: each rename's own path
# stays short)
os.makedirs("/".join(["d"] * 20))
t("MOVED", lambda: os.rename("vendor/lib (deleted)", "/".join(["d"] * 20) +
  "/lib"))
for k in range(20, 0, -1):
    t("GREW%d" % k, lambda: os.rename("/".join(["d"] * k),
      "/".join(["d"] * (k - 1) + ["d" * 240])))
t("M9", lambda: open("/proc/self/fd/%d" % cfg, "ab").write(EVIL))
t("M10", lambda: os.fchmod(hook, 0o700))
print("END", flush=True)
"""


def test_escape_magic_links(ctx):
    """An O_PATH fd to a nested repository's config, its parent renamed to
    "... (deleted)" or moved past PATH_MAX, then reopened, chmod'ed,
    truncated, fchmod'ed or linked through /proc/self/fd: refused."""
    S = Setup(ctx)
    lib = os.path.join(S.proj, "vendor", "lib")
    sid = S.session()
    # the repository is made on the host after the session started, so the
    # git config reader (which would keep its parents from being renamed)
    # has not seen it yet: the guard's own git-folder rules must hold
    _repo(lib, S.home)
    with open(os.path.join(lib, ".git", "config"), "rb") as f:
        before = f.read()
    evil = "[core]\n\tfsmonitor = touch %s; false\n" % S.marker
    run(S.c, sid, "printf '%s' > /tmp/evil" % evil.replace("\n", "\\n")
        .replace("\t", "\\t"))
    r = run(S.c, sid, None, argv=["python3", "-c", "MARKER = %r\n" %
                                  S.marker + MAGIC_PY])
    tags = ["M%d" % i for i in range(1, 11)]
    assert _said(r.out, *tags) == [], r
    lines = r.out.split("\n")
    assert "RENAMED" in lines and "MOVED" in lines, r  # the attack's steps
    assert "END" in lines, r
    # the names grew (the renames' own paths stay short): the repository
    # is past PATH_MAX, and the writes through the old fd were refused
    assert "GREW1" in lines and "GREW20" in lines, r
    # the repository is now past PATH_MAX (when the names could grow):
    # look at it the way the host's tools would, one folder at a time
    d = os.open(S.proj, os.O_PATH | os.O_DIRECTORY)
    for k in range(1, 21):
        name = "d" * 240 if "GREW%d" % k in lines else "d"
        d = os.open(name, os.O_PATH | os.O_DIRECTORY, dir_fd=d)
    g = os.open("lib/.git", os.O_PATH | os.O_DIRECTORY, dir_fd=d)
    with open(os.open("config", os.O_RDONLY, dir_fd=g), "rb") as f:
        assert f.read() == before
    assert not os.path.exists("/proc/self/fd/%d/hooks/pre-commit" % g)
    mode = os.stat("pre-commit.sample", dir_fd=os.open("hooks", os.O_PATH,
                                                        dir_fd=g)).st_mode
    assert mode & 0o777 != 0o777 and mode & 0o777 != 0o700, oct(mode)
    for n in ("stolen-config", "stolen2"):
        assert not os.path.exists(os.path.join(S.proj, n)), n
    # host git in the repository (from its folder, whatever its path)
    pid = os.fork()
    if pid == 0:
        try:
            os.fchdir(os.open("lib", os.O_RDONLY | os.O_DIRECTORY,
                              dir_fd=d))
            for args in (["status"], ["commit", "-qam", "h",
                                      "--allow-empty"]):
                subprocess.run(["git"] + args, capture_output=True,
                               env={"PATH": "/usr/bin:/bin",
                                    "HOME": S.home}, timeout=60)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    S.host_git(".")
    S.close(sid)
    S.host_git(".")


# -- a symlink at a leading part of a protected name -------------------------

def test_escape_leading_symlink(ctx):
    """mkdir evil; ln -s evil .cargo; a config written through evil/: the
    symlink (and every spelling of it) is refused, so host cargo, yarn,
    gradle and mise never read what the sandbox wrote."""
    S = Setup(ctx)
    os.makedirs(os.path.join(S.proj, "sub"))
    sid = S.session()
    wrapper = os.path.join(S.proj, "evil", "wrap.sh")
    r = run(S.c, sid, """
mkdir -p evil x sub
printf '#!/bin/sh\\ntouch %s\\nexec "$@"\\n' > evil/wrap.sh; chmod 755 evil/wrap.sh
printf '[build]\\nrustc-wrapper = "%s"\\n' > evil/config.toml
ln -s evil .cargo && echo L1
ln -s ../evil sub/.cargo && echo L2
python3 -c "import os; os.symlink('evil', '.yarn')" && echo L3
ln -s evil gradle && echo L4
ln -s evil .config && echo L5
ln -s evil tmpl; mv tmpl .cargo && echo L6
ln -s evil tmp2; ln -P tmp2 .cargo && echo L7
ln -s evil x/../.cargo && echo L8
ln -s "$PWD/evil" "$PWD/sub/../.cargo" && echo L9
ln -s evil /proc/self/cwd/.cargo && echo L10
touch .cargo && echo L11
mkfifo .yarn && echo L12
mkdir .cargo && echo MKDIR-OK
printf '[build]\\n' > .cargo/config.toml && echo L13
true
""" % (S.marker, wrapper))
    assert _said(r.out, *("L%d" % i for i in range(1, 14))) == [], r
    assert "MKDIR-OK" in r.out.split("\n"), r  # a folder is fine there
    assert has_rule(r.blocked, ".cargo", RUNS_LATER), r.blocked
    S.close(sid)
    for n in (".cargo", "sub/.cargo", ".yarn", "gradle", ".config"):
        p = os.path.join(S.proj, n)
        assert not os.path.islink(p), n
    assert not os.path.exists(os.path.join(S.proj, ".cargo", "config.toml"))
    assert not os.path.exists(os.path.join(S.proj, "sub", ".cargo",
                                           "config.toml"))
    cargo = shutil.which("cargo")
    if cargo is not None and os.access(cargo, os.X_OK):
        # the real tool: a crate in the project, built on the host
        with open(os.path.join(S.proj, "Cargo.toml"), "w") as f:
            f.write('[package]\nname = "p"\nversion = "0.1.0"\n'
                    'edition = "2021"\n')
        os.makedirs(os.path.join(S.proj, "src"), exist_ok=True)
        with open(os.path.join(S.proj, "src", "main.rs"), "w") as f:
            f.write("fn main() {}\n")
        env = dict(os.environ)
        env["CARGO_TARGET_DIR"] = os.path.join(S.home, "target")
        subprocess.run([cargo, "build", "--offline", "-q"], cwd=S.proj,
                       env=env, capture_output=True, timeout=300)
    assert not os.path.exists(S.marker), "host cargo ran the sandbox's wrapper"


# -- git folders: the allow list ---------------------------------------------

def test_escape_git_state(ctx):
    """A planted rebase-merge/ (an exec line), sequencer/, rebase-apply/,
    info/, a new name, in the top repository and in a nested bare one:
    refused (the top repository's sequencer state is writable, issue 41:
    moved out of git's sight when the command ends); host git status,
    rebase --continue, cherry-pick --continue run nothing."""
    S = Setup(ctx)
    bare = os.path.join(S.proj, "vendor", "lib.git")
    assert subprocess.run(["git", "clone", "-q", "--bare", S.proj, bare],
                          capture_output=True).returncode == 0
    os.makedirs(os.path.join(S.proj, "prep", "x"))
    sid = S.session()
    r = run(S.c, sid, """
todo='exec touch %s'
mkdir -p .git/rebase-merge && echo G1
printf '%%s\\n' "$todo" > .git/rebase-merge/git-rebase-todo && echo G2
mkdir -p .git/sequencer && echo G3
printf '%%s\\n' "$todo" > .git/sequencer/todo && echo G4
mkdir -p .git/rebase-apply && echo G5
echo '* filter=x' > .git/info/attributes && echo G6
echo x > .git/NEW_STATE && echo G7
ln -s ../prep .git/rebase-merge && echo G8
mv prep .git/sequencer && echo G9
echo x > .git/description && echo G10
printf '#!/bin/sh\\n%%s\\n' "$todo" > vendor/lib.git/hooks/pre-commit && echo G11
printf '[core]\\n\\tfsmonitor = touch %s\\n' >> vendor/lib.git/config && echo G12
mkdir vendor/lib.git/rebase-merge && echo G13
echo x > .git/config.lock && echo G14
true
""" % (S.marker, S.marker))
    seq = ("G1", "G2", "G3", "G4", "G5", "G8", "G9")
    assert _said(r.out, *("G%d" % i for i in range(1, 15)
                          if "G%d" % i not in seq)) == [], r
    for n in ("rebase-merge", "rebase-apply", "sequencer"):
        assert any(b["path"].endswith("/.git/" + n) and "sequencer state"
                   in b["message"] for b in r.blocked), (n, r.blocked)
    for n in ("rebase-merge", "rebase-apply", "sequencer", "NEW_STATE",
              "config.lock"):
        assert not os.path.lexists(os.path.join(S.proj, ".git", n)), n
    assert not os.path.exists(os.path.join(bare, "hooks", "pre-commit"))
    S.host_git(".")
    S.close(sid)
    S.host_git(".")
    r = _git("--git-dir", bare, "status", cwd=S.proj, home=S.home)
    assert not os.path.exists(S.marker)


def test_git_work_still_works(ctx):
    """commit, branch, tag, stash, fetch from a local remote and merge
    inside a session: git's own work is on the allow list."""
    S = Setup(ctx)
    other = os.path.join(S.proj, "other")
    assert subprocess.run(["git", "clone", "-q", S.proj, other],
                          capture_output=True).returncode == 0
    _git("config", "user.email", "t@example.test", cwd=other, home=S.home)
    _git("config", "user.name", "t", cwd=other, home=S.home)
    with open(os.path.join(other, "OTHER"), "w") as f:
        f.write("from the remote\n")
    _git("add", "OTHER", cwd=other, home=S.home)
    assert _git("commit", "-qm", "remote", cwd=other,
                home=S.home).returncode == 0
    with open(os.path.join(S.proj, ".git", "info", "exclude"), "a") as f:
        f.write("other/\n")
    sid = S.session()
    r = run(S.c, sid, """
set -e
export GIT_EDITOR=true
echo a >> README; git add README; git commit -qm inside
git branch topic
git tag v1
echo b >> README; git stash -q; git stash pop -q
git commit -qam two
git fetch -q ./other HEAD
git merge -q --no-edit FETCH_HEAD
git checkout -q topic; git checkout -q -
git gc -q --auto
echo DONE
""")
    assert r.code == 0 and "DONE" in r.out, r
    S.close(sid)
    log = _git("log", "--oneline", cwd=S.proj, home=S.home).stdout
    for msg in ("inside", "two", "remote"):
        assert msg in log, log
    assert _git("rev-parse", "topic", "v1", cwd=S.proj,
                home=S.home).returncode == 0
    fsck = _git("fsck", "--no-dangling", cwd=S.proj, home=S.home)
    assert fsck.returncode == 0, fsck
    assert os.path.exists(os.path.join(S.proj, "OTHER"))


# -- Unix sockets --------------------------------------------------------------

SOCK_PY = r"""
import os, socket
def t(tag, f):
    try:
        f()
        print(tag, flush=True)
    except OSError as e:
        print("no", tag, e.errno, flush=True)
def conn(path, nonblock=False):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(not nonblock)
    s.connect(path)
    s.close()
t("S1", lambda: conn("host.sock"))
t("S2", lambda: conn(os.path.abspath("host.sock")))
t("S3", lambda: conn("link.sock"))
t("S4", lambda: conn("/proc/self/cwd/host.sock"))
t("S5", lambda: conn("./sub/../host.sock", True))
def dgram():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.connect("host.sock")
t("S6", dgram)
# bind: a socket named refs next to HEAD and objects
def bind(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
t("B1", lambda: bind("src/refs"))
t("B2", lambda: bind(".git/hooks/pre-commit"))
t("B3", lambda: bind(".cargo"))
# the sandbox's own sockets work, blocking and not
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind("own.sock")
srv.listen(4)
t("OWN1", lambda: conn("own.sock"))
t("OWN2", lambda: conn(os.path.abspath("own.sock"), True))
os.symlink("own.sock", "own-link.sock")
t("OWN3", lambda: conn("own-link.sock"))
srv3 = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
t("OWN4", lambda: (srv3.bind("/tmp/private.sock"), srv3.listen(1)))
t("OWN5", lambda: conn("/tmp/private.sock"))
srv2 = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv2.bind("\0abstract-%d" % os.getpid())
srv2.listen(1)
t("OWN6", lambda: conn("\0abstract-%d" % os.getpid()))
# the address bind was given is the one the socket keeps (getsockname)
if srv.getsockname() == "own.sock" and \
        srv3.getsockname() == "/tmp/private.sock":
    print("OWN7", flush=True)
# Python's multiprocessing hands getsockname's address on
import multiprocessing
if __name__ == "__main__":
    with multiprocessing.Manager() as m:
        d = m.dict()
        d["a"] = 1
        if d["a"] == 1:
            print("OWN8", flush=True)
print("END", flush=True)
"""


def test_escape_unix_sockets(ctx):
    """connect() to a host program's socket in the project (directly,
    through a symlink, /proc/self/cwd, a dot-dot path) is refused and
    reported; bind() names go through the guard (a socket named refs makes
    no repository); the sandbox's own sockets still work."""
    S = Setup(ctx)
    os.makedirs(os.path.join(S.proj, "src", "objects"))
    os.makedirs(os.path.join(S.proj, "sub"))
    with open(os.path.join(S.proj, "src", "HEAD"), "w") as f:
        f.write("ref: refs/heads/main\n")
    with open(os.path.join(S.proj, "src", "config"), "w") as f:
        f.write("[core]\n\tfsmonitor = touch %s; false\n" % S.marker)
    hostsock = os.path.join(S.proj, "host.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(hostsock)
    os.chmod(hostsock, 0o777)
    srv.listen(8)
    os.symlink("host.sock", os.path.join(S.proj, "link.sock"))
    try:
        sid = S.session()
        r = run(S.c, sid, None, argv=["python3", "-c", SOCK_PY])
        lines = r.out.split("\n")
        assert "END" in lines, r
        assert _said(r.out, "S1", "S2", "S3", "S4", "S5", "S6", "B1", "B2",
                     "B3") == [], r
        own = ["OWN%d" % i for i in range(1, 9)]
        assert _said(r.out, *own) == own, r
        assert has_rule(r.blocked, "/host.sock", "host Unix sockets, hidden",
                        "connect"), r.blocked
        # the host server never saw a connection
        srv.setblocking(False)
        try:
            srv.accept()
            raise AssertionError("the sandbox reached the host's socket")
        except BlockingIOError:
            pass
        assert not os.path.exists(os.path.join(S.proj, "src", "refs"))
        S.host_git("src")
        S.close(sid)
        S.host_git("src")
    finally:
        srv.close()


DGRAM_PY = r"""
import ctypes, os, signal, socket, struct, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
def t(tag, f):
    try:
        f()
        print(tag, flush=True)
    except OSError as e:
        print("no", tag, e.errno, flush=True)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
class msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32),
                ("iov", ctypes.POINTER(iovec)), ("iovlen", ctypes.c_size_t),
                ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]
class mmsghdr(ctypes.Structure):
    _fields_ = [("hdr", msghdr), ("len", ctypes.c_uint)]
def sun(path):
    return struct.pack("H", socket.AF_UNIX) + path.encode() + b"\0"
def sendmmsg(s, paths, data):
    arr, keep = (mmsghdr * len(paths))(), []
    for i, p in enumerate(paths):
        a, d = ctypes.create_string_buffer(sun(p)), \
            ctypes.create_string_buffer(data)
        v = iovec(ctypes.cast(d, ctypes.c_void_p), len(data))
        keep += [a, d, v]
        arr[i].hdr.name = ctypes.cast(a, ctypes.c_void_p)
        arr[i].hdr.namelen = len(sun(p))
        arr[i].hdr.iov = ctypes.pointer(v)
        arr[i].hdr.iovlen = 1
    r = libc.sendmmsg(s.fileno(), arr, len(paths), 0)
    if r < 0:
        raise OSError(ctypes.get_errno(), "sendmmsg")
    return r, [arr[i].len for i in range(len(paths))]
hosts = sys.argv[1:]
own = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
own.bind("ownsd.sock")
own.settimeout(5)
c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
c.setblocking(False)  # (a full host queue fails, never waits)
# the host's datagram sockets: sendto, sendmsg, sendmmsg; a connected
# socket's name is used too
for k, h in enumerate(hosts):
    t("H%d-SENDTO" % k, lambda: c.sendto(b"x1", h))
    t("H%d-SENDMSG" % k, lambda: c.sendmsg([b"x2"], [], 0, h))
    t("H%d-MMSG" % k, lambda: sendmmsg(c, [h, h], b"x3"))
    t("H%d-LINK" % k, lambda: (os.symlink(h, "l%d" % k),
                               c.sendto(b"x4", "l%d" % k)))
    t("H%d-PROC" % k, lambda: c.sendto(b"x5", "/proc/self/cwd/" + h
                                       if h[0] != "/" else "/proc/1/root" + h))
    cc = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    cc.connect("ownsd.sock")
    cc.setblocking(False)
    t("H%d-CONNECTED" % k, lambda: cc.sendto(b"x6", h))
# a batch stops at the refused message: the first went
r, lens = sendmmsg(c, ["ownsd.sock", hosts[0], "ownsd.sock"], b"mm")
if r == 1 and lens[0] == 2 and own.recv(10) == b"mm":
    print("OWN-MMSG-STOPS", flush=True)
# a thread rewrites the address while sendto runs: the host's path is
# refused every time it is read, whatever the timing
buf = ctypes.create_string_buffer(sun("ownsd.sock"))
good, bad = sun("ownsd.sock"), sun(hosts[0])[:len(sun("ownsd.sock"))]
stop = []
def flip():
    while not stop:
        ctypes.memmove(buf, bad, len(bad))
        ctypes.memmove(buf, good, len(good))
th = threading.Thread(target=flip, daemon=True)
th.start()
own.setblocking(False)
rc = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
rc.setblocking(False)
sent = got = 0
for i in range(300):
    if libc.sendto(rc.fileno(), b"race", 4, 0, buf, len(good)) == 4:
        sent += 1
        # a local datagram is queued when sendto returns
        if own.recv(10) == b"race":
            got += 1
stop.append(1)
th.join()
own.settimeout(5)
if got == sent:
    print("OWN-RACE-COUNTED", flush=True)
# a thread swaps a UDP socket's number for a Unix datagram socket's
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
ufd, udp2 = u.fileno(), os.dup(u.fileno())
unx = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
unx.setblocking(False)
stop = []
def swap():
    while not stop:
        os.dup2(unx.fileno(), ufd)
        os.dup2(udp2, ufd)
th = threading.Thread(target=swap, daemon=True)
th.start()
hb = sun(hosts[0])
for i in range(300):
    libc.sendto(ufd, b"swap", 4, 0, hb, len(hb))
stop.append(1)
th.join()
# the sandbox's own datagrams: a socketpair, a socket it bound, abstract
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
t("OWN-PAIR", lambda: (a.sendmsg([b"p"]), b.recv(5) == b"p" or 1 / 0))
t("OWN-SENDTO", lambda: (c.sendto(b"o", "ownsd.sock"),
                         own.recv(5) == b"o" or 1 / 0))
t("OWN-SENDMSG", lambda: (c.sendmsg([b"o", b"k"], [], 0,
                                    os.path.abspath("ownsd.sock")),
                          own.recv(5) == b"ok" or 1 / 0))
r, lens = sendmmsg(c, ["ownsd.sock", "ownsd.sock"], b"two")
if r == 2 and lens == [3, 3] and own.recv(5) == b"two" and \
        own.recv(5) == b"two":
    print("OWN-MMSG", flush=True)
ab = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
ab.bind("\0dg-%d" % os.getpid())
t("OWN-ABSTRACT", lambda: (c.sendto(b"a", "\0dg-%d" % os.getpid()),
                           ab.recv(5) == b"a" or 1 / 0))
# descriptors passed along (SCM_RIGHTS, in two headers: the last one
# unpadded, as the kernel walks them): the receiver's copies work
rp, wp = os.pipe()
rp2, wp2 = os.pipe()
def rights():
    a.sendmsg([b"f"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                        struct.pack("i", wp)),
                       (socket.SOL_SOCKET, socket.SCM_RIGHTS,
                        struct.pack("i", wp2))])
    msg, anc, fl, ad = b.recvmsg(5, socket.CMSG_SPACE(8) * 2)
    fds = [struct.unpack("i", x[2][i:i + 4])[0] for x in anc
           for i in range(0, len(x[2]) - 3, 4)]
    if len(fds) != 2:
        raise OSError(5, "%d descriptors" % len(fds))
    os.write(fds[0], b"via-rights")
    os.write(fds[1], b"second")
    if os.read(rp, 20) != b"via-rights" or os.read(rp2, 20) != b"second":
        raise OSError(5, "wrong pipe")
t("OWN-RIGHTS", rights)
# the flags of sbox-init's own handoff of the listener: sealed
t("SEAL", lambda: c.sendmsg([b"h"], [], socket.MSG_NOSIGNAL |
                               socket.MSG_DONTWAIT | 0x10, hosts[0]))
# SCM_CREDENTIALS would be vouched for sbox-init: refused
t("CREDS", lambda: a.sendmsg([b"c"], [(socket.SOL_SOCKET,
    socket.SCM_CREDENTIALS, struct.pack("iII", os.getpid(), os.getuid(),
                                        os.getgid()))]))
# UDP and streams still work: UDP sendto, a TCP echo through sendmsg,
# a stream socketpair's large blocking sendmsg (it waits for the reader)
us = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
us.bind(("127.0.0.1", 0))
us.settimeout(5)
uc = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
t("OWN-UDP", lambda: (uc.sendto(b"u", us.getsockname()),
                      us.recv(5) == b"u" or 1 / 0))
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
def echo():
    k, _ = srv.accept()
    k.sendall(k.recv(100))
    k.close()
threading.Thread(target=echo, daemon=True).start()
def tcp():
    k = socket.create_connection(srv.getsockname(), timeout=5)
    if k.sendmsg([b"echo", b"!"]) != 5 or k.recv(10) != b"echo!":
        raise OSError(5, "no echo")
t("OWN-TCP", tcp)
sa, sb = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
big = b"z" * (3 << 20)
got = []
def drain():
    n = 0
    while n < len(big):
        n += len(sb.recv(1 << 16))
    got.append(n)
th = threading.Thread(target=drain, daemon=True)
th.start()
t("OWN-STREAM-BIG", lambda: sa.sendmsg([big]) == len(big) or 1 / 0)
th.join()
sa.close()
t("PIPE", lambda: sb.sendmsg([b"gone"]))
# a caller killed while its send blocks (in a helper of sbox-init): the
# helper is ended at the next one, so the peer sees the stream close
ka, kb = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
pid = os.fork()
if pid == 0:
    kb.close()
    ka.sendmsg([b"k" * (8 << 20)])  # nobody reads: it blocks
    os._exit(0)
ka.close()
kb.recv(1)  # the send has begun
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
sa, sb = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
th = threading.Thread(target=drain, daemon=True)
got = []
th.start()
sa.sendmsg([big])  # another helper
th.join()
import time
def killed():
    # no copy of ka is left once the helper ended: a send on kb is EPIPE
    # (an ended helper is awaited, at most 20 s)
    end = time.time() + 20
    while time.time() < end:
        try:
            kb.send(b"?")
        except BrokenPipeError:
            return
        time.sleep(0.01)
    raise OSError(5, "the helper still holds the socket")
t("KILLED-HELPER-ENDS", killed)
# an address longer than sockaddr_un: EINVAL, as the kernel says
lng = struct.pack("H", socket.AF_UNIX) + b"A" * 126
for tag, f in (("LONG-CONNECT", libc.connect), ("LONG-BIND", libc.bind),
               ("LONG-SENDTO", None)):
    s2 = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    r = f(s2.fileno(), lng, 128) if f else \
        libc.sendto(s2.fileno(), b"l", 1, 0, lng, 128)
    print(tag, r, ctypes.get_errno(), flush=True)
print("END", flush=True)
"""


def test_escape_unix_datagrams(ctx):
    """sendto, sendmsg and sendmmsg to a host program's SOCK_DGRAM socket
    (in the project and in a read-only folder; directly, through a
    symlink or /proc, on a connected socket, with a thread rewriting the
    address, with a thread swapping a UDP socket's number for a Unix
    one) are refused and reported, and nothing reaches the host; the
    sandbox's own datagrams, descriptors passed along, UDP and streams
    still work."""
    S = Setup(ctx)
    rodir = os.path.join(ctx.tmp, "rodir")
    os.makedirs(rodir)
    S.d.write_config({"sandbox": {"profiles": {"ro": {
        "extends": "workspace", "folders": {"read_only": [rodir]}}}}})
    S.d.stop()
    S.d.start()
    S.c = S.d.client()
    # 600 notified sendto calls with a thread racing each: under ASan,
    # with the other pass beside it, that can pass the client's 30 s
    S.c.sock.settimeout(150)
    hosts = []
    for path in (os.path.join(S.proj, "hostd.sock"),
                 os.path.join(rodir, "ro.sock")):
        h = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        h.bind(path)
        os.chmod(path, 0o777)
        h.setblocking(False)
        hosts.append(h)
    try:
        sid = create(S.c, S.proj, "ro")
        r = run(S.c, sid, None, argv=[
            "python3", "-c", DGRAM_PY, "hostd.sock",
            os.path.join(rodir, "ro.sock")])
        lines = r.out.split("\n")
        assert "END" in lines, r
        reached = [x for x in lines if x.startswith("H")]
        assert reached == [], r
        refused = [x for x in lines if x.startswith("no H")]
        assert len(refused) == 12, r
        own = ["OWN-MMSG-STOPS", "OWN-RACE-COUNTED", "OWN-PAIR", "OWN-SENDTO",
               "OWN-SENDMSG", "OWN-MMSG", "OWN-ABSTRACT", "OWN-RIGHTS",
               "OWN-UDP", "OWN-TCP", "OWN-STREAM-BIG",
               "KILLED-HELPER-ENDS"]
        assert _said(r.out, *own) == own, r
        assert "no CREDS %d" % 1 in lines, r          # EPERM
        assert "no SEAL %d" % 1 in lines, r            # EPERM
        for tag in ("LONG-CONNECT", "LONG-BIND", "LONG-SENDTO"):
            assert "%s -1 22" % tag in lines, r          # EINVAL
        assert "no PIPE %d" % 32 in lines, r          # EPIPE
        for end in ("/hostd.sock", "/ro.sock"):
            assert has_rule(r.blocked, end, "host Unix sockets, hidden",
                            "connect"), r.blocked
        # the host programs never got a datagram
        for h in hosts:
            try:
                data = h.recv(100)
                raise AssertionError("the sandbox reached a host socket: "
                                     "%r" % data)
            except BlockingIOError:
                pass
        S.close(sid)
    finally:
        for h in hosts:
            h.close()


def test_shared_folders_refused(ctx):
    """/tmp, /var/tmp, /run, /dev/shm and / are no projects: a clear error,
    like the home folder's."""
    d = ctx.daemon()
    c = d.client()
    for p in ("/tmp", "/var/tmp", "/run", "/dev/shm", "/"):
        if not os.path.isdir(p):
            continue
        e = c.error("session.create", {"project": p, "sandbox": "workspace",
                                        "env": ENV})
        assert e.name == "sbox.InvalidParams", (p, e.name, e.message)
        # (the tests' home folder is below /tmp: that error may come first)
        assert "every program shares" in e.message or \
            "holds your home folder" in e.message, (p, e.message)
        assert e.message.startswith(p + " "), (p, e.message)
    for p in ("/run/user", "/dev/shm/x"):
        if os.path.isdir(p):
            e = c.error("session.create", {"project": p,
                                            "sandbox": "workspace",
                                            "env": ENV})
            assert e.name == "sbox.InvalidParams", (p, e.message)
    # a project below /tmp is still fine (a folder of its own)
    proj = os.path.join(ctx.tmp, "ok")
    os.makedirs(proj)
    sid = create(c, proj)
    c.call("session.close", {"session": sid})


# -- forms the guard does not read ---------------------------------------------

FORMS_PY = r"""
import ctypes, errno, os, platform
libc = ctypes.CDLL(None, use_errno=True)
if platform.machine() == "x86_64":
    how = (ctypes.c_uint64 * 3)(os.O_CREAT | os.O_WRONLY, 0o755, 0)
    r = libc.syscall(437, -100, b".git/hooks/pre-push", how, 24)
    print("OPENAT2", r, ctypes.get_errno(), flush=True)
    # renameat2 RENAME_WHITEOUT (4) onto a hook, RENAME_EXCHANGE (2)
    open("w1", "w").write("#!/bin/sh\n")
    r = libc.syscall(316, -100, b"w1", -100, b".git/hooks/pre-commit", 4)
    print("WHITEOUT", r, flush=True)
    os.makedirs("xh", exist_ok=True)
    r = libc.syscall(316, -100, b"xh", -100, b".git/hooks", 2)
    print("EXCHANGE", r, flush=True)
print("END", flush=True)
"""


def test_escape_unknown_forms(ctx):
    """openat2 (a struct the guard does not read) is refused with ENOSYS;
    renameat2 with RENAME_WHITEOUT or RENAME_EXCHANGE onto hooks is
    decided like any rename."""
    if platform.machine() != "x86_64":
        return
    S = Setup(ctx)
    sid = S.session()
    r = run(S.c, sid, None, argv=["python3", "-c", FORMS_PY])
    lines = r.out.split("\n")
    assert "END" in lines, r
    assert "OPENAT2 -1 %d" % 38 in lines, r  # ENOSYS
    assert "WHITEOUT -1" in lines and "EXCHANGE -1" in lines, r
    S.close(sid)
    assert not os.path.exists(os.path.join(S.proj, ".git/hooks/pre-push"))
    assert not os.path.exists(os.path.join(S.proj, ".git/hooks/pre-commit"))
    assert os.path.isdir(os.path.join(S.proj, ".git/hooks"))
    S.host_git(".")


# -- removals and metadata changes --------------------------------------------

REMOVE_PY = TRY_PY + r"""
t("R1", lambda: os.unlink(".git/hooks/pre-commit"))
t("R2", lambda: os.unlink(".git/HEAD"))
t("R3", lambda: os.unlink(".git/config"))
t("R4", lambda: os.rmdir(".husky"))
t("R5", lambda: os.unlink(".vscode/tasks.json"))
t("R6", lambda: os.rmdir(".git/objects"))
t("R7", lambda: os.unlink("nested/.git"))
d = os.open(".git", os.O_RDONLY | os.O_DIRECTORY)
t("R8", lambda: os.unlink("HEAD", dir_fd=d))
t("R9", lambda: os.rmdir("refs", dir_fd=d))
t("R10", lambda: os.unlink("../.git/hooks/pre-commit", dir_fd=d))
t("R11", lambda: os.rename(".git/HEAD", ".git/HEAD.old"))
os.symlink(".git/hooks", "hk")
t("R12", lambda: os.unlink("hk/pre-commit"))
t("R13", lambda: os.unlink("/proc/self/cwd/.git/HEAD"))
t("R14", lambda: os.unlink(".git/hooks/../hooks/pre-commit"))
print("END", flush=True)
"""

HOOK = "#!/bin/sh\necho ran >> %s\n"


def _remove_setup(S):
    """The person's hooks (one in .git/hooks, one where core.hooksPath
    points), an empty protected folder, a protected file, a gitfile."""
    S.hook_marker = os.path.join(S.proj, "..", "HOOK_RAN")
    S.named_marker = os.path.join(S.proj, "..", "NAMED_RAN")
    hook = os.path.join(S.proj, ".git", "hooks", "pre-commit")
    with open(hook, "w") as f:
        f.write(HOOK % S.hook_marker)
    os.chmod(hook, 0o755)
    os.makedirs(os.path.join(S.proj, ".husky"))
    os.makedirs(os.path.join(S.proj, ".vscode"))
    with open(os.path.join(S.proj, ".vscode", "tasks.json"), "w") as f:
        f.write("{}\n")
    os.makedirs(os.path.join(S.proj, "nested"))
    with open(os.path.join(S.proj, "nested", ".git"), "w") as f:
        f.write("gitdir: ../.git\n")
    named = os.path.join(S.proj, "tools", "hooks")
    os.makedirs(named)
    with open(os.path.join(named, "pre-commit"), "w") as f:
        f.write(HOOK % S.named_marker)
    os.chmod(os.path.join(named, "pre-commit"), 0o755)


def test_escape_remove(ctx):
    """Removing what host tools read: a hook the person installed, .git/HEAD
    (host git would walk up to another repository), .git/config, the .git
    entry (rm -rf .git), an empty protected folder, a protected file, a
    hook where core.hooksPath points, through a dir fd, a symlink,
    /proc/self/cwd and '..': refused (EROFS) and reported; host git still
    finds the repository and runs the person's hooks."""
    S = Setup(ctx)
    _remove_setup(S)
    sid = S.session()
    r = run(S.c, sid, None, argv=["python3", "-c", REMOVE_PY])
    lines = r.out.split("\n")
    assert "END" in lines, r
    tags = ["R%d" % i for i in range(1, 15)]
    assert _said(r.out, *tags) == [], r
    for tag in ("R1", "R2", "R3", "R5", "R8", "R10", "R13"):
        assert "E%s EROFS" % tag in lines, (tag, r)
    assert has_rule(r.blocked, ".git/HEAD", RUNS_LATER, "remove"), r.blocked
    assert has_rule(r.blocked, "hooks/pre-commit", RUNS_LATER, "remove"), \
        r.blocked
    r = run(S.c, sid, "rm -rf .git; rm -rf .husky .vscode tools nested; "
            "rm -f .git/HEAD; ls -a .git; true")
    S.close(sid)
    for rel in (".git/HEAD", ".git/config", ".git/hooks/pre-commit",
                ".git/refs", ".git/objects", ".husky", ".vscode/tasks.json",
                "nested/.git"):
        assert os.path.lexists(os.path.join(S.proj, rel)), rel
    top = _git("rev-parse", "--show-toplevel", cwd=S.proj, home=S.home)
    assert top.returncode == 0 and top.stdout.strip() == os.path.realpath(
        S.proj), top
    assert _git("status", cwd=S.proj, home=S.home).returncode == 0
    # the person's hook still runs on the host's commit
    c = _git("commit", "-q", "--allow-empty", "-m", "host", cwd=S.proj,
             home=S.home)
    assert c.returncode == 0, c
    assert os.path.exists(S.hook_marker), "the person's hook did not run"


def test_escape_remove_named(ctx):
    """core.hooksPath = tools/hooks (set by the person before the session):
    tools/hooks/pre-commit cannot be removed, nor the folder emptied and
    removed; host git commit runs the person's hook."""
    S = Setup(ctx)
    _remove_setup(S)
    _git("config", "core.hooksPath", "tools/hooks", cwd=S.proj, home=S.home)
    sid = S.session()
    r = run(S.c, sid, "rm tools/hooks/pre-commit && echo N1; "
            "rm -rf tools && echo N2; rmdir tools/hooks && echo N3; "
            "mv tools/hooks/pre-commit x && echo N4; "
            "touch -d 2001-01-01 tools/hooks/pre-commit && echo N5; true")
    assert _said(r.out, "N1", "N2", "N3", "N4", "N5") == [], r
    S.close(sid)
    assert os.path.exists(os.path.join(S.proj, "tools/hooks/pre-commit"))
    c = _git("commit", "-q", "--allow-empty", "-m", "host", cwd=S.proj,
             home=S.home)
    assert c.returncode == 0, c
    assert os.path.exists(S.named_marker), "the named hook did not run"


META_PY = TRY_PY + r"""
me, grp = os.getuid(), os.getgid()
other = 1 if me == 0 else me
t("M1", lambda: os.utime(".git/config", (1, 1)))
t("M2", lambda: os.utime(".git/hooks/pre-commit"))
t("M3", lambda: os.chown(".git/config", other, other))
t("M4", lambda: os.chown(".vscode/tasks.json", me, grp))
fd = os.open(".git/config", os.O_RDONLY)
t("M5", lambda: os.utime(fd, (2, 2)))
t("M6", lambda: os.fchown(fd, me, grp))
t("M7", lambda: os.removexattr(".git/config", "user.sbox"))
t("M8", lambda: os.removexattr(fd, "user.sbox"))
t("M9", lambda: os.utime("/proc/self/fd/%d" % fd, (3, 3)))
t("M10", lambda: os.lchown(".git/config", me, grp))
t("M11", lambda: os.utime("config", (4, 4), dir_fd=os.open(".git",
  os.O_RDONLY | os.O_DIRECTORY)))
t("M12", lambda: os.utime(".husky", (5, 5)))
# in the project itself: all allowed
open("mine", "w").close()
t("OK5", lambda: os.utime("mine"))
t("OK1", lambda: os.utime("mine", (6, 6)))
t("OK2", lambda: os.chown("mine", me, grp))
f2 = os.open("mine", os.O_RDONLY)
t("OK3", lambda: os.utime(f2, (7, 7)))
t("OK4", lambda: os.fchown(f2, me, grp))
os.symlink("mine", "mlink")
t("OK6", lambda: os.utime("mlink", (8, 8), follow_symlinks=False))
t("OK7", lambda: os.lchown("mlink", me, grp))
print("END", os.stat("mine").st_mtime, flush=True)
"""


def test_escape_metadata(ctx):
    """chown, utime/utimensat/futimens, removexattr (by path, by fd, through
    /proc/self/fd, through a dir fd) of a protected name: refused (EROFS),
    the host's stat unchanged (owner, times, ctime); in the project they
    still work."""
    S = Setup(ctx)
    _remove_setup(S)
    names = (".git/config", ".git/hooks/pre-commit", ".vscode/tasks.json",
             ".husky")
    before = {n: os.lstat(os.path.join(S.proj, n)) for n in names}
    sid = S.session()
    r = run(S.c, sid, None, argv=["python3", "-c", META_PY])
    S.close(sid)
    lines = r.out.split("\n")
    assert any(x.startswith("END ") for x in lines), r
    assert _said(r.out, *("M%d" % i for i in range(1, 13))) == [], r
    for tag in ("M1", "M3", "M5", "M6", "M7", "M8", "M9", "M11"):
        assert "E%s EROFS" % tag in lines, (tag, r)
    ok = ["OK%d" % i for i in range(1, 8)]
    assert sorted(_said(r.out, *ok)) == ok, r
    assert "END 7.0" in lines, r
    for n in names:
        a, b = before[n], os.lstat(os.path.join(S.proj, n))
        assert (a.st_uid, a.st_gid, a.st_mtime_ns, a.st_ctime_ns) == (
            b.st_uid, b.st_gid, b.st_mtime_ns, b.st_ctime_ns), n
    assert has_rule(r.blocked, ".git/config", RUNS_LATER, "utime"), r.blocked
    assert has_rule(r.blocked, ".git/config", RUNS_LATER, "chown"), r.blocked


def test_remove_work_still_works(ctx):
    """rm, rmdir, touch, chown to oneself, a make with temporary files, and
    git's own removals (commit, gc --prune=now, stash, checkout -b, merge,
    branch -D) in a session; the kernel's errors stay the kernel's."""
    S = Setup(ctx)
    with open(os.path.join(S.proj, "Makefile"), "w") as f:
        f.write("all: out.txt\n"
                "out.txt: README\n"
                "\tcp README $@.tmp && tr a-z A-Z < $@.tmp > $@.t2 && "
                "mv $@.t2 $@ && rm -f $@.tmp\n"
                "clean:\n\trm -rf out.txt build\n")
    sid = S.session()
    r = run(S.c, sid, """
set -e
export GIT_EDITOR=true
mkdir -p build/a/b && touch build/a/b/f build/a/g
touch -d 2001-01-01 build/a/g
chown "$(id -u):$(id -g)" build/a/g
rm build/a/b/f && rmdir build/a/b && rm -rf build
make -s && test -f out.txt && make -s clean && test ! -e out.txt
for i in 1 2 3 4 5; do echo $i > t$i; done; rm t1 t2 t3 t4 t5
ln -s README lnk && rm lnk
git checkout -q -b feature
echo f >> README && git commit -qam feat
git checkout -q -
echo m > M && git add M && git commit -qm main
git merge -q --no-edit feature
echo s >> M && git stash -q && git stash drop -q
git branch -D -q feature
git gc -q --prune=now
git status --porcelain > /dev/null
echo DONE
""")
    assert r.code == 0 and "DONE" in r.out, r
    r2 = run(S.c, sid, None, argv=["python3", "-c", r"""
import errno, os
def e(f):
    try:
        f()
        return "ok"
    except OSError as x:
        return errno.errorcode[x.errno]
os.mkdir("d"); open("d/f", "w").close(); open("f", "w").close()
print(e(lambda: os.unlink("nope")), e(lambda: os.rmdir("d")),
      e(lambda: os.unlink("d")), e(lambda: os.rmdir("f")),
      e(lambda: os.unlink("f/")), e(lambda: os.rmdir(".")),
      e(lambda: os.unlink("d/f")), e(lambda: os.rmdir("d/")),
      e(lambda: os.unlink("f")))
"""])
    assert r2.out.split() == ["ENOENT", "ENOTEMPTY", "EISDIR", "ENOTDIR",
                              "ENOTDIR", "EINVAL", "ok", "ok", "ok"], r2
    S.close(sid)
    # (git's own config and info/ writes are refused as before; no
    # removal or metadata change of its work is)
    mine = [b for b in r.blocked + r2.blocked if b["op"] in (
        "remove", "chown", "utime", "xattr")]
    assert not mine and not r2.blocked, (r.blocked, r2.blocked)
    log = _git("log", "--oneline", cwd=S.proj, home=S.home).stdout
    assert "feat" in log and "main" in log, log
    fsck = _git("fsck", "--no-dangling", cwd=S.proj, home=S.home)
    assert fsck.returncode == 0, fsck
    assert not os.path.exists(os.path.join(S.proj, "build"))
