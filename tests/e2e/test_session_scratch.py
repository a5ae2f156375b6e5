"""A session's scratch folder and its recovery note are made ahead for the
next session while a create's bwrap starts (issue 24): the next create takes
them only when they are as they were made, a clean stop leaves neither, and
after a crash the next start removes them like any dead session's."""
import os
import stat
import subprocess

from sandboxlib import create, run


def scratch_base(d):
    return os.path.join(os.path.dirname(d.state), "sbox-scratch")


def notes(d):
    n = os.path.join(d.state, "sessions")
    return sorted(x[:-5] for x in os.listdir(n)) if os.path.isdir(n) else []


def folders(d):
    b = scratch_base(d)
    return sorted(os.listdir(b)) if os.path.isdir(b) else []


def project(ctx):
    p = os.path.join(ctx.tmp, "proj")
    os.makedirs(p, exist_ok=True)
    subprocess.run(["git", "init", "-q", p], check=True)
    return p


def ahead(d, live):
    """The pair made ahead: the folder and note of no live session."""
    for _ in range(100):
        extra = sorted(set(folders(d)) - set(live))
        if extra and set(notes(d)) - set(live) == set(extra):
            return extra
        subprocess.run(["sleep", "0.02"])
    return sorted(set(folders(d)) - set(live))


def one_session(ctx):
    """A daemon, its client, a project and a session; the id of the pair
    made ahead after it."""
    d = ctx.daemon()
    c = d.client()
    proj = project(ctx)
    s1 = create(c, proj)
    nxt = ahead(d, [s1])
    assert len(nxt) == 1, (folders(d), notes(d))
    return d, c, proj, s1, nxt


def test_next_create_takes_the_scratch_made_ahead(ctx):
    d, c, proj, s1, nxt = one_session(ctx)
    st = os.lstat(os.path.join(scratch_base(d), nxt[0]))
    assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700
    s2 = create(c, proj)
    assert s2 == nxt[0], (s2, nxt)
    i = c.call("session.info", {"session": s2})
    assert i["scratch"] == os.path.join(scratch_base(d), nxt[0]), i
    # the sandbox writes it as its own
    r = run(c, s2, "echo x > " + i["scratch"] + "/f && cat "
            + i["scratch"] + "/f")
    assert r.code == 0 and r.out.strip() == "x", r
    with open(os.path.join(i["scratch"], "f")) as f:
        assert f.read() == "x\n"
    for s in (s1, s2):
        c.call("session.close", {"session": s})
    # a clean stop removes the one made ahead too: no folder, no note
    d.stop()
    assert folders(d) == [] and notes(d) == [], (folders(d), notes(d))


def test_a_changed_scratch_made_ahead_is_not_used(ctx):
    d, c, proj, s1, nxt = one_session(ctx)
    path = os.path.join(scratch_base(d), nxt[0])
    # something put in it (a file, another mode): a new create makes its
    # own, and the changed one is removed
    with open(os.path.join(path, "planted"), "w") as f:
        f.write("x")
    s2 = create(c, proj)
    assert s2 != nxt[0]
    assert not os.path.exists(path) and nxt[0] not in notes(d)
    i = c.call("session.info", {"session": s2})
    assert os.listdir(i["scratch"]) == [], i
    nxt = ahead(d, [s1, s2])
    assert len(nxt) == 1
    path = os.path.join(scratch_base(d), nxt[0])
    os.chmod(path, 0o755)
    s3 = create(c, proj)
    assert s3 != nxt[0] and not os.path.exists(path)
    # a link in its place, to an empty folder that would pass: not
    # followed, and removed (the folder it led to stays)
    nxt = ahead(d, [s1, s2, s3])
    assert len(nxt) == 1
    path = os.path.join(scratch_base(d), nxt[0])
    elsewhere = os.path.join(ctx.tmp, "elsewhere")
    os.mkdir(elsewhere, 0o700)
    st = os.lstat(path)
    os.chown(elsewhere, st.st_uid, st.st_gid)
    os.rmdir(path)
    os.symlink(elsewhere, path)
    s4 = create(c, proj)
    assert s4 != nxt[0] and not os.path.lexists(path)
    assert os.path.isdir(elsewhere)
    for s in (s1, s2, s3, s4):
        c.call("session.close", {"session": s})
    d.stop()
    assert folders(d) == [] and notes(d) == []


def test_a_crash_leaves_it_to_the_next_start(ctx):
    d, c, proj, s1, nxt = one_session(ctx)
    c.close()
    d.kill()
    assert nxt[0] in folders(d) and nxt[0] in notes(d)
    d.start()
    c = d.client()
    c.call("daemon.status")
    assert nxt[0] not in folders(d) and nxt[0] not in notes(d), (
        folders(d), notes(d))
    c.close()
    d.stop()
    assert folders(d) == [] and notes(d) == []
