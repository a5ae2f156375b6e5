"""End-to-end tests of the Linux session containers (issue 4), part 1: what
a sandbox can see and touch: the read and write rules of each built-in
profile, protected paths and renames of their parents, credentials, sbox's
own files, host Unix sockets, the secrets-named environment, /proc/1, the
seccomp list, processes outside, files only root can read, the file tools
and `blocked` naming the rule.

The tests share one daemon (SH) and its sessions where they do not
interfere; it stops in teardown_module(). They pass as root and as an
unprivileged user."""
import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import time

import sboxtest
from sboxtest import RpcError, Skip, is_root
from sandboxlib import (CACHES, CREDENTIALS, CRED_RULE, PRIVATE, PROTECTED,
                        RUNS_LATER, SECRET, TOOLS, Shared, b64, create,
                        make_project, ok, py, run, snapshot, unix_listener,
                        write)


def config(d):
    return {"sandbox": {"profiles": {
        # grants the folder holding the daemon's home, config, state and
        # socket: what must stay hidden there still is
        "wide": {"extends": "workspace",
                 "folders": {"read_only": [d.root]}},
        "withenv": {"extends": "workspace", "env": ["FOO_API_KEY"]},
    }}}


SH = Shared("sandbox", config)


def teardown_module():
    SH.stop()


def failure_log():
    return SH.log()


def project(name="proj", git=True):
    """A project under the shared daemon's folder (made once)."""
    d = SH.get()
    p = os.path.join(d.root, name)
    if not os.path.exists(p):
        make_project(p, git)
    return p


def workspace():
    return SH.session("workspace", project())


# ---------------------------------------------------------------- profiles

def check_common_rules(c, s, d):
    """System folders read-only, a private writable /tmp, the home folder
    hidden except developer tools, the scratch folder writable."""
    info = c.call("session.info", {"session": s})
    r = run(c, s, "touch /usr/sbox-x; touch /etc/sbox-x; touch /bin/sbox-x;"
            " ls /usr/bin/env >/dev/null && echo SYS_READ")
    assert "SYS_READ" in r.out, r
    assert r.err.count("Read-only file system") == 3, r
    for p in ("/usr/sbox-x", "/etc/sbox-x", "/bin/sbox-x"):
        assert not os.path.exists(p), p
    # /tmp is private: the host's /tmp is not there, what is made stays in
    marker = "sbox-e2e-host-%d" % os.getpid()
    write("/tmp/" + marker, "host\n")
    try:
        r = run(c, s, "ls /tmp/%s; echo inside > /tmp/inside-%s && "
                "cat /tmp/inside-%s" % (marker, marker, marker))
        assert "No such file" in r.err and "inside" in r.out, r
        assert not os.path.exists("/tmp/inside-" + marker)
    finally:
        os.unlink("/tmp/" + marker)
    # the scratch folder is writable and is where the host sees it
    ok(c, s, "echo scratch > '%s/note'" % info["scratch"])
    assert open(os.path.join(info["scratch"], "note")).read() == "scratch\n"
    # HOME is the user's; only developer tools (and caches) are in it
    home = ok(c, s, 'echo "$HOME"; ls -A "$HOME"').split("\n")
    assert home[0] == d.home, home
    listed = set(home[1:]) - {""}
    for rel in CREDENTIALS + PRIVATE:
        assert rel.split("/")[0] not in listed or rel.split("/")[0] in (
            ".cache", ".cargo", ".local", ".config"), (rel, listed)
    assert ".ssh" not in listed and ".aws" not in listed, listed
    assert "Documents" not in listed and ".bash_history" not in listed, listed
    for rel in TOOLS:
        assert "tool " + rel in ok(c, s, "cat ~/" + rel), rel
    r = run(c, s, "echo x >> ~/.gitconfig; echo x > ~/.cargo/bin/new")
    # a root sboxd's sandbox is not the owner of the person's files: the
    # kernel answers "denied" before it gets to "read-only"
    assert r.err.count("Read-only file system") + (
        r.err.count("Permission denied") if is_root() else 0) == 2, r
    for rel in PRIVATE:
        r = run(c, s, "cat ~/" + rel)
        assert r.code != 0 and SECRET not in r.out, (rel, r)
    return info


