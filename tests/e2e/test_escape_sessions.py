"""Escape attempts through sessions made from inside a sandbox (issue 12):
a child is at most what its parent's plan allows (never a protected or
hidden folder, never outside), it is bound from the folder that was checked
(a symlink swap cannot redirect it), a child with no sandbox gets its
parent's, and no session reaches another's scratch folder."""
import base64
import os
import shutil
import subprocess

import sboxtest
from sandboxlib import create, make_project, run


def _exec(c, sid, script, timeout_ms=None):
    p = {"session": sid, "argv": ["sh", "-c", script], "channel": True}
    if timeout_ms:
        p["timeout"] = timeout_ms // 1000
    r = c.call("command.exec", p)
    return (r["exit_code"], base64.b64decode(r["stdout"]).decode(),
            base64.b64decode(r["stderr"]).decode())


def _setup(ctx, config=None):
    d = ctx.daemon(config)
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    shutil.copy(sboxtest.sbox_for_sandbox(), os.path.join(proj, "sbox"))
    os.chmod(os.path.join(proj, "sbox"), 0o755)
    c = d.client()
    sid = create(c, proj, "guarded" if config else "workspace")
    return d, c, proj, sid


def _snapshot(path):
    out = {}
    for root, dirs, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[p] = fh.read()
    return out


def test_child_on_protected_folders_refused(ctx):
    cfg = {"sandbox": {"profiles": {"guarded": {
        "extends": "workspace", "folders": {"deny": []}}}}}
    d, c, proj, sid = _setup(ctx)
    outside = os.path.join(ctx.tmp, "outside")
    os.makedirs(outside)
    os.makedirs(os.path.join(proj, "secret"))
    before = _snapshot(os.path.join(proj, ".git"))
    vscode = _snapshot(os.path.join(proj, ".vscode"))
    targets = [".git", ".git/hooks", ".git/info", ".vscode", ".claude",
               outside, "/", d.home, os.path.join(d.home, ".ssh")]
    for t in targets:
        code, out, err = _exec(c, sid, (
            "child=$(./sbox session create --project '%s' --sandbox strict) "
            "|| exit 7; ./sbox session exec $child -- sh -c "
            "'echo pwned > hooks/pre-commit; echo pwned > pre-commit; "
            "echo pwned > settings.json; echo pwned > config'" % t))
        assert code == 7, (t, code, out, err)
        assert "sbox.NarrowingViolation" in err or "only work in a folder" in err \
            or "inside git metadata" in err or "git folder" in err \
            or "does not exist" in err, (t, err)
    assert _snapshot(os.path.join(proj, ".git")) == before
    assert _snapshot(os.path.join(proj, ".vscode")) == vscode
    assert not os.listdir(outside)
    # the host's git runs nothing planted
    r = subprocess.run(["git", "-C", proj, "status", "--porcelain"],
                       capture_output=True, text=True, timeout=30)
    assert "pwned" not in r.stdout + r.stderr


def test_child_keeps_parent_denies(ctx):
    cfg = {"sandbox": {"profiles": {"guarded": {
        "extends": "workspace", "folders": {"deny": []}}}}}
    d = ctx.daemon()
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    os.makedirs(os.path.join(proj, "sub", "secret"))
    with open(os.path.join(proj, "sub", "secret", "key"), "w") as f:
        f.write("SECRET-9\n")
    d.write_config({"sandbox": {"profiles": {"guarded": {
        "extends": "workspace",
        "folders": {"deny": [os.path.join(proj, "sub", "secret"),
                             os.path.join(proj, "sub", "absent")]}}}}})
    d.stop()
    d.start()
    shutil.copy(sboxtest.sbox_for_sandbox(), os.path.join(proj, "sbox"))
    c = d.client()
    sid = create(c, proj, "guarded")
    assert "SECRET-9" not in run(c, sid, "cat sub/secret/key; true").out
    # the child on sub/ (its own profile names no deny) still cannot read it
    code, out, err = _exec(c, sid, (
        "child=$(./sbox session create --project \"$PWD/sub\" --sandbox strict) "
        "&& ./sbox session exec $child -- sh -c 'cat secret/key; "
        "echo x > secret/planted'; true"))
    assert "SECRET-9" not in out, (out, err)
    assert not os.path.exists(os.path.join(proj, "sub", "secret", "planted"))
    # a denied folder that does not exist cannot be made by the child either
    code, out, err = _exec(c, sid, (
        "child=$(./sbox session create --project \"$PWD/sub\" --sandbox strict) "
        "&& ./sbox session exec $child -- sh -c 'mkdir absent; "
        "echo x > absent/x'; true"))
    assert not os.path.exists(os.path.join(proj, "sub", "absent")), (out, err)
    del cfg


