"""What a person approves is what runs (issue 12, item 4), tried from
inside a real sandbox as an attacker would, through the session channel:
a library to preload, an injected PATH or GIT_SSH_COMMAND, a program in
the project shadowing a host one, a program the sandbox wrote, and a folder
swapped for a symlink between the prompt and the run. And `sbox approvals
--watch` outliving a restart of sboxd (issue 15).

They pass as root and as an unprivileged user."""
import base64
import json
import os
import shutil
import signal
import subprocess
import time

import sboxtest
from sboxtest import RpcError, Skip, wait_for

PRELOAD_C = r"""
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void pwn(void) {
    int fd = open("%s", O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) { write(fd, "preloaded\n", 10); close(fd); }
}
"""


def out(r):
    return base64.b64decode(r.get("stdout") or "").decode()


def host_path(d):
    return d.env()["PATH"]


def which(d, name):
    p = shutil.which(name, path=host_path(d))
    assert p, "no %s on the host" % name
    return os.path.realpath(p)


class Box:
    """A daemon, an approver on the host, and a sandboxed session whose
    commands reach sboxd through their channel (./sbox in the project)."""

    def __init__(self, ctx, daemon=None):
        self.ctx = ctx
        self.d = daemon or ctx.daemon()
        self.proj = os.path.realpath(os.path.join(ctx.tmp, "proj"))
        os.makedirs(self.proj, exist_ok=True)
        shutil.copy(sboxtest.sbox_for_sandbox(),
                    os.path.join(self.proj, "sbox"))
        self.c = self.d.client()
        self.a = self.d.client()
        self.a.call("events.subscribe", {"topics": ["approval.requested",
                                                    "approval.decided"]})
        try:
            self.sid = self.c.call("session.create", {
                "project": self.proj, "sandbox": "workspace",
                "env": {"PATH": "/usr/bin:/bin"}})["session"]
        except RpcError as e:
            if e.name in ("sbox.SandboxUnavailable",
                          "sbox.SandboxSetupFailed"):
                raise Skip("no sandbox here: %s" % e.message)
            raise
        try:
            self.inside("./sbox version >/dev/null")
        except AssertionError as e:
            raise Skip("no session channel here: %s" % e)

    def inside(self, script, channel=True):
        """Run a shell script in the sandbox; its stdout."""
        r = self.c.call("command.exec", {"session": self.sid, "channel":
                                         channel, "argv": ["sh", "-c",
                                                           script]})
        assert r["exit_code"] == 0, (script, r, base64.b64decode(
            r["stderr"]))
        return out(r)

    def ask(self, argv, env=None, cwd=None, reason="needs the host"):
        """From inside, ask through the channel (sbox session outside);
        returns (the asker, its request id, the request the approver
        sees)."""
        args = ["./sbox", "session", "outside", self.sid, "--reason",
                reason]
        if cwd is not None:
            args += ["--cwd", cwd]
        for k, v in (env or {}).items():
            args += ["--env", "%s=%s" % (k, v)]
        asker = self.d.client()
        rid = asker.send("command.exec", {
            "session": self.sid, "channel": True,
            "argv": args + ["--"] + argv})
        req = self.a.wait_notification(
            "events.event", lambda p: p["topic"] == "approval.requested",
            timeout=15)["data"]
        self.a.notifications.clear()
        return asker, rid, req

    def decide(self, req, decision="allow_once"):
        self.a.call("approval.decide", {"approval": req["approval"],
                                        "decision": decision})

    def record(self, aid):
        for r in self.c.call("audit.list", {})["approvals"]:
            if r["approval"] == aid:
                return r
        raise AssertionError("approval %d not in the audit" % aid)