def test_workspace_rules(ctx):
    c, d, s = SH.client(), SH.get(), workspace()
    proj = project()
    info = check_common_rules(c, s, d)
    assert info["profile"] == "workspace" and info["sandboxed"] is True, info
    assert info["network"] == "registries", info
    # the project is read-write, at the same path
    out = ok(c, s, "pwd; cat README; echo made > made.txt; mkdir -p sub/d;"
             " echo deep > sub/d/f; mv made.txt made2.txt; rm -f made2.txt;"
             " echo kept > kept.txt")
    assert out.split("\n")[:2] == [proj, "hello"], out
    assert open(os.path.join(proj, "sub/d/f")).read() == "deep\n"
    assert open(os.path.join(proj, "kept.txt")).read() == "kept\n"
    assert not os.path.exists(os.path.join(proj, "made2.txt"))
    # package caches are writable: sbox's own, never the host's (issue 11)
    for rel in CACHES:
        out = ok(c, s, "cat ~/%s 2>/dev/null; mkdir -p \"$(dirname ~/%s)\" &&"
                 " echo new >> ~/%s && cat ~/%s" % (rel, rel, rel, rel))
        assert out == "new\n", (rel, out)
        assert open(os.path.join(d.home, rel)).read() == "cache\n", rel
    os.unlink(os.path.join(proj, "kept.txt"))
    shutil.rmtree(os.path.join(proj, "sub"))


def test_strict_rules(ctx):
    c, d = SH.client(), SH.get()
    proj = project()
    s = SH.session("strict", proj, "strict")
    info = check_common_rules(c, s, d)
    assert info["profile"] == "strict" and info["network"] == "none", info
    ok(c, s, "echo strict > strict.txt")
    assert open(os.path.join(proj, "strict.txt")).read() == "strict\n"
    os.unlink(os.path.join(proj, "strict.txt"))
    r = run(c, s, "echo x > .git/config")
    assert "Read-only" in r.err, r


def test_lab_rules(ctx):
    c, d = SH.client(), SH.get()
    proj = project()
    s = SH.session("lab", proj, "lab")
    info = check_common_rules(c, s, d)
    assert info["profile"] == "lab", info
    # no project: neither readable nor writable; it starts in the scratch
    r = run(c, s, "pwd; ls '%s'; cat '%s/README'; echo x > '%s/lab.txt'"
            % (proj, proj, proj))
    assert r.out.strip() == info["scratch"], r
    assert "hello" not in r.out and r.err.count("No such file") >= 2, r
    assert "nonexistent" in r.err, r
    assert not os.path.exists(os.path.join(proj, "lab.txt"))
    # no package caches either
    r = run(c, s, "ls ~/.cache ~/.npm")
    assert r.code != 0, r


def test_none_profile(ctx):
    c, d = SH.client(), SH.get()
    proj = project()
    s = create(c, proj, "none")
    try:
        info = c.call("session.info", {"session": s})
        assert info["sandboxed"] is False and info["profile"] == "none", info
        # not sandboxed: the host as it is (the user asked for it)
        out = ok(c, s, "id -u; cat '%s/.ssh/id_rsa'; echo host > "
                 "'%s/none.txt'" % (d.home, proj))
        assert out.split("\n")[0] == str(os.getuid()), out
        assert SECRET in out, out
        assert os.path.exists(os.path.join(proj, "none.txt"))
        os.unlink(os.path.join(proj, "none.txt"))
    finally:
        c.call("session.close", {"session": s})


# ---------------------------------------------------------- protected paths