def test_child_without_sandbox_gets_parents(ctx):
    d, c, proj, sid = _setup(ctx)
    code, out, err = _exec(c, sid, "./sbox session create --project .")
    assert code == 0, err
    child = out.split()[-1]
    info = c.call("session.info", {"session": child})
    assert info["parent"] == sid and info["profile"] == "workspace", info
    assert info["sandboxed"] is True


def test_symlink_swap_during_create(ctx):
    """A racer inside the parent swaps the child's folder for a relative
    symlink to a host folder the parent cannot see, while the parent
    creates children there: no child ever sees or writes that folder."""
    d, c, proj, sid = _setup(ctx)
    victim = os.path.join(ctx.tmp, "victim")
    os.makedirs(victim)
    with open(os.path.join(victim, "marker"), "w") as f:
        f.write("HOST-FOLDER-77\n")
    # 1,000 tries as root with the plain build; 300 as a user and under
    # the sanitizers (each made child is a real container: ~0.15 s)
    tries = 1000 if sboxtest.is_root() and not sboxtest.BIN.rstrip(
        "/").endswith("-san") else 300
    script = r"""
mkdir -p sw real
( while :; do mv -T sw hold 2>/dev/null; ln -s ../victim sw 2>/dev/null;
  rm -f sw 2>/dev/null; mv -T hold sw 2>/dev/null; done ) &
racer=$!
made=0 refused=0 i=0
while [ $i -lt %d ]; do
  i=$((i+1))
  if child=$(./sbox session create --project "$PWD/sw" --sandbox strict 2>/dev/null); then
    made=$((made+1))
    ./sbox session exec $child -- sh -c 'cat marker 2>/dev/null; echo x > pwned 2>/dev/null' || true
    ./sbox session close $child >/dev/null 2>&1
  else refused=$((refused+1)); fi
done
kill $racer
echo "made=$made refused=$refused"
""" % tries
    long = sboxtest.Client(d.sock, timeout=175)
    code, out, err = _exec(long, sid, script, timeout_ms=170000)
    print("symlink swaps: %s" % out.strip().split("\n")[-1])
    assert "HOST-FOLDER-77" not in out, out
    assert sorted(os.listdir(victim)) == ["marker"], os.listdir(victim)
    assert "made=" in out, (code, out, err)


def test_scratch_folders_isolated(ctx):
    d = ctx.daemon()
    base = os.path.dirname(d.state)
    d.write_config({"sandbox": {"profiles": {"wide": {
        "extends": "workspace", "folders": {"read_only": [base]}}}}})
    d.stop()
    d.start()
    c = d.client()
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    a = create(c, proj, "workspace")
    sa = c.call("session.info", {"session": a})["scratch"]
    assert run(c, a, "echo A-SCRATCH-5 > '%s/note'" % sa).code == 0
    b = create(c, proj, "wide")
    sb = c.call("session.info", {"session": b})["scratch"]
    r = run(c, b, "ls -A '%s'; cat '%s/note'; ls -A '%s'" % (
        os.path.dirname(sa), sa, sa))
    assert "A-SCRATCH-5" not in r.out, r
    assert os.path.basename(sa) not in r.out, r
    # its own scratch folder works
    assert run(c, b, "echo mine > '%s/x' && cat '%s/x'" % (sb, sb)).out.strip() == "mine"
