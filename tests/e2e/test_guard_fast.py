"""The file guard's shortened paths (issue 24: fewer system calls per
notification) decide exactly as the long ones did: a creation takes the
caller's umask of that moment (its /proc status is read through a kept
descriptor, sbox-init's own umask left alone when it is the same), a
protected name reached by an absolute path or by a bare name from a
folder's descriptor is refused, and a change through a file descriptor is
decided on the name the file has now, checked through its folder. Each
attempt runs in a real session; the host's stat and contents are checked
after."""
import os
import stat

from sandboxlib import RUNS_LATER, TRY_PY, create, has_rule, make_project, \
    run, snapshot

UMASK_PY = r"""
import os
def mk(name, um, dir=False):
    os.umask(um)
    if dir:
        os.mkdir(name, 0o777)
    else:
        os.close(os.open(name, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o666))
mk("a", 0o022)
mk("b", 0o077)
mk("c", 0o077, dir=True)
mk("d", 0o000)
mk("e", 0o022)
mk("f", 0o027, dir=True)
mk("g", 0o022, dir=True)
print("END", flush=True)
"""


def test_guard_umask_per_call(ctx):
    """Each creation gets the umask its caller has at that call: one
    process changing it between creations, and forty processes in a row
    (new thread ids, sharing the kept descriptors' slots) alternating 077
    and 022."""
    d = ctx.daemon()
    c = d.client()
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    sid = create(c, proj)
    r = run(c, sid, None, argv=["python3", "-c", UMASK_PY])
    assert r.code == 0 and "END" in r.out.split(), r
    r2 = run(c, sid, "mkdir s && for i in $(seq 40); do "
             "if [ $((i % 2)) = 0 ]; then (umask 077; : > s/f$i); "
             "else (umask 022; : > s/f$i); fi; done; echo DONE")
    assert r2.code == 0 and "DONE" in r2.out, r2
    c.call("session.close", {"session": sid})

    def mode(n):
        return stat.S_IMODE(os.lstat(os.path.join(proj, n)).st_mode)
    assert [oct(mode(n)) for n in "abcdefg"] == [
        oct(m) for m in (0o644, 0o600, 0o700, 0o666, 0o644, 0o750, 0o755)]
    for i in range(1, 41):
        assert mode("s/f%d" % i) == (0o600 if i % 2 == 0 else 0o644), i


NAMES_PY = TRY_PY + r"""
P = os.getcwd()
def create(path, **kw):
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644, **kw))
git = os.open(".git", os.O_RDONLY | os.O_DIRECTORY)
hooks = os.open(".git/hooks", os.O_RDONLY | os.O_DIRECTORY)
vscode = os.open(".vscode", os.O_RDONLY | os.O_DIRECTORY)
# absolute paths
t("A1", lambda: open(P + "/.git/config", "a").write("[x]\n"))
t("A2", lambda: os.utime(P + "/.envrc", (1, 1)))
t("A3", lambda: os.unlink(P + "/.mcp.json"))
t("A4", lambda: create(P + "/.git/hooks/post-checkout"))
t("A5", lambda: os.chmod(P + "/.git/hooks/pre-commit", 0o777))
# bare names from a folder's descriptor
t("B1", lambda: os.unlink("pre-commit", dir_fd=hooks))
t("B2", lambda: create("post-merge", dir_fd=hooks))
t("B3", lambda: os.utime("config", (2, 2), dir_fd=git))
t("B4", lambda: os.chmod("settings.json", 0o777, dir_fd=vscode))
t("B5", lambda: os.rename("settings.json", "moved.json", src_dir_fd=vscode,
  dst_dir_fd=vscode))
t("B6", lambda: os.mkdir("x", dir_fd=hooks))
# the same forms in the project itself: allowed
me = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
t("OK1", lambda: create(P + "/abs-made"))
t("OK2", lambda: os.utime(P + "/abs-made", (3, 3)))
t("OK3", lambda: create("bare-made", dir_fd=me))
t("OK4", lambda: os.chmod("bare-made", 0o600, dir_fd=me))
t("OK5", lambda: os.unlink("bare-made", dir_fd=me))
t("OK6", lambda: os.unlink(P + "/abs-made"))
t("OK7", lambda: create("/tmp/in-tmp"))
t("OK8", lambda: os.unlink("/tmp/in-tmp"))
print("END", flush=True)
"""