def test_protected_paths_existing(ctx):
    c, s = SH.client(), workspace()
    proj = project()
    before = snapshot(proj)
    for path, is_dir, inner in PROTECTED:
        target = path + "/" + inner if is_dir else path
        script = ("echo evil >> '%s' && echo WROTE; "
                  "mv '%s' '%s.moved' && echo MOVED; "
                  "rm -rf '%s' ; [ -e '%s' ] || echo REMOVED; "
                  "chmod 777 '%s' && echo CHMOD; ") % (
            target, path, path, path, path, target)
        if is_dir:
            script += "echo evil > '%s/new-file' && echo CREATED; " % path
        # every parent inside the project
        parts = path.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            script += "mv '%s' '%s.moved' && echo PARENT_MOVED; " % (
                parent, parent)
        r = run(c, s, script)
        for word in ("WROTE", "MOVED", "REMOVED", "CHMOD", "CREATED"):
            assert word not in r.out, (path, word, r)
        assert has_any(r.blocked, target, RUNS_LATER), (path, r)
    # the project itself cannot be renamed away either
    r = run(c, s, "cd .. && mv '%s' '%s.moved' && echo MOVED" % (
        os.path.basename(proj), os.path.basename(proj)))
    assert "MOVED" not in r.out, r
    assert snapshot(proj) == before


def has_any(blocked, path, rule):
    return any(b["rule"] == rule and (b["path"].endswith(path) or
               path.startswith(b["path"].lstrip("./"))) for b in blocked)


def test_protected_paths_missing(ctx):
    c, d = SH.client(), SH.get()
    proj = os.path.join(d.root, "bare")
    os.makedirs(proj)
    write(os.path.join(proj, "main.c"), "int main;\n")
    before = snapshot(proj)
    s = create(c, proj)
    try:
        for path, is_dir, inner in PROTECTED:
            script = ("echo evil > '%s' && echo CREATED; "
                      "mkdir -p '%s/x' && echo MKDIR; ") % (path, path)
            if is_dir:
                script += "echo evil > '%s/%s' && echo INNER; " % (path, inner)
            r = run(c, s, script)
            assert "CREATED" not in r.out and "MKDIR" not in r.out, (path, r)
            assert "INNER" not in r.out, (path, r)
        # no git repository can be made where the hooks would be writable
        r = run(c, s, "git init -q . && echo INIT")
        assert "INIT" not in r.out, r
    finally:
        c.call("session.close", {"session": s})
    # the placeholders that kept those names are gone with the session
    sboxtest.wait_for(lambda: snapshot(proj) == before, 5,
                      what="placeholders to go: %r" % (
                          set(snapshot(proj)) - set(before)))


def test_gitdir_file(ctx):
    """`.git` a `gitdir:` file: the real git folder's config and hooks stay
    read-only, and neither it nor a folder above it can be renamed."""
    c, d = SH.client(), SH.get()
    proj = os.path.join(d.root, "worktree")
    real = os.path.join(proj, "vendor", "store", "realgit")
    subprocess.run(["git", "init", "-q", "--bare", real], check=True)
    write(os.path.join(proj, ".git"), "gitdir: vendor/store/realgit\n")
    write(os.path.join(real, "hooks", "post-checkout"), "#!/bin/sh\n", 0o755)
    before = snapshot(proj)
    s = create(c, proj)
    try:
        r = run(c, s, "echo evil >> vendor/store/realgit/config && echo W1;"
                "echo evil > vendor/store/realgit/hooks/pre-commit && echo W2;"
                "echo evil > .git && echo W3;"
                "mv vendor/store/realgit vendor/store/x && echo M1;"
                "mv vendor/store vendor/x && echo M2;"
                "mv vendor vendor2 && echo M3; mv .git .git2 && echo M4")
        for w in ("W1", "W2", "W3", "M1", "M2", "M3", "M4"):
            assert w not in r.out, (w, r)
        assert has_any(r.blocked, "realgit/config", RUNS_LATER), r
        # the rest of the real git folder is writable (git works)
        ok(c, s, "echo ref > vendor/store/realgit/refs/heads/test")
    finally:
        c.call("session.close", {"session": s})
    os.unlink(os.path.join(real, "refs/heads/test"))
    sboxtest.wait_for(lambda: snapshot(proj) == before, 5, what="the project"
                      " as it was: %r" % (set(snapshot(proj).items()) ^
                                           set(before.items())))


# ---------------------------------------------------------------- secrets

