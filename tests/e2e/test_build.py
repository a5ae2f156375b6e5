"""End-to-end checks of the build and the service files (issue 15, "Build
and services"): a second `make` does nothing, a test leaves nothing in the
temporary folder, sboxd tells systemd it is ready over $NOTIFY_SOCKET, the
systemd units pass `systemd-analyze verify` and say what the issue asks, the
launchd plist parses. Checks that need the source tree skip in the staged
copy the unprivileged run uses."""
import os
import plistlib
import re
import shutil
import signal
import socket
import subprocess
import time

import sboxtest
from sboxtest import Skip

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def source(*parts):
    p = os.path.join(ROOT, *parts)
    if not os.path.exists(p):
        raise Skip("%s is not in this copy of the tree" % os.path.join(*parts))
    return p


def test_make_twice_does_nothing(ctx):
    source("Makefile")
    if shutil.which("make") is None:
        raise Skip("no make")
    san = os.path.basename(sboxtest.BIN) == "bin-san"
    if os.path.basename(sboxtest.BIN) not in ("bin", "bin-san") or \
            os.path.dirname(os.path.abspath(sboxtest.BIN)) != ROOT:
        raise Skip("the binaries are not this tree's build")
    args = ["make", "-n", "-C", ROOT] + (["SAN=1"] if san else [])
    r = subprocess.run(args, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode()
    work = [l for l in r.stdout.decode().splitlines()
            if " -c -o " in l or "ar rcs" in l or re.search(r" -o bin", l)]
    assert not work, "make after make would build again:\n" + "\n".join(work[:20])


def test_tests_leave_nothing_behind(ctx):
    inner = sboxtest.Context()
    d = inner.daemon()
    proj = os.path.join(inner.tmp, "proj")
    os.makedirs(proj)
    r = d.cli("run", "--project", proj, "--", "sh", "-c", "echo x > out")
    assert r.returncode == 0, r.stderr
    # a daemon killed hard (its background questions to npm outlive it)
    d.kill()
    roots = [d.root, inner.tmp]
    inner.cleanup()
    time.sleep(1.5)
    left = [p for p in roots if os.path.exists(p)]
    assert not left, "left behind: %r" % left


def recv_ready(sock):
    sock.settimeout(15)
    msg = sock.recv(4096).decode()
    return msg


def test_sboxd_notifies_systemd(ctx):
    for abstract in (False, True):
        d = ctx.daemon(start=False, name="notify")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract:
            name = "@sbox-notify-test-%d" % os.getpid()
            s.bind("\0" + name[1:])
        else:
            name = os.path.join(d.root, "notify.sock")
            s.bind(name)
        env = d.env
        d.env = lambda: dict(env(), NOTIFY_SOCKET=name)
        d.start(wait=False)
        try:
            msg = recv_ready(s)
        finally:
            s.close()
        assert "READY=1" in msg.split("\n"), msg
        assert "MAINPID=%d" % d.proc.pid in msg, msg
        d.wait_ready()
        d.stop()


def test_systemd_units(ctx):
    svc = open(source("systemd", "sboxd.service.in")).read()
    sock = open(source("systemd", "sboxd.socket")).read()
    lines = [l.strip() for l in svc.splitlines() if not l.startswith("#")]
    for want in ("Type=notify", "Restart=on-failure", "UMask=0077",
                 "NoNewPrivileges=yes"):
        assert want in lines, want
    assert "WantedBy=default.target" not in lines, svc
    assert "Also=sboxd.socket" in lines or "[Install]" not in lines, svc
    assert "PrivateTmp" in svc and "ProtectSystem" in svc, \
        "the comment on the hardening left out is missing"
    assert "ListenStream=%t/sbox/sboxd.sock" in sock
    if shutil.which("systemd-analyze") is None:
        raise Skip("no systemd-analyze")
    tmp = os.path.join(ctx.tmp, "units")
    os.makedirs(tmp)
    # ExecStart must name a program that exists: this tree's build
    prefix = os.path.dirname(os.path.abspath(sboxtest.BIN))
    sboxd = os.path.join(prefix, "bin", "sboxd")
    if not os.path.exists(sboxd):
        raise Skip("no bin/sboxd beside the build")
    with open(os.path.join(tmp, "sboxd.service"), "w") as f:
        f.write(svc.replace("@PREFIX@", prefix))
    shutil.copy(source("systemd", "sboxd.socket"), tmp)
    r = subprocess.run(["systemd-analyze", "verify",
                        os.path.join(tmp, "sboxd.socket"),
                        os.path.join(tmp, "sboxd.service")],
                       capture_output=True, timeout=60)
    err = r.stderr.decode()
    if r.returncode != 0 and ("Failed to initialize manager" in err or
                              "Failed to lookup" in err):
        raise Skip("systemd-analyze cannot run here: " + err.strip())
    assert r.returncode == 0 and "sboxd" not in err, err


def test_launchd_plist(ctx):
    with open(source("launchd", "dev.sbox.sboxd.plist.in"), "rb") as f:
        raw = f.read()
    p = plistlib.loads(raw)
    assert p["Label"] == "dev.sbox.sboxd"
    assert p["ProcessType"] in ("Standard", "Adaptive"), p["ProcessType"]
    assert p["StandardErrorPath"], p
    assert "PATH" in p["EnvironmentVariables"], p
    assert p["Sockets"]["Listeners"]["SockType"] == "stream", p
    assert b"launchctl load" not in raw, "deprecated launchctl load"
    assert "/bin/sboxd" in p["ProgramArguments"][0]


def test_man_page(ctx):
    """The manual pages `make` made from docs/cli.md (docs/mkman.py): each
    command of the CLI's table is in one of them, and each renders without
    a warning."""
    mandir = os.path.join(sboxtest.BIN, "man")
    pages = sorted(os.path.join(mandir, f) for f in os.listdir(mandir)
                   if re.match(r".*\.[18]$", f)) \
        if os.path.isdir(mandir) else []
    if not pages:
        raise Skip("no manual pages in %s (made by make)" % mandir)
    text = {}
    for page in pages:
        text[page] = open(page).read()
        assert text[page].startswith(".\\\"") and ".TH " in text[page], page
    assert os.path.join(mandir, "sbox.1") in text and \
        os.path.join(mandir, "sboxd.8") in text, pages
    # every command of the CLI's table is in them
    d = ctx.daemon()
    import json
    cmds = json.loads(d.cli("--json", "help").stdout)["commands"]
    allpages = "".join(text.values())
    for c in cmds:
        name = "sbox %s%s" % (c["command"],
                              " " + c["subcommand"] if c["subcommand"] else "")
        assert name.replace("-", "\\-") in allpages, name
    if shutil.which("groff") is None:
        raise Skip("no groff")
    for page in pages:
        r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", page],
                           capture_output=True, timeout=60)
        assert r.returncode == 0 and r.stderr == b"", (page, r.stderr.decode())


def test_make_install_puts_man_page_and_completion(ctx):
    source("Makefile")
    if os.path.basename(sboxtest.BIN) != "bin" or \
            os.path.dirname(os.path.abspath(sboxtest.BIN)) != ROOT:
        raise Skip("the binaries are not this tree's plain build")
    dest = os.path.join(ctx.tmp, "dest")
    r = subprocess.run(["make", "-s", "-C", ROOT, "install", "DESTDIR=" + dest,
                        "PREFIX=/usr/local"], capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode()
    share = os.path.join(dest, "usr/local/share")
    assert os.path.exists(os.path.join(share, "man/man1/sbox.1"))
    assert os.path.exists(os.path.join(share, "man/man1/sbox-session.1"))
    assert os.path.exists(os.path.join(share, "man/man8/sboxd.8"))
    comp = open(os.path.join(share, "bash-completion/completions/sbox")).read()
    assert "complete -o default -F _sbox sbox" in comp
    svc = open(os.path.join(dest, "usr/local/lib/systemd/user/sboxd.service")).read()
    assert "@PREFIX@" not in svc and "/usr/local/bin/sboxd" in svc