def build_preload(ctx, dest, marker):
    """A real shared library whose constructor writes marker; proven to
    work on the host before it is used."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise Skip("no C compiler to build the library")
    src = os.path.join(ctx.tmp, "preload.c")
    with open(src, "w") as f:
        f.write(PRELOAD_C % marker)
    subprocess.run([cc, "-shared", "-fPIC", "-o", dest, src], check=True)
    subprocess.run(["true"], env={"LD_PRELOAD": dest}, check=True)
    assert os.path.exists(marker), "the test library does not work"
    os.unlink(marker)


def test_preload_and_injected_variables_are_dropped(ctx):
    b = Box(ctx)
    marker = os.path.join(ctx.tmp, "preload-ran")
    so = os.path.join(b.proj, "evil.so")
    build_preload(ctx, so, marker)
    script = ("id -u; echo \"tz=$TZ\"; "
              "echo \"preload=${LD_PRELOAD-unset}\"; echo \"path=$PATH\"; "
              "echo \"ssh=${GIT_SSH_COMMAND-unset}\"; "
              "echo \"tag=${RELEASE_TAG-unset}\"")
    env = {"LD_PRELOAD": so, "PATH": b.proj + ":/usr/bin:/bin",
           "GIT_SSH_COMMAND": "touch %s" % marker, "RELEASE_TAG": "v1.2",
           "BASH_ENV": so, "PYTHONPATH": b.proj, "TZ": "Europe/Paris"}
    asker, rid, req = b.ask(["sh", "-c", script], env=env)
    # The approver sees exactly what runs.
    assert req["argv"] == ["sh", "-c", script], req
    assert req["program"] == which(b.d, "sh"), req
    assert req["program_writable"] is False, req
    assert req["cwd"] == b.proj and req["cwd_writable"] is True, req
    # an allow list: only names safe to take from inside pass
    assert req["env"] == {"TZ": "Europe/Paris"}, req
    assert req["env_dropped"] == ["BASH_ENV", "GIT_SSH_COMMAND",
                                  "LD_PRELOAD", "PATH", "PYTHONPATH",
                                  "RELEASE_TAG"], req
    # So does `sbox approvals`.
    p = b.d.cli("approvals")
    text = p.stdout.decode()
    assert "runs %s" % req["program"] in text, text
    assert "in %s  (the sandbox can write this folder)" % b.proj in text, text
    assert "adds TZ=Europe/Paris" in text, text
    assert ("drops BASH_ENV, GIT_SSH_COMMAND, LD_PRELOAD, PATH, PYTHONPATH, "
            "RELEASE_TAG" in text), text
    b.decide(req)
    res = asker.result(asker.wait_reply(rid))
    assert res["exit_code"] == 0, res
    lines = out(res).splitlines()
    assert lines[0] == str(os.geteuid()), lines
    assert "tz=Europe/Paris" in lines and "preload=unset" in lines, lines
    assert "tag=unset" in lines, lines
    assert "ssh=unset" in lines, lines
    assert "path=%s" % host_path(b.d) in lines, lines
    assert not os.path.exists(marker), "the sandbox's library was loaded"
    # The audit has exactly what ran.
    rec = b.record(req["approval"])
    assert rec["decision"] == "allow_once" and rec["exit_code"] == 0, rec
    for k in ("argv", "program", "program_writable", "cwd", "cwd_writable",
              "env", "env_dropped"):
        assert rec[k] == req[k], (k, rec, req)
    p = b.d.cli("audit", "--session", b.sid)
    text = p.stdout.decode()
    assert "runs %s" % req["program"] in text, text
    assert "adds TZ=Europe/Paris" in text and "LD_PRELOAD" in text, text
    e = b.c.error("command.run_outside", {"session": b.sid, "argv": ["true"],
                                          "reason": "x", "env": {"N": 1}})
    assert e.name == "sbox.InvalidParams" and e.field == "env", e


def test_project_git_never_shadows_the_hosts(ctx):
    b = Box(ctx)
    host_git = shutil.which("git", path=host_path(b.d))
    if host_git is None:
        raise Skip("no git on the host")
    marker = os.path.join(ctx.tmp, "shadow-ran")
    # The sandbox writes its own `git` in the project and a bin/ folder.
    b.inside("mkdir -p bin; for f in git bin/git; do "
             "printf '#!/bin/sh\\necho shadow >> %s\\n' > $f; chmod +x $f; "
             "done" % marker)
    asker, rid, req = b.ask(["git", "--version"], env={
        "PATH": "%s:%s/bin:/usr/bin:/bin" % (b.proj, b.proj),
        "GIT_EXEC_PATH": b.proj + "/bin", "GIT_SSH_COMMAND": "sh " + marker})
    assert req["program"] == os.path.realpath(host_git), req
    assert not req["program"].startswith(b.proj), req
    assert req["program_writable"] is False, req
    assert req["env"] == {}, req
    assert req["env_dropped"] == ["GIT_EXEC_PATH", "GIT_SSH_COMMAND",
                                  "PATH"], req
    b.decide(req)
    res = asker.result(asker.wait_reply(rid))
    assert res["exit_code"] == 0, res
    assert out(res).startswith("git version"), res
    assert not os.path.exists(marker), "the project's git ran"
    assert b.record(req["approval"])["program"] == req["program"]


def test_shadow_git_with_a_relative_host_path(ctx):
    """Even when the person's own PATH has '.' or an empty entry, the
    program is never taken from the request's folder."""
    d = ctx.daemon(start=False)
    base_env = d.env
    d.env = lambda: dict(base_env(), PATH=":.:" + base_env()["PATH"])
    d.start()
    b = Box(ctx, d)
    marker = os.path.join(ctx.tmp, "shadow-ran")
    b.inside("printf '#!/bin/sh\\necho shadow >> %s\\n' > git; chmod +x git"
             % marker)
    if shutil.which("git", path=base_env()["PATH"]) is None:
        raise Skip("no git on the host")
    asker, rid, req = b.ask(["git", "--version"])
    assert req["program"] == which(d, "git") != os.path.join(b.proj, "git")
    assert not req["program"].startswith(b.proj), req
    b.decide(req)
    res = asker.result(asker.wait_reply(rid))
    assert out(res).startswith("git version"), res
    assert not os.path.exists(marker)


