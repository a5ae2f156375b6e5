"""The spare child sbox-init forks ahead of the next command (its file
guard already in place, issue 24): a process of the sandbox that stops it
does not stop the next command, nor sbox-init; the command still runs under
the guard, with its own stdio and nothing of sbox-init's descriptors."""
import os

import sboxtest
from sandboxlib import create, make_project, run

# an orphan (its command has ended: sbox-init forks a spare then) that
# stops the first sbox-init child it sees, and says which in the project
HUNT = r"""
i=0
while [ $i -lt 1000 ]; do
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$p" = 1 ] && continue
    read -r comm < $d/comm 2>/dev/null || continue
    if [ "$comm" = init ]; then
      kill -STOP $p && echo $p > "$1/spare-stopped" && exit 0
    fi
  done
  i=$((i+1)); sleep 0.02
done
"""


def test_spare_stopped_from_inside(ctx):
    d = ctx.daemon()
    c = d.client()
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    s = create(c, proj)
    with open(os.path.join(proj, "hunt.sh"), "w") as f:
        f.write(HUNT)
    r = run(c, s, "setsid sh hunt.sh \"$PWD\" </dev/null >/dev/null 2>&1 &")
    assert r.code == 0, r
    marker = os.path.join(proj, "spare-stopped")
    sboxtest.wait_for(lambda: os.path.exists(marker) and
                      open(marker).read().strip(), timeout=30,
                      what="the sandbox to stop sbox-init's spare")
    # the next command runs all the same, under the guard, with its stdio
    r = run(c, s, "ls /proc/self/fd; echo x > .git/config")
    assert r.code != 0, r
    assert sorted(r.out.split()) == ["0", "1", "2", "3"], r
    assert any(b["path"].endswith(".git/config") for b in r.blocked), r
    assert "# original" in open(os.path.join(proj, ".git", "config")).read()
    r = run(c, s, "echo ok")
    assert (r.code, r.out) == (0, "ok\n"), r


def test_stderr_dev_null_goes_as_it_is(ctx):
    """stdio "fds" with /dev/null as stderr: the command holds /dev/null
    itself (a copy through sboxd could not be watched, and held the end of
    the command for the drain time)."""
    d = ctx.daemon()
    c = d.client()
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    s = create(c, proj)
    out = os.path.join(ctx.tmp, "out")
    with open(os.devnull, "r") as nul_in, open(out, "w") as o, \
            open(os.devnull, "w") as nul:
        res = c.call("command.exec", {
            "session": s, "stdio": "fds", "argv": [
                "sh", "-c", "readlink /proc/self/fd/2; echo err >&2"]},
            fds=[nul_in.fileno(), o.fileno(), nul.fileno()])
    assert res["exit_code"] == 0, res
    assert open(out).read() == "/dev/null\n"


def test_commands_start_with_default_signals(ctx):
    """Every command starts with no signal ignored, caught or blocked, the
    first (sbox-init may fork it) and those after (from a spare, which
    resets only what sbox-init does not leave at the default: SIGPIPE is
    ignored there)."""
    d = ctx.daemon()
    c = d.client()
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    s = create(c, proj)
    for _ in range(4):
        r = run(c, s, None, argv=["cat", "/proc/self/status"])
        assert r.code == 0, r
        sig = dict(line.split(":\t") for line in r.out.splitlines()
                   if line.startswith(("SigIgn", "SigBlk", "SigCgt")))
        assert sig == {"SigIgn": "0000000000000000",
                       "SigBlk": "0000000000000000",
                       "SigCgt": "0000000000000000"}, r.out
