"""Escape attempts on privilege and memory (issue 9): the sandbox never holds
host uid 0, /proc's host-wide writers stay read-only, root-only files are
unreadable because of who the sandbox is, and every writable tmpfs has a
size. Each attempt runs inside a real sandbox; the host is checked after."""
import os
import shutil
import time

import sboxtest
from sboxtest import Skip, is_root
from sandboxlib import create, make_project, run


def _daemon(ctx, extra=None):
    profiles = {"small": {"extends": "workspace", "limits": {"tmp_mb": 32}}}
    profiles.update(extra or {})
    d = ctx.daemon({"sandbox": {"profiles": profiles}})
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    return d, d.client(), proj


def _host_uid(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("Uid:"):
                return [int(x) for x in line.split()[1:]]
    return None


def test_sandbox_is_never_host_root(ctx):
    d, c, proj = _daemon(ctx)
    for sandbox in ("workspace", "strict"):
        s = create(c, proj, sandbox)
        marker = "sleep\x0030.%d" % os.getpid()
        c.call("command.exec", {"session": s, "detach": True,
                                "argv": ["sleep", "30.%d" % os.getpid()]})
        pids = []
        sboxtest.wait_for(lambda: pids.extend(_pids(marker)) or pids,
                          what="the sandboxed process on the host")
        for pid in pids:
            uids = _host_uid(pid)
            # what host `ps` shows: never 0; as a user, that user
            assert uids is not None and 0 not in uids, (pid, uids)
            if not is_root():
                assert set(uids) == {os.getuid()}, uids
        # a file the sandbox writes belongs to the project's owner on disk
        assert run(c, s, "echo x > made-inside").code == 0
        st = os.stat(os.path.join(proj, "made-inside"))
        assert st.st_uid == os.stat(proj).st_uid, (st.st_uid, sandbox)
        os.unlink(os.path.join(proj, "made-inside"))
        c.call("session.close", {"session": s})


def _pids(marker):
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                if f.read().rstrip(b"\0") == marker.encode():
                    out.append(int(p))
        except OSError:
            pass
    return out


def test_proc_sys_is_read_only(ctx):
    d, c, proj = _daemon(ctx)
    with open("/proc/sys/kernel/core_pattern") as f:
        before = f.read()
    for sandbox in ("workspace", "strict"):
        s = create(c, proj, sandbox)
        # write a sysctl's current value back: it must fail
        r = run(c, s, "v=$(cat /proc/sys/kernel/core_pattern) && "
                "printf '%s\\n' \"$v\" > /proc/sys/kernel/core_pattern && echo WROTE;"
                "echo '|/bin/sh -c true' > /proc/sys/kernel/core_pattern && echo WROTE2;"
                "echo 1 > /proc/sys/vm/drop_caches && echo WROTE3;"
                "echo h > /proc/sysrq-trigger && echo WROTE4; true")
        assert "WROTE" not in r.out, (sandbox, r)
        c.call("session.close", {"session": s})
    with open("/proc/sys/kernel/core_pattern") as f:
        assert f.read() == before


# It plants files in /etc, /var/lib and /opt, which every sandbox's mounts
# list: under xdist no other test runs meanwhile (tests/e2e/conftest.py).
RUN_ALONE = ("test_root_only_files_unreadable",)


def test_root_only_files_unreadable(ctx):
    if not is_root():
        raise Skip("plants files in /etc and /var/lib")
    d, c, proj = _daemon(ctx)
    planted = []
    try:
        for base in ("/etc", "/var/lib", "/opt"):
            if not os.path.isdir(base):
                continue
            dirp = os.path.join(base, "sbox-e2e-secret-%d" % os.getpid())
            os.mkdir(dirp, 0o700)
            planted.append(dirp)
            with open(os.path.join(dirp, "key"), "w") as f:
                f.write("ROOT-ONLY-4711\n")
            os.chmod(os.path.join(dirp, "key"), 0o600)
            # and a 0600 file in a folder others can list
            loose = os.path.join(base, "sbox-e2e-loose-%d" % os.getpid())
            with open(loose, "w") as f:
                f.write("ROOT-ONLY-4711\n")
            os.chmod(loose, 0o600)
            planted.append(loose)
        for sandbox in ("workspace", "strict"):
            s = create(c, proj, sandbox)
            script = "; ".join("cat %s/key %s 2>&1" % (p, p) for p in planted
                               if os.path.isdir(p))
            r = run(c, s, script + "; true")
            assert "ROOT-ONLY-4711" not in r.out, (sandbox, r)
            c.call("session.close", {"session": s})
    finally:
        for p in planted:
            if os.path.isdir(p):
                shutil.rmtree(p, ignore_errors=True)
            elif os.path.exists(p):
                os.unlink(p)


def test_every_tmpfs_has_a_size(ctx):
    d, c, proj = _daemon(ctx)
    s = create(c, proj, "small")
    # 2 GiB asked for in each writable tmpfs: each stops at its size
    for where in ("/tmp", "/var/tmp", "/run", "$HOME", "/dev/shm"):
        t0 = time.time()
        r = run(c, s, "dd if=/dev/zero of=%s/fill bs=1M count=2048 2>&1; "
                "du -sm %s/fill | cut -f1; rm -f %s/fill" % (where, where, where))
        lines = r.out.strip().split("\n")
        got = int(lines[-1]) if lines and lines[-1].isdigit() else -1
        assert 0 <= got <= 40, (where, r)
        assert "No space left" in r.out or "Read-only" in r.out or \
            "Permission denied" in r.out, (where, r)
        assert time.time() - t0 < 60
    # what need not be writable is not: /dev itself
    r = run(c, s, "touch /dev/sbox-probe 2>&1; ls /dev/sbox-probe 2>&1")
    assert "No such file" in r.out, r
    c.call("session.close", {"session": s})