def test_program_written_by_the_sandbox_never_runs_outside(ctx):
    """A program the sandbox could write is refused at once, with the
    reason, and the person sees it; a host program is asked for."""
    b = Box(ctx)
    marker = os.path.join(ctx.tmp, "tool-ran")
    b.inside("mkdir -p tools; printf '#!/bin/sh\\necho ran >> %s\\n' > "
             "tools/release.sh; chmod +x tools/release.sh" % marker)
    asker = b.d.client()
    r = asker.call("command.exec", {
        "session": b.sid, "channel": True, "argv": [
            "./sbox", "session", "outside", b.sid, "--reason", "release",
            "--", "./tools/release.sh"]})
    assert r["exit_code"] == 77, r
    err = base64.b64decode(r["stderr"]).decode()
    assert "may never run outside" in err, err
    assert "folder the sandbox can write" in err, err
    dec = b.a.wait_notification(
        "events.event", lambda p: p["topic"] == "approval.decided",
        timeout=15)["data"]
    b.a.notifications.clear()
    assert dec["program"] == os.path.join(b.proj, "tools/release.sh"), dec
    assert dec["program_writable"] is True, dec
    assert dec["decision"] == "deny", dec
    assert dec["decided_by"].startswith("sboxd: unsafe:"), dec
    assert not os.path.exists(marker)
    rec = b.record(dec["approval"])
    assert rec["program_writable"] is True and rec["decision"] == "deny"
    # the same through a symlink from a host folder is the same file
    b.inside("ln -sf %s/tools/release.sh tools/link" % b.proj)
    e = b.c.error("command.run_outside", {"session": b.sid, "reason": "x",
                                          "argv": [b.proj + "/tools/link"]})
    assert e.name == "sbox.Denied" and "may never run" in e.message, e
    assert not os.path.exists(marker)
    # A host program is asked for, not marked.
    asker, rid, req = b.ask(["true"])
    assert req["program_writable"] is False, req
    b.decide(req, "deny")
    asker.result(asker.wait_reply(rid))


