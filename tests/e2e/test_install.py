"""An installed sbox works (issue 25, item 1): `make install DESTDIR=...
PREFIX=...` of the binaries under test, then the installed `sbox run --
true` (which starts the installed sboxd by itself), `sbox sandbox check`
and a session; sboxd finds PREFIX/libexec/sbox/sbox-init by a path with no
'..' component, and `sandbox check` names sbox-init when it is missing;
`make uninstall` leaves no file behind.

Runs in every pass (root and the unprivileged user, plain and sanitizer
builds): the Makefile and the files it installs are staged beside the tests;
without a Makefile, the layout of `make install` is made by hand."""
import json
import os
import shutil
import subprocess

import sboxtest
from sboxtest import Skip
from sandboxlib import make_project

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PREFIX = "/opt/sbox-e2e"


def install(dest):
    """Install the binaries under test into dest + PREFIX; the prefix."""
    b = os.path.abspath(sboxtest.BIN)
    if os.path.exists(os.path.join(ROOT, "Makefile")) and \
            shutil.which("make"):
        # -o all: the binaries are built already (maybe as another build)
        r = subprocess.run(["make", "-s", "-C", ROOT, "-o", "all", "install",
                            "BIN=" + b, "DESTDIR=" + dest,
                            "PREFIX=" + PREFIX], capture_output=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr.decode()
    else:
        pre = dest + PREFIX
        for sub, names in (("bin", ("sboxd", "sbox")),
                           ("libexec/sbox", ("sbox-init",))):
            os.makedirs(os.path.join(pre, sub))
            for n in names:
                shutil.copy2(os.path.join(b, n), os.path.join(pre, sub, n))
        os.makedirs(os.path.join(pre, "share/sbox"))
        shutil.copy(os.path.join(ROOT, "policy", "protected.default"),
                    os.path.join(pre, "share/sbox/protected"))
    return dest + PREFIX


def uninstall(dest, env=None):
    """make uninstall (env: the installing user's, whose sboxd it stops);
    what it said."""
    if os.path.exists(os.path.join(ROOT, "Makefile")):
        e = dict(env if env is not None else os.environ)
        e.pop("SUDO_USER", None)    # the caller is the installing user
        r = subprocess.run(["make", "-s", "-C", ROOT, "uninstall",
                            "DESTDIR=" + dest, "PREFIX=" + PREFIX],
                           capture_output=True, timeout=120, env=e)
        assert r.returncode == 0, r.stderr.decode()
        return r.stdout.decode() + r.stderr.decode()
    shutil.rmtree(dest + PREFIX)
    return ""


def env_for(d):
    """The installed sbox's environment: its own runtime folder (so it
    starts its own sboxd on the default socket), HOME under the test."""
    e = d.env()
    del e["SBOX_SOCKET"]
    e["XDG_RUNTIME_DIR"] = os.path.join(d.root, "xdg")
    os.makedirs(e["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
    for k in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
        e.pop(k, None)
    return e


def sbox(pre, env, *args, cwd=None, input=b""):
    return subprocess.run([os.path.join(pre, "bin", "sbox")] + list(args),
                          input=input, capture_output=True, env=env, cwd=cwd,
                          timeout=120)


def out(r):
    return "exit %d\nstdout: %s\nstderr: %s" % (
        r.returncode, r.stdout.decode(errors="replace"),
        r.stderr.decode(errors="replace"))


def stop_daemon(pre, env):
    """Stop the sboxd the installed sbox started (ctx's cleanup would kill
    it by its HOME too); nothing when the uninstall removed sbox."""
    if os.path.exists(os.path.join(pre, "bin", "sbox")):
        sbox(pre, env, "--no-start", "daemon", "stop")


def test_installed_sbox_runs_checks_and_holds_a_session(ctx):
    d = ctx.daemon(start=False, name="inst")
    dest = os.path.join(ctx.tmp, "dest")
    pre = install(dest)
    assert os.access(os.path.join(pre, "libexec/sbox/sbox-init"), os.X_OK)
    env = env_for(d)
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    try:
        # the first call starts the installed sboxd (no '..' in the path
        # of sbox-init it binds into the sandbox)
        r = sbox(pre, env, "run", "--", "true", cwd=proj)
        assert r.returncode == 0, out(r)
        r = sbox(pre, env, "run", "--", "sh", "-c", "echo in-sandbox",
                 cwd=proj)
        assert r.returncode == 0 and r.stdout == b"in-sandbox\n", out(r)
        r = sbox(pre, env, "--json", "sandbox", "check")
        assert r.returncode == 0, out(r)
        chk = json.loads(r.stdout)
        by = {s["id"]: s for s in chk["steps"]}
        assert chk["ok"] is True, chk
        real_init = os.path.realpath(os.path.join(pre, "libexec/sbox",
                                                  "sbox-init"))
        assert by["init"]["ok"] and by["init"]["detail"] == real_init, by
        # a session: create, exec, close
        r = sbox(pre, env, "--json", "session", "create", "--project", proj)
        assert r.returncode == 0, out(r)
        sid = json.loads(r.stdout)["session"]
        r = sbox(pre, env, "session", "exec", sid, "--no-tty", "--", "sh",
                 "-c", "pwd")
        assert r.returncode == 0 and \
            r.stdout.decode().strip() == os.path.realpath(proj), out(r)
        r = sbox(pre, env, "session", "close", sid)
        assert r.returncode == 0, out(r)
    finally:
        stop_daemon(pre, env)
    uninstall(dest)
    left = [os.path.join(dp, f) for dp, _, fs in os.walk(dest) for f in fs]
    assert left == [], left
    for sub in ("libexec/sbox", "share/sbox"):
        assert not os.path.exists(os.path.join(pre, sub)), sub


def test_missing_init_named_by_sandbox_check(ctx):
    """Without PREFIX/libexec/sbox/sbox-init, `sbox sandbox check` says
    sbox-init is missing (not "user namespaces"), and a run fails closed."""
    d = ctx.daemon(start=False, name="noinit")
    dest = os.path.join(ctx.tmp, "dest")
    pre = install(dest)
    init = os.path.join(pre, "libexec/sbox/sbox-init")
    os.unlink(init)
    env = env_for(d)
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    try:
        r = sbox(pre, env, "--json", "sandbox", "check")
        assert r.returncode == 1, out(r)
        chk = json.loads(r.stdout)
        by = {s["id"]: s for s in chk["steps"]}
        assert by["init"]["ok"] is False, chk
        assert "sbox-init is not installed at " + init in \
            by["init"]["detail"], by["init"]
        assert "sbox-init" in by["userns"]["detail"], by["userns"]
        r = sbox(pre, env, "sandbox", "check")
        assert r.returncode == 1 and b"sbox-init" in r.stdout + r.stderr, \
            out(r)
        r = sbox(pre, env, "run", "--", "true", cwd=proj)
        assert r.returncode != 0 and b"sbox-init" in r.stderr, out(r)
    finally:
        stop_daemon(pre, env)
    uninstall(dest)


def make(dest, *args):
    """make -s install/uninstall ... into dest; the result."""
    return subprocess.run(["make", "-s", "-C", ROOT, "-o", "all"] +
                          list(args) + ["BIN=" + os.path.abspath(sboxtest.BIN),
                                        "DESTDIR=" + dest, "PREFIX=" + PREFIX],
                          capture_output=True, timeout=120)


def test_install_apparmor_profile(ctx):
    """`make install` puts the AppArmor profile in DESTDIR/etc/apparmor.d/
    sbox where the system has AppArmor 4, else says why it does not (then
    APPARMOR=yes installs it anyway, as a packager would); the profile
    allows `userns` to the bwrap sboxd uses and to PREFIX/bin/sboxd, and
    nothing else; it is never loaded with a DESTDIR; `make uninstall`
    removes it."""
    if not os.path.exists(os.path.join(ROOT, "Makefile")) or \
            not shutil.which("make"):
        raise Skip("no Makefile beside the tests")
    dest = os.path.join(ctx.tmp, "dest")
    prof = os.path.join(dest, "etc/apparmor.d/sbox")
    r = make(dest, "install")
    assert r.returncode == 0, out(r)
    said = r.stdout.decode()
    has = os.path.isdir("/sys/kernel/security/apparmor") or \
        os.path.isdir("/etc/apparmor.d")
    if not has:
        assert "no AppArmor here" in said and not os.path.exists(prof), said
    elif not os.path.exists("/etc/apparmor.d/abi/4.0"):
        assert "older than 4.0" in said and not os.path.exists(prof), said
    else:
        assert os.path.exists(prof) and "not loaded: DESTDIR" in said, said
    r = make(dest, "install", "APPARMOR=yes")
    assert r.returncode == 0, out(r)
    assert "not loaded: DESTDIR is set" in r.stdout.decode(), out(r)
    with open(prof) as f:
        text = f.read()
    assert oct(os.stat(prof).st_mode & 0o777) == "0o644"
    bwrap = os.path.realpath(shutil.which("bwrap"))
    rules = [ln.strip() for ln in text.splitlines()
             if ln.strip() and not ln.strip().startswith("#")]
    assert rules == [
        "abi <abi/4.0>,", "include <tunables/global>",
        "profile sbox-bwrap %s flags=(unconfined) {" % bwrap, "userns,",
        "include if exists <local/sbox-bwrap>", "}",
        "profile sboxd %s/bin/sboxd flags=(unconfined) {" % PREFIX,
        "userns,", "include if exists <local/sboxd>", "}"], rules
    r = make(dest, "install-apparmor", "APPARMOR=no")
    assert r.returncode == 0 and r.stdout == b"", out(r)
    r = make(dest, "uninstall")
    assert r.returncode == 0, out(r)
    assert not os.path.exists(prof)
    left = [os.path.join(dp, f) for dp, _, fs in os.walk(dest) for f in fs]
    assert left == [], left


def alive(pid):
    """Is process pid running (not gone, not a zombie)?"""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_uninstall_stops_the_users_sboxd(ctx):
    """Issue 43 item 8: `make uninstall` stops the installing user's sboxd
    (the one on its default socket) with `sbox daemon stop`, and says so;
    the user's data stays where docs/operations.md says."""
    if not os.path.exists(os.path.join(ROOT, "Makefile")):
        raise sboxtest.Skip("no Makefile beside the tests")
    d = ctx.daemon(start=False, name="uninst")
    dest = os.path.join(ctx.tmp, "dest")
    pre = install(dest)
    env = env_for(d)
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    try:
        r = sbox(pre, env, "run", "--", "true", cwd=proj)
        assert r.returncode == 0, out(r)
        r = sbox(pre, env, "--json", "daemon", "status")
        assert r.returncode == 0, out(r)
        st = json.loads(r.stdout)
        pid, state = st["pid"], st["state_dir"]
        assert alive(pid), st
        said = uninstall(dest, env)
    finally:
        stop_daemon(pre, env)
    assert not alive(pid), said
    assert "sboxd (pid %d) stopped" % pid in said, said
    assert not os.path.exists(os.path.join(pre, "bin", "sbox")), said
    # what the docs name as the user's data stays for them to remove
    assert os.path.isdir(state) and os.path.exists(
        os.path.join(state, "reserve")), os.listdir(state)
    # docs/operations.md names each of them and the command that removes
    # them (in the tree, not staged beside the tests: the root pass only)
    ops = os.path.join(ROOT, "docs", "operations.md")
    if os.path.exists(ops):
        with open(ops) as f:
            readme = f.read()
        part = readme.split("\n## Removing sbox", 1)[1].split("\n## ", 1)[0]
        for name in os.listdir(state) + ["sbox-scratch", "sboxd.sock",
                                         "~/.config/sbox"]:
            if name.startswith("sbox.db"):
                name = "sbox.db"
            assert name in part, (name, os.listdir(state))
        assert "rm -rf ~/.local/state/sbox ~/.local/state/sbox-scratch" in \
            part
    # nothing runs now: it says so
    dest2 = os.path.join(ctx.tmp, "dest2")
    install(dest2)
    said = uninstall(dest2, env)
    assert "no sboxd of" in said, said


def test_uninstall_says_an_sboxd_still_runs(ctx):
    """An sboxd of the user that the uninstall cannot reach (a socket of
    its own) still runs: the message says so and names its pid."""
    if not os.path.exists(os.path.join(ROOT, "Makefile")):
        raise sboxtest.Skip("no Makefile beside the tests")
    d = ctx.daemon(name="other")
    r = d.cli("--json", "daemon", "status")
    assert r.returncode == 0, r
    pid = json.loads(r.stdout)["pid"]
    dest = os.path.join(ctx.tmp, "dest")
    install(dest)
    env = env_for(d)
    said = uninstall(dest, env)
    assert alive(pid), said
    assert "still runs" in said and str(pid) in said, said