def test_credentials_unreadable(ctx):
    c, d = SH.client(), SH.get()
    for key, sandbox in (("workspace", "workspace"), ("wide", "wide")):
        s = SH.session(key, project(), sandbox)
        for rel in CREDENTIALS:
            path = os.path.join(d.home, rel)
            r = run(c, s, "cat '%s'" % path)
            assert r.code != 0 and SECRET not in r.out, (sandbox, rel, r)
            e = c.error("file.read", {"session": s, "path": path})
            assert e.name in ("sbox.Blocked", "sbox.NotFound"), (rel, e)
            assert e.name == "sbox.Blocked" and CRED_RULE in e.message, \
                (sandbox, rel, e.message)
        # nothing anywhere the sandbox can read holds the secret
        r = run(c, s, "grep -rl '%s' '%s' /tmp /var/tmp /run /etc 2>/dev/null"
                " | head" % (SECRET, d.root))
        assert r.out.strip() == "", (sandbox, r)
        ents = [e["name"] for e in c.call("file.list", {
            "session": s, "path": d.home})["entries"]]
        assert ".ssh" not in ents and ".aws" not in ents, ents
    # a grant of a folder above the home folder does not uncover it
    lists = [ok(c, SH.session(k, project(), k), "ls -A ~")
             for k in ("workspace", "wide")]
    assert lists[0] == lists[1], lists


def test_sbox_own_files_unreachable(ctx):
    c, d = SH.client(), SH.get()
    for key, sandbox in (("workspace", "workspace"), ("wide", "wide")):
        s = SH.session(key, project(), sandbox)
        r = run(c, s, "cat '%s'; ls -A '%s'; ls -A '%s'; cat '%s/sbox.db'" % (
            d.config, d.state, d.run_dir, d.state))
        assert r.out.strip() == "", (sandbox, r)
        assert r.err.count("No such file") + r.err.count(
            "Permission denied") >= 2, (sandbox, r)
        r = py(c, s, CONNECT % d.sock)
        assert "CONNECTED" not in r.out, (sandbox, r)


CONNECT = """
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(%r)
    print("CONNECTED")
except OSError as e:
    print("refused", e.errno)
"""


def test_host_unix_sockets(ctx):
    c, d = SH.client(), SH.get()
    proj = project()
    xdg = os.path.join(d.root, "xdg")
    os.makedirs(xdg, exist_ok=True)
    socks = [os.path.join(d.root, "host.sock"), os.path.join(xdg, "bus")]
    if is_root():
        socks.append("/run/sbox-e2e-%d.sock" % os.getpid())
    held = [unix_listener(p) for p in socks]
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0sbox-e2e-abstract-%d" % os.getpid())
    abstract.listen(1)
    try:
        env = {"PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": xdg}
        for sandbox in ("workspace", "wide"):
            s = create(c, proj, sandbox, env=env)
            try:
                for p in socks + [d.sock, "\0sbox-e2e-abstract-%d" %
                                  os.getpid()]:
                    if sandbox == "wide" and p == socks[0]:
                        continue  # an explicitly granted folder shows it
                    r = py(c, s, CONNECT % p)
                    assert "refused" in r.out, (sandbox, p, r)
                r = run(c, s, "ls -A /run; ls -A /var/run; find /run /tmp "
                        "/var '%s' \"$HOME\" -type s 2>/dev/null" % d.root)
                found = set(r.out.split())
                assert found <= ({socks[0]} if sandbox == "wide" else set()), \
                    (sandbox, r)
            finally:
                c.call("session.close", {"session": s})
    finally:
        for h, p in zip(held, socks):
            h.close()
            os.unlink(p)
        abstract.close()


def test_secret_environment(ctx):
    c = SH.client()
    proj = project()
    env = {"PATH": "/usr/bin:/bin", "FOO_API_KEY": "k-" + SECRET,
           "GITHUB_TOKEN": "t-" + SECRET, "SSH_AUTH_SOCK": "/tmp/agent",
           "AWS_SECRET_ACCESS_KEY": SECRET, "DB_PASSWORD": SECRET,
           "PLAIN_SETTING": "plain"}
    s = create(c, proj, "workspace", env=env)
    s2 = create(c, proj, "withenv", env=env)
    try:
        out = ok(c, s, "env")
        assert SECRET not in out and "SSH_AUTH_SOCK" not in out, out
        # variables the command itself is given are filtered the same way
        out = ok(c, s, "env", env={"X_TOKEN": SECRET, "OK_VAR": "ok"})
        assert SECRET not in out and "OK_VAR=ok" in out, out
        # a profile that names one lets that one (and only it) in
        out = ok(c, s2, "env")
        assert "FOO_API_KEY=k-" + SECRET in out, out
        assert "GITHUB_TOKEN" not in out and "SSH_AUTH_SOCK" not in out, out
        assert "AWS_SECRET" not in out, out
    finally:
        c.call("session.close", {"session": s})
        c.call("session.close", {"session": s2})