def test_folder_swapped_for_a_symlink_after_the_prompt(ctx):
    b = Box(ctx)
    elsewhere = os.path.join(ctx.tmp, "elsewhere")
    os.makedirs(elsewhere)
    os.chmod(elsewhere, 0o777)
    b.inside("mkdir -p sub && echo orig > sub/orig-marker")
    script = "pwd -P; ls; touch ran-here"
    asker, rid, req = b.ask(["sh", "-c", script], cwd="sub")
    assert req["cwd"] == os.path.join(b.proj, "sub"), req
    # Between the prompt and the decision, the sandbox swaps the folder.
    b.inside("mv sub sub.orig && ln -s %s sub" % elsewhere)
    assert os.path.islink(os.path.join(b.proj, "sub"))
    b.decide(req)
    res = asker.result(asker.wait_reply(rid))
    assert os.listdir(elsewhere) == [], "ran in the folder swapped in"
    # It ran in the folder that was approved (now renamed).
    assert res["exit_code"] == 0, res
    lines = out(res).splitlines()
    assert lines[0] == os.path.join(b.proj, "sub.orig"), lines
    assert "orig-marker" in lines, lines
    assert os.path.exists(os.path.join(b.proj, "sub.orig", "ran-here"))
    rec = b.record(req["approval"])
    assert rec["cwd"] == os.path.join(b.proj, "sub"), rec
    # A folder that is a symlink when asked is shown resolved, and held.
    b.inside("ln -s sub.orig sub2")
    asker, rid, req = b.ask(["pwd", "-P"], cwd="sub2")
    assert req["cwd"] == os.path.join(b.proj, "sub.orig"), req
    b.decide(req, "deny")
    asker.result(asker.wait_reply(rid))
    # A relative folder leading out of the project is refused.
    e = b.c.error("command.run_outside", {"session": b.sid, "argv": ["true"],
                                          "reason": "x", "cwd": "sub"})
    assert e.name == "sbox.InvalidParams" and e.field == "cwd", e


