"""A refusal told to the process it refused (issue 37 item 3): sbox-init
writes sboxd's `sbox: blocked:` line (what, the rule, what can be done) to
the refused process's own stderr while the call waits, so an agent that
runs a tool inside reads the reason in the tool's output. Only a stderr of
the command's making (a pipe, a socket or a file, not the command's own stderr,
which sboxd relays to its client who prints the line there), never a
terminal, never for a name the host lacks, and rate-limited."""
import os
import subprocess
import time

from sandboxlib import SECRET, run, write


def setup(ctx):
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    subprocess.run(["git", "init", "-q", proj], check=True)
    d = ctx.daemon({})
    home = d.home
    key = os.path.join(home, ".ssh", "id_test")
    write(key, SECRET + "\n", 0o600)
    if os.geteuid() == 0:
        for p in (proj,):
            for dp, dns, fns in os.walk(p):
                os.chmod(dp, 0o777)
    c = d.client()
    sid = c.call("session.create", {
        "project": proj, "sandbox": "workspace",
        "env": {"PATH": "/usr/bin:/bin", "HOME": home}})["session"]
    return c, sid, proj, key


# a tool's stderr of the command's making: a pipe ($(...) with 2>&1)
PIPED = 'out=$(%s 2>&1); printf "%%s\\n" "$out"'


def test_hidden_read_told_in_a_pipe(ctx):
    c, sid, proj, key = setup(ctx)
    r = run(c, sid, PIPED % ("cat " + key))
    assert SECRET not in r.out
    lines = [l for l in r.out.splitlines() if l.startswith("sbox: blocked:")]
    assert len(lines) == 1, r.out
    assert key in lines[0] or "~/.ssh/id_test" in lines[0], lines
    assert "retrying will not help" in lines[0]
    print(lines[0])
    assert "sbox session outside " + sid in lines[0], lines
    # told before cat's own error, which follows it
    assert r.out.index("sbox: blocked:") < r.out.index("cat:"), r.out
    # the person's copy is the result's, as before
    assert any(b["path"] == key for b in r.blocked), r.blocked


def test_hook_write_told_in_a_pipe(ctx):
    c, sid, proj, key = setup(ctx)
    r = run(c, sid, PIPED % "sh -c 'echo evil > .git/hooks/pre-commit'",
            cwd=proj)
    assert not os.path.exists(os.path.join(proj, ".git/hooks/pre-commit"))
    lines = [l for l in r.out.splitlines() if l.startswith("sbox: blocked:")]
    assert len(lines) == 1, r.out
    assert "pre-commit" in lines[0], lines
    print(lines[0])
    assert "refused" in lines[0]


def test_told_to_a_socket_stderr(ctx):
    """node's child_process gives a child a socket pair for stdio."""
    c, sid, proj, key = setup(ctx)
    code = ("import socket,subprocess,sys\n"
            "a,b=socket.socketpair()\n"
            "p=subprocess.Popen(['cat',%r],stderr=b,stdout=subprocess.DEVNULL)\n"
            "b.close();p.wait();a.settimeout(5)\n"
            "buf=b''\n"
            "try:\n"
            "  while True:\n"
            "    d=a.recv(65536)\n"
            "    if not d: break\n"
            "    buf+=d\n"
            "except Exception: pass\n"
            "sys.stdout.write(buf.decode())\n" % key)
    r = run(c, sid, None, argv=["python3", "-c", code])
    assert "sbox: blocked:" in r.out, (r.out, r.err)


def test_not_told_on_the_commands_own_stderr(ctx):
    c, sid, proj, key = setup(ctx)
    r = run(c, sid, "cat " + key)
    assert "sbox: blocked:" not in r.err, r.err
    assert any(b["path"] == key for b in r.blocked), r.blocked


def test_not_told_for_a_name_the_host_lacks(ctx):
    c, sid, proj, key = setup(ctx)
    r = run(c, sid, PIPED % ("cat " + os.path.join(os.path.dirname(key),
                                                   "absent")))
    assert "sbox: blocked:" not in r.out, r.out
    assert "No such file" in r.out