def test_proc_1_leaks_nothing(ctx):
    c, d = SH.client(), SH.get()
    proj = project()
    s = create(c, proj, "withenv", env={"PATH": "/usr/bin:/bin",
                                        "FOO_API_KEY": SECRET})
    try:
        r = run(c, s, "tr '\\0' ' ' </proc/1/cmdline; echo; cat /proc/1/comm;"
                " tr '\\0' '\\n' </proc/1/environ")
        lines = r.out.split("\n")
        assert lines[0].startswith("/.sbox/init "), r
        assert SECRET not in r.out and proj not in lines[0], r
        # pid 1's environment is empty (or unreadable: it is not dumpable)
        assert "=" not in "".join(lines[2:]), r
        # on the host, bwrap got an empty environment and no argument list
        pid = c.call("session.info", {"session": s})["container_pid"]
        with open("/proc/%d/environ" % pid, "rb") as f:
            assert f.read() == b"", "bwrap has an environment"
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            cmd = f.read()
        assert SECRET.encode() not in cmd and proj.encode() not in cmd, cmd
    finally:
        c.call("session.close", {"session": s})


# ---------------------------------------------------------------- syscalls

# (name, x86_64 number, arguments, errno expected)
SYSCALLS = [
    ("unshare(CLONE_NEWUSER)", 272, (0x10000000,), "EPERM"),
    ("unshare(CLONE_NEWNS)", 272, (0x00020000,), "EPERM"),
    ("clone(CLONE_NEWUSER)", 56, (0x10000000 | 17, 0, 0, 0, 0), "EPERM"),
    ("clone3", 435, (0, 0), "ENOSYS"),
    ("ioctl(TIOCSTI)", 16, (0, 0x5412, 0), "EPERM"),
    ("ioctl(TIOCSTI | 1<<32)", 16, (0, 0x100005412, 0), "EPERM"),
    ("ioctl(TIOCLINUX)", 16, (0, 0x541C, 0), "EPERM"),
    ("ioctl(TIOCLINUX | high bits)", 16, (0, 0xffffffff0000541C, 0), "EPERM"),
    ("ptrace(PTRACE_ATTACH, 1)", 101, (16, 1, 0, 0), "EPERM"),
    ("perf_event_open", 298, (0, 0, -1, -1, 0), "EPERM"),
    ("socket(AF_PACKET)", 41, (17, 3, 0), "EAFNOSUPPORT"),
    ("socket(AF_BLUETOOTH)", 41, (31, 1, 0), "EAFNOSUPPORT"),
    ("io_uring_setup", 425, (1, 0), "EPERM"),
    ("io_uring_enter", 426, (0, 0, 0, 0, 0, 0), "EPERM"),
    ("io_uring_register", 427, (0, 0, 0, 0), "EPERM"),
    ("mount", 165, (0, 0, 0, 0, 0), "EPERM"),
    ("umount2", 166, (0, 0), "EPERM"),
    ("pivot_root", 155, (0, 0), "EPERM"),
    ("chroot", 161, (0,), "EPERM"),
    ("setns", 308, (0, 0), "EPERM"),
    ("fsopen", 430, (0, 0), "EPERM"),
    ("fsmount", 432, (0, 0, 0), "EPERM"),
    ("move_mount", 429, (0, 0, 0, 0, 0), "EPERM"),
    ("open_tree", 428, (0, 0, 0), "EPERM"),
    ("fspick", 433, (0, 0, 0), "EPERM"),
    ("keyctl", 250, (0, 0, 0, 0, 0), "EPERM"),
    ("add_key", 248, (0, 0, 0, 0, 0), "EPERM"),
    ("request_key", 249, (0, 0, 0, 0), "EPERM"),
    ("personality(PER_LINUX32)", 135, (0x0008,), "EPERM"),
    ("process_vm_readv", 310, (1, 0, 0, 0, 0, 0), "EPERM"),
    ("process_vm_writev", 311, (1, 0, 0, 0, 0, 0), "EPERM"),
]
# Allowed ones, to show the filter is not just "everything fails".
ALLOWED = [
    ("socket(AF_UNIX)", 41, (1, 1, 0)),
    ("socket(AF_INET)", 41, (2, 1, 0)),
    ("socket(AF_INET6)", 41, (10, 1, 0)),
    ("socket(AF_NETLINK)", 41, (16, 3, 0)),
    ("personality(query)", 135, (0xffffffff,)),
    ("getpid", 39, ()),
]