def read_file(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def test_watch_reconnects_after_a_restart(ctx):
    d = ctx.daemon()
    proj = os.path.join(ctx.tmp, "p")
    os.makedirs(proj)
    so, se = os.path.join(ctx.tmp, "w.out"), os.path.join(ctx.tmp, "w.err")
    with open(so, "wb") as fo, open(se, "wb") as fe:
        w = subprocess.Popen([os.path.join(sboxtest.BIN, "sbox"), "approvals",
                              "--watch"], env=d.env(), stdin=subprocess.PIPE,
                             stdout=fo, stderr=fe, start_new_session=True)
    try:
        wait_for(lambda: "Watching" in read_file(so), 15, what="the watcher")
        wait_for(lambda: d.client().call("daemon.status"))
        # sboxd stops and comes back (as a service manager restarts it).
        d.stop()
        time.sleep(0.3)
        assert w.poll() is None, ("the watcher exited", read_file(se))
        d.start()
        wait_for(lambda: "reconnected" in read_file(se), 20,
                 what="the watcher to reconnect")
        assert "lost the connection to sboxd" in read_file(se), read_file(se)
        # It asks again: a request waits for it (no headless refusal).
        c = d.client()
        sid = c.call("session.create", {"project": proj,
                                        "sandbox": "none"})["session"]
        rid = c.send("command.run_outside", {
            "session": sid, "argv": ["sh", "-c", "echo $TZ"],
            "env": {"TZ": "after/restart", "LD_AUDIT": "/x.so"},
            "reason": "after the restart"})
        wait_for(lambda: "[d] Deny" in read_file(so), 15,
                 what="the prompt after the restart")
        text = read_file(so)
        assert "runs %s" % which(d, "sh") in text, text
        assert "in %s" % os.path.realpath(proj) in text, text
        assert "adds TZ=after/restart" in text, text
        assert "drops LD_AUDIT" in text, text
        w.stdin.write(b"a")
        w.stdin.flush()
        res = c.result(c.wait_reply(rid))
        assert res["exit_code"] == 0 and out(res) == "after/restart\n", res
        # Killed outright, too.
        d.kill()
        d.start()
        wait_for(lambda: read_file(se).count("reconnected") >= 2, 20,
                 what="the watcher to reconnect after SIGKILL")
    finally:
        w.send_signal(signal.SIGTERM)
        try:
            w.wait(10)
        except subprocess.TimeoutExpired:
            w.kill()
            w.wait()
            raise AssertionError("sbox approvals --watch ignored SIGTERM")
    assert w.returncode == 0, (w.returncode, read_file(se))


def test_watch_stops_while_waiting_for_sboxd(ctx):
    d = ctx.daemon()
    se = os.path.join(ctx.tmp, "w.err")
    with open(se, "wb") as fe:
        w = subprocess.Popen([os.path.join(sboxtest.BIN, "sbox"), "approvals",
                              "--watch"], env=d.env(), stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=fe,
                             start_new_session=True)
    wait_for(lambda: d.client().call("approval.list", {}) is not None)
    time.sleep(0.3)
    d.stop()
    wait_for(lambda: "reconnecting" in read_file(se), 10,
             what="the watcher to notice")
    w.send_signal(signal.SIGINT)
    assert w.wait(10) == 0, read_file(se)


def test_identical_requests_join_and_floods_are_rate_limited(ctx):
    """Identical requests while one waits join it (one row, one prompt);
    different ones above the burst are refused at once with
    sbox.RateLimited, counted, not stored; the person hears of it once."""
    d = ctx.daemon()
    c = d.client()
    a = d.client()
    a.call("events.subscribe", {"topics": ["approval.requested",
                                           "approval.rate_limited"]})
    proj = os.path.join(ctx.tmp, "p")
    os.makedirs(proj)
    sid = c.call("session.create", {"project": proj,
                                    "sandbox": "none"})["session"]
    askers = []
    for i in range(8):
        k = d.client()
        k.send("command.run_outside", {"session": sid, "argv": ["true"],
                                       "reason": "same"})
        askers.append(k)
    wait_for(lambda: len(c.call("approval.list", {})["approvals"]) == 1)
    # four more different ones: 5 wait at once (the burst)
    for i in range(4):
        k = d.client()
        k.send("command.run_outside", {"session": sid, "argv": ["true", str(i)],
                                       "reason": "flood %d" % i})
        askers.append(k)
    wait_for(lambda: len(c.call("approval.list", {})["approvals"]) == 5)
    for i in range(30):
        e = c.error("command.run_outside", {"session": sid, "argv": [
            "true", "x%d" % i], "reason": "one too many"})
        assert e.name == "sbox.RateLimited", e
    assert len(c.call("audit.list", {"session": sid})["approvals"]) == 5
    note = a.wait_notification(
        "events.event", lambda p: p["topic"] == "approval.rate_limited",
        10)["data"]
    assert note["session"] == sid and note["burst"] == 5, note
    for i in range(5):
        a.wait_notification("events.event", lambda p: p["topic"] ==
                            "approval.requested", 10)
    a.call("approval.list", {})     # everything published before is read
    left = [n["params"]["topic"] for n in a.notifications
            if n.get("method") == "events.event"]
    assert left == [], left         # one notice, five prompts, no more
    for k in askers:
        k.close()
    wait_for(lambda: c.call("approval.list", {})["approvals"] == [])


def test_watch_shows_refusals_and_floods(ctx):
    """The person watching sees why a written program was refused, and one
    line per flood of requests."""
    d = ctx.daemon()
    proj = os.path.join(ctx.tmp, "p")
    os.makedirs(proj)
    script = os.path.join(proj, "tool.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\ntrue\n")
    os.chmod(script, 0o755)
    so = os.path.join(ctx.tmp, "w.out")
    with open(so, "wb") as fo:
        w = subprocess.Popen([os.path.join(sboxtest.BIN, "sbox"), "approvals",
                              "--watch"], env=d.env(), stdin=subprocess.PIPE,
                             stdout=fo, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        wait_for(lambda: "Watching" in read_file(so), 15, what="the watcher")
        c = d.client()
        sid = c.call("session.create", {"project": proj,
                                        "sandbox": "none"})["session"]
        e = c.error("command.run_outside", {"session": sid, "reason": "x",
                                            "argv": ["./tool.sh"]})
        assert e.name == "sbox.Denied", e
        wait_for(lambda: "may never run outside" in read_file(so), 15,
                 what="the refusal line")
        assert "tool.sh" in read_file(so)
        for i in range(30):
            try:
                c.call("command.run_outside", {"session": sid, "reason": "x",
                                               "argv": ["./tool.sh", str(i)]})
            except RpcError:
                pass
        wait_for(lambda: "asks too often" in read_file(so), 15,
                 what="the flood line")
        # the refusals before the budget ran out are shown, the flood once
        assert read_file(so).count("asks too often") == 1, read_file(so)
    finally:
        w.send_signal(signal.SIGTERM)
        w.wait(10)


def test_env_names_that_load_code_are_dropped(ctx):
    """Issue 21, item 2: the environment of a run outside is an allow list.
    Names that make host tools load what the sandbox wrote (BASH_ENV for
    host bash, OPENSSL_CONF, VIMINIT, editors, pagers, *_RSH, modules,
    the session bus) never pass, whatever their spelling; a locale with a
    path for a value neither."""
    if shutil.which("bash") is None:
        raise Skip("no bash on the host")
    b = Box(ctx)
    marker = os.path.join(ctx.tmp, "bash-env-ran")
    b.inside("printf 'echo sourced >> %s\\n' > env.sh" % marker)
    names = {"BASH_ENV": b.proj + "/env.sh", "OPENSSL_CONF": b.proj + "/o.cnf",
             "VIMINIT": "source " + b.proj + "/v", "KUBE_EDITOR": "x",
             "GH_PAGER": "x", "GIT_PAGER": "x", "RSYNC_RSH": "x",
             "GIO_EXTRA_MODULES": b.proj, "GTK_MODULES": "x",
             "DBUS_SESSION_BUS_ADDRESS": "unix:path=" + b.proj + "/bus",
             "GIT_CONFIG_GLOBAL": b.proj + "/g", "lang": "C",
             "LANG": b.proj + "/locale", "LC_ALL": "C.UTF-8"}
    script = ("env | cut -d= -f1 | sort > %s/host-env-names; echo ok"
              % ctx.tmp)
    asker, rid, req = b.ask(["bash", "-c", script], env=names)
    assert req["env"] == {"LC_ALL": "C.UTF-8"}, req
    assert sorted(req["env_dropped"]) == sorted(
        k for k in names if k != "LC_ALL"), req
    b.decide(req)
    res = asker.result(asker.wait_reply(rid))
    assert res["exit_code"] == 0 and out(res) == "ok\n", res
    assert not os.path.exists(marker), "host bash sourced the sandbox's file"
    with open(os.path.join(ctx.tmp, "host-env-names")) as f:
        seen = set(f.read().split())
    for k in names:
        if k in ("LC_ALL", "LANG"):
            continue
        # only the person's own value could be there, never the request's
        assert k not in seen or k in b.d.env(), (k, seen)