def test_guard_absolute_and_bare_names(ctx):
    """Protected names written, changed, removed or made through an
    absolute path or a bare name from a folder's descriptor: refused, the
    host's files untouched; the same forms elsewhere in the project and in
    /tmp work."""
    d = ctx.daemon()
    c = d.client()
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    before = snapshot(proj)
    modes = {n: os.lstat(os.path.join(proj, n)) for n in (
        ".git/config", ".envrc", ".git/hooks/pre-commit",
        ".vscode/settings.json")}
    sid = create(c, proj)
    r = run(c, sid, None, argv=["python3", "-c", NAMES_PY])
    c.call("session.close", {"session": sid})
    lines = r.out.split("\n")
    assert "END" in lines, r
    refused = ["A%d" % i for i in range(1, 6)] + \
        ["B%d" % i for i in range(1, 7)]
    assert [t for t in refused if t in lines] == [], r
    assert all(any(x.startswith("E%s " % t) for x in lines)
               for t in refused), r
    for t in ("A1", "A2", "A5", "B3", "B4"):
        assert "E%s EROFS" % t in lines, (t, r)
    ok = ["OK%d" % i for i in range(1, 9)]
    assert [t for t in ok if t in lines] == ok, r
    after = snapshot(proj)
    assert {k: v for k, v in after.items() if k in before} == before
    assert set(after) - set(before) == set(), set(after) - set(before)
    for n, a in modes.items():
        b = os.lstat(os.path.join(proj, n))
        assert (a.st_mode, a.st_mtime_ns) == (b.st_mode, b.st_mtime_ns), n
    assert has_rule(r.blocked, ".git/config", RUNS_LATER), r.blocked


FDS_PY = TRY_PY + r"""
os.close(os.open("mine", os.O_CREAT | os.O_WRONLY, 0o644))
fd = os.open("mine", os.O_RDONLY)
os.rename("mine", "renamed")
t("R1", lambda: os.fchmod(fd, 0o600))
t("R2", lambda: os.utime(fd, (5, 5)))
os.close(os.open("two", os.O_CREAT | os.O_WRONLY, 0o644))
os.link("two", "alias")
fd2 = os.open("two", os.O_RDONLY)
os.unlink("two")
t("D1", lambda: os.fchmod(fd2, 0o600))
cfg = os.open(".git/config", os.O_RDONLY)
t("P1", lambda: os.fchmod(cfg, 0o666))
t("P2", lambda: os.utime(cfg, (6, 6)))
d = os.open(".vscode", os.O_RDONLY | os.O_DIRECTORY)
t("P3", lambda: os.fchmod(d, 0o777))
print("END", flush=True)
"""


def test_guard_fd_changes_name_now(ctx):
    """fchmod and futimens are decided on the name the file has now, found
    through its folder: a renamed file is changed under its new name; a
    file whose own name was removed while another link is left (its path
    reads "... (deleted)") is refused; a protected file or folder held
    open is refused (EROFS) and unchanged on the host."""
    d = ctx.daemon()
    c = d.client()
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    keep = {n: os.lstat(os.path.join(proj, n)) for n in (".git/config",
                                                         ".vscode")}
    sid = create(c, proj)
    r = run(c, sid, None, argv=["python3", "-c", FDS_PY])
    c.call("session.close", {"session": sid})
    lines = r.out.split("\n")
    assert "END" in lines, r
    assert "R1" in lines and "R2" in lines, r
    st = os.lstat(os.path.join(proj, "renamed"))
    assert stat.S_IMODE(st.st_mode) == 0o600 and st.st_mtime == 5, st
    assert "ED1 EPERM" in lines, r
    assert stat.S_IMODE(os.lstat(os.path.join(proj, "alias")).st_mode) == \
        0o644
    for t in ("P1", "P2", "P3"):
        assert "E%s EROFS" % t in lines, (t, r)
    for n, a in keep.items():
        b = os.lstat(os.path.join(proj, n))
        assert (a.st_mode, a.st_mtime_ns) == (b.st_mode, b.st_mtime_ns), n