TRY_SYSCALL = """
import ctypes, errno, json, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
out = {}
for name, nr, args in json.loads(sys.argv[1]):
    a = [ctypes.c_ulong(x & 0xffffffffffffffff) for x in args]
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *a)
    e = ctypes.get_errno() if r == -1 else 0
    out[name] = errno.errorcode.get(e, str(e)) if r == -1 else "ok"
print(json.dumps(out))
"""


def test_seccomp(ctx):
    if os.uname().machine != "x86_64":
        raise Skip("syscall numbers are x86_64's")
    c, s = SH.client(), workspace()
    calls = [(n, nr, list(a)) for n, nr, a, _ in SYSCALLS] + \
        [(n, nr, list(a)) for n, nr, a in ALLOWED]
    r = run(c, s, None, argv=["python3", "-c", TRY_SYSCALL,
                              json.dumps(calls)])
    assert r.code == 0, r
    got = json.loads(r.out)
    bad = {n: (got[n], want) for n, _, _, want in SYSCALLS if got[n] != want}
    assert not bad, "syscalls not refused as expected: %r" % bad
    for n, _, _ in ALLOWED:
        assert got[n] == "ok", (n, got[n])
    out = ok(c, s, "grep -E '^(Seccomp|NoNewPrivs|CapEff|CapBnd):' "
             "/proc/self/status")
    assert "Seccomp:\t2" in out and "NoNewPrivs:\t1" in out, out
    assert "CapEff:\t0000000000000000" in out, out
    assert "CapBnd:\t0000000000000000" in out, out


# ---------------------------------------------------------------- processes

def test_processes_outside_invisible(ctx):
    c, d, s = SH.client(), SH.get(), workspace()
    host = subprocess.Popen(["sleep", "60"])
    try:
        out = ok(c, s, "ps -e -o pid=,comm=")
        procs = [l.split(None, 1) for l in out.strip().split("\n")]
        comms = sorted(p[1] for p in procs)
        assert [p for p in procs if p[0] == "1"][0][1] == "init", procs
        for host_only in ("sboxd", "sleep", "bwrap", "python3", "systemd"):
            assert host_only not in comms, comms
        assert "ps" in comms and all(int(p[0]) < 1000 for p in procs), procs
        for pid in (host.pid, d.proc.pid):
            r = run(c, s, "kill -9 %d && echo KILLED; kill -0 %d && "
                    "echo SEEN; ls /proc/%d >/dev/null && echo LISTED" % (
                        pid, pid, pid))
            assert "KILLED" not in r.out and "SEEN" not in r.out, (pid, r)
            assert "LISTED" not in r.out, (pid, r)
        assert host.poll() is None, "the host process was killed"
        assert d.proc.poll() is None
    finally:
        host.kill()
        host.wait()


def test_root_only_files_hidden(ctx):
    if not is_root():
        raise Skip("only when sboxd runs as root")
    c, s = SH.client(), workspace()
    r = run(c, s, "id -u; cat /etc/shadow; cat /etc/gshadow; ls -A /root;"
            " cat /root/.bashrc; ls /etc/sudoers.d")
    assert r.out.strip() == "0", r
    assert "root:" not in r.out, r
    rules = {b["path"]: b["rule"] for b in r.blocked}
    assert "readable by root only, hidden" in rules.get("/etc/shadow", ""), r
    e = c.error("file.read", {"session": s, "path": "/etc/shadow"})
    assert e.name == "sbox.Blocked" and "root only" in e.message, e