def test_not_told_on_a_terminal(ctx):
    c, sid, proj, key = setup(ctx)
    code = ("import os,pty,subprocess,sys,select\n"
            "m,s=os.openpty()\n"
            "p=subprocess.Popen(['cat',%r],stderr=s,stdout=subprocess.DEVNULL)\n"
            "os.close(s);p.wait();buf=b''\n"
            "while select.select([m],[],[],0.5)[0]:\n"
            "  try: d=os.read(m,4096)\n"
            "  except OSError: break\n"
            "  if not d: break\n"
            "  buf+=d\n"
            "sys.stdout.write(repr(buf))\n" % key)
    r = run(c, sid, None, argv=["python3", "-c", code])
    assert "No such file" in r.out, (r.out, r.err)
    assert "sbox: blocked" not in r.out, r.out


def test_a_flood_is_rate_limited_and_never_stalls(ctx):
    c, sid, proj, key = setup(ctx)
    t = time.monotonic()
    r = run(c, sid, 'out=$(i=0; while [ $i -lt 300 ]; do '
            'echo x > .git/hooks/h$i; i=$((i+1)); done 2>&1); '
            'printf "%s\\n" "$out"', cwd=proj)
    took = time.monotonic() - t
    lines = [l for l in r.out.splitlines() if l.startswith("sbox: blocked:")]
    assert 1 <= len(lines) <= 40, len(lines)
    assert not any(n.startswith("h") for n in
                   os.listdir(os.path.join(proj, ".git/hooks")))
    # 300 held answers wait 250 ms at most each only if sboxd never
    # answers; it does, so the loop is far from 75 s
    assert took < 60, took


def test_told_to_a_file_stderr(ctx):
    """Claude Code's Bash tool writes a command's output to a file."""
    c, sid, proj, key = setup(ctx)
    r = run(c, sid, "cat %s 2>/tmp/err.log; cat /tmp/err.log" % key)
    out = r.out
    assert out.count("sbox: blocked:") == 1, out
    assert out.index("sbox: blocked:") < out.index("cat:"), out


def test_a_read_only_stderr_is_never_written(ctx):
    """Escape attempt: a process whose stderr is a protected file opened
    read-only (.git/config, which the host's git runs commands from) makes
    a refusal happen, hoping sbox-init writes the line (with a path it
    chose) into that file. Checked on the host with git itself."""
    c, sid, proj, key = setup(ctx)
    cfg = os.path.join(proj, ".git", "config")
    with open(cfg, "rb") as f:
        before = f.read()
    evil = os.path.join(os.path.dirname(key), "[core]\n\tfsmonitor=touch PWNED")
    r = run(c, sid, "exec 2<%s; cat '%s' %s; true" % (cfg, evil, key),
            cwd=proj)
    with open(cfg, "rb") as f:
        assert f.read() == before
    g = subprocess.run(["git", "-C", proj, "config", "--list"],
                       capture_output=True, text=True)
    assert g.returncode == 0 and "fsmonitor" not in g.stdout, g
    assert "sbox: blocked:" not in r.out


def test_a_full_pipe_never_stalls(ctx):
    """A stderr pipe nobody reads, filled to the brim: the line is dropped,
    the command and the next one go on."""
    c, sid, proj, key = setup(ctx)
    code = ("import os,fcntl,sys\n"
            "r,w=os.pipe()\n"
            "fcntl.fcntl(w,fcntl.F_SETFL,os.O_NONBLOCK)\n"
            "try:\n"
            "  while True: os.write(w,b'x'*65536)\n"
            "except BlockingIOError: pass\n"
            "fcntl.fcntl(w,fcntl.F_SETFL,0)\n"
            "os.dup2(w,2)\n"
            "for i in range(50):\n"
            "  try: os.open(%r,os.O_RDONLY)\n"
            "  except OSError: pass\n"
            "sys.stdout.write('rc done\\n')\n" % key)
    t = time.monotonic()
    r = run(c, sid, None, argv=["python3", "-c", code], timeout=60)
    assert time.monotonic() - t < 30
    assert "rc" in r.out, (r.out, r.err)
    assert run(c, sid, "echo ok").out.strip() == "ok"
