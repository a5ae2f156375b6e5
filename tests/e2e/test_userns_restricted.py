"""Restricted user namespaces (issue 41, item 2): where the kernel refuses
the user namespaces bwrap makes (Ubuntu 24.04's AppArmor restriction,
Debian's unprivileged_userns_clone=0, user.max_user_namespaces=0, a
seccomp filter), `sbox sandbox check` says what is restricted and the one
command that fixes it, and `session.create` fails closed with that message:
no command runs, no weaker sandbox.

This machine restricts nothing, so the daemon runs under a stand-in that
refuses user namespaces to its own process tree only (usernslib: a seccomp
filter, and for a user a private user namespace whose max_user_namespaces
is 0), never a machine-wide setting: other test runs go on unchanged. As
root and as a user; the AppArmor profile `make install` ships is in
test_install.py."""
import json
import os

import sboxtest
import usernslib
from sboxtest import RpcError, Skip
from sandboxlib import make_project


def restricted_daemon(ctx, how, name="uns"):
    """A private sboxd started under the stand-in how ("seccomp", "max0")."""
    if how == "seccomp" and not usernslib.supported():
        raise Skip("no seccomp stand-in for this machine's architecture")
    d = ctx.daemon(start=False, name=name)
    plain = d.args
    d.args = lambda: usernslib.wrap(plain(), how)
    return d.start()


def check(d):
    """`sbox --json sandbox check`: exit status and the steps by id."""
    r = d.cli("--json", "sandbox", "check", timeout=120)
    chk = json.loads(r.stdout)
    return r.returncode, chk, {s["id"]: s for s in chk["steps"]}


def create_fails(ctx, d, proj):
    """session.create of a sandboxed session: the error."""
    c = d.client()
    try:
        r = c.call("session.create", {"project": proj,
                                      "sandbox": "workspace"})
    except RpcError as e:
        return e
    finally:
        c.close()
    raise AssertionError("session.create started a sandbox: %r" % (r,))


def test_userns_check_says_what_refuses_them(ctx):
    """Under the seccomp stand-in the probe fails at unshare(EPERM) while
    no setting restricts anything: the check says so (as root: that the
    unprivileged switches do not apply) and names what fixes it; the
    sandbox step fails with the same reason; the text output shows it."""
    d = restricted_daemon(ctx, "seccomp")
    rc, chk, by = check(d)
    assert rc == 1 and chk["ok"] is False, chk
    p = by["userns_probe"]
    assert p["ok"] is False, p
    assert "user namespaces are restricted" in p["detail"], p
    assert "unshare(CLONE_NEWUSER): Operation not permitted" in \
        p["detail"], p
    assert "seccomp filter or the container sboxd runs in" in p["detail"]
    assert "fix: run sboxd on the host" in p["detail"], p
    if sboxtest.is_root():
        assert "as root, kernel.apparmor_restrict_unprivileged_userns and "\
            "kernel.unprivileged_userns_clone do not apply" in p["detail"]
    else:
        assert "no setting refuses them" in p["detail"], p
    assert by["userns"]["ok"] is False, by["userns"]
    assert "user namespaces are restricted" in by["userns"]["detail"], by
    assert by["bwrap"]["ok"] and by["init"]["ok"], by
    r = d.cli("sandbox", "check", timeout=120)
    text = r.stdout.decode() + r.stderr.decode()
    assert r.returncode == 1, text
    assert "user namespaces are restricted" in text, text


def test_userns_session_create_fails_closed(ctx):
    """session.create fails with sbox.SandboxUnavailable that says user
    namespaces are restricted and names the fix; `sbox run` fails with
    it and its command never runs; the daemon goes on answering."""
    d = restricted_daemon(ctx, "seccomp")
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    e = create_fails(ctx, d, proj)
    assert e.name == "sbox.SandboxUnavailable", e
    assert "the sandbox cannot start: user namespaces are restricted" in \
        e.message, e.message
    assert "fix: " in e.message, e.message
    marker = os.path.join(proj, "ran")
    r = d.cli("run", "--sandbox", "workspace", "--", "sh", "-c",
              "touch '%s'" % marker)
    err = r.stderr.decode()
    assert r.returncode != 0, err
    assert "user namespaces are restricted" in err, err
    assert not os.path.exists(marker)
    c = d.client()
    assert c.call("daemon.status") is not None
    c.close()


def test_userns_max_user_namespaces_zero_names_the_sysctl(ctx):
    """A user whose user.max_user_namespaces is 0 (in a namespace of the
    test's own): the check and session.create name the sysctl and the
    command that fixes it. Not as root: that namespace would make sboxd
    root of a namespace without the host's privileges, which is not the
    machine this stands in for (the seccomp stand-in covers root)."""
    if sboxtest.is_root():
        raise Skip("as root the private namespace would take sboxd's "
                   "host privileges away; the seccomp stand-in covers root")
    d = restricted_daemon(ctx, "max0")
    rc, chk, by = check(d)
    assert rc == 1, chk
    fix = "`sudo sysctl user.max_user_namespaces=15000`"
    p = by["userns_probe"]
    assert p["ok"] is False and "user.max_user_namespaces is 0" in \
        p["detail"] and fix in p["detail"], p
    assert "No space left on device" in p["detail"], p
    assert fix in by["userns"]["detail"], by["userns"]
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    e = create_fails(ctx, d, proj)
    assert e.name == "sbox.SandboxUnavailable", e
    assert "user namespaces are restricted" in e.message and \
        fix in e.message, e.message
    # the proxy, which jails itself in a user namespace as a user, says
    # the same in the log
    sboxtest.wait_for(lambda: "proxy: cannot jail itself in a user "
                      "namespace: user namespaces are restricted: "
                      "user.max_user_namespaces is 0" in d.read_log(),
                      what="the proxy's reason in the log")


def test_userns_probe_ok_where_nothing_restricts(ctx):
    """Without a stand-in the probe makes a namespace and the check's step
    is ok; as root it says the unprivileged switches do not apply."""
    d = ctx.daemon(name="free")
    rc, chk, by = check(d)
    p = by["userns_probe"]
    assert p["ok"] is True, p
    if sboxtest.is_root():
        assert p["detail"].startswith("as root, "), p
    else:
        assert "a user namespace was made and its uid mapped" in \
            p["detail"], p
    assert by["userns"]["ok"] is True, by["userns"]