# ---------------------------------------------------------------- tools

def test_file_tools(ctx):
    c, d, s = SH.client(), SH.get(), workspace()
    proj = project()
    data = lambda t: __import__("base64").b64encode(t.encode()).decode()
    c.call("file.write", {"session": s, "path": "tool.txt",
                          "data": data("via tool\n")})
    assert open(os.path.join(proj, "tool.txt")).read() == "via tool\n"
    r = c.call("file.read", {"session": s, "path": proj + "/tool.txt"})
    assert b64(r["data"]) == "via tool\n", r
    os.unlink(os.path.join(proj, "tool.txt"))
    for path in (".git/config", ".git/hooks/pre-push", ".vscode/tasks.json",
                 ".envrc", ".mcp.json"):
        e = c.error("file.write", {"session": s, "path": path,
                                   "data": data("evil\n")})
        assert e.name == "sbox.Blocked" and e.field == "path", (path, e)
        assert RUNS_LATER in e.message and path in e.message, (path, e)
    e = c.error("file.write", {"session": s, "path": "/usr/sbox-x",
                               "data": data("x")})
    assert e.name == "sbox.Blocked" and "system folders" in e.message, e
    e = c.error("file.write", {"session": s, "path": d.home + "/.ssh/new",
                               "data": data("x")})
    assert e.name == "sbox.Blocked", e
    st = c.call("file.stat", {"session": s, "path": proj + "/README"})
    assert st["type"] == "file", st
    e = c.error("file.stat", {"session": s, "path": d.home + "/.aws"})
    assert e.name == "sbox.Blocked" and CRED_RULE in e.message, e


BLOCKED_WAYS = [
    ("redirection", "echo x > .git/hooks/pre-commit", ".git/hooks/pre-commit"),
    ("append", "echo x >> .envrc", ".envrc"),
    ("cp", "cp README .vscode/settings.json", ".vscode/settings.json"),
    ("mv", "mv README .claude/README", ".claude/README"),
    ("touch", "touch .husky/new", ".husky/new"),
    ("git config", "git config --local x.y z", ".git/config.lock"),
    ("python open", "python3 -c \"open('.mcp.json', 'w').write('x')\"",
     ".mcp.json"),
]


def test_blocked_names_the_rule(ctx):
    # a session of its own: the shared one's refusals of the tests before
    # may have used up its report budget (100 at once, then 50 a second:
    # more are dropped as a flood)
    c = SH.client()
    s = SH.session("names-the-rule", project())
    ways = list(BLOCKED_WAYS)
    if shutil.which("node"):
        ways.append(("node fs", "node -e \"require('fs').writeFileSync("
                     "'.cursor/rules', 'x')\"", ".cursor/rules"))
    for what, script, path in ways:
        r = run(c, s, script)
        assert r.code != 0, (what, r)
        # the file guard names the exact operation (create, rename, ...)
        ops = ("write", "create", "rename", "link")
        assert has_rule(r.blocked, path, RUNS_LATER, ops) or \
            has_rule(r.blocked, path.rsplit("/", 1)[0], RUNS_LATER,
                     ops), (what, r)
    # a read of a credential names its rule too, and success names nothing
    d = SH.get()
    r = run(c, s, "cat ~/.ssh/id_rsa")
    assert has_rule(r.blocked, ".ssh/id_rsa", CRED_RULE, "read"), r
    # a file's own permissions or a missing file are not the sandbox's doing
    r = run(c, s, "cat README >/dev/null; cat /etc/shadow; ls /nonexistent;"
            " cat /proc/1/environ")
    assert [b["path"] for b in r.blocked] == (["/etc/shadow"] if is_root()
                                              else []), r


def has_rule(blocked, path_end, rule, op):
    for b in blocked:
        if b["path"].rstrip("/").endswith(path_end) and b["rule"] == rule \
                and (b["op"] == op or b["op"] in op):
            assert b["message"].endswith("refused: " + rule), b
            return True
    return False
