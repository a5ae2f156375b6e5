"""The session channel: a sandboxed command talks to sboxd through the
descriptor it was given (SBOX_CHANNEL_FD), scoped to its own session."""
import base64
import os
import shutil

import sboxtest


def _run(c, sid, script, channel=True):
    r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c", script],
                                "channel": channel})
    return (r["exit_code"], base64.b64decode(r["stdout"]).decode(),
            base64.b64decode(r["stderr"]).decode())


def _setup(ctx):
    d = ctx.daemon()
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    shutil.copy(sboxtest.sbox_for_sandbox(), os.path.join(proj, "sbox"))
    c = d.client()
    sid = c.call("session.create", {"project": proj, "sandbox": "workspace",
                                    "env": {"PATH": "/usr/bin:/bin"}})["session"]
    other = c.call("session.create", {"project": proj, "sandbox": "none",
                                      "env": {"PATH": "/usr/bin:/bin"}})["session"]
    return d, c, proj, sid, other


def test_channel_scoped_to_its_session(ctx):
    d, c, proj, sid, other = _setup(ctx)
    code, out, err = _run(c, sid, "./sbox --json session list")
    assert code == 0, err
    assert sid in out and other not in out
    code, out, err = _run(c, sid, "./sbox session info %s" % other)
    assert code == 1 and "no live session" in err
    # host-only and unscoped methods are refused
    code, out, err = _run(c, sid, "./sbox daemon status")
    assert code == 1 and "not available from inside a sandbox" in err
    code, out, err = _run(c, sid, "./sbox daemon stop")
    assert code == 1
    assert c.call("rpc.ping")["pong"]
    code, out, err = _run(c, sid, "./sbox events")
    assert code == 1 and "not available from inside a sandbox" in err
    # without a channel there is no way to the daemon at all
    code, out, err = _run(c, sid, "./sbox --no-start daemon status", channel=False)
    assert code == 69, (code, err)


def test_channel_child_sessions_narrowed(ctx):
    d, c, proj, sid, other = _setup(ctx)
    # turning the sandbox off is refused
    code, out, err = _run(c, sid, "./sbox session create --project . --sandbox none")
    assert code == 1 and "widen" in err, err
    # a folder the parent cannot write is refused
    code, out, err = _run(c, sid, "./sbox session create --project / --sandbox strict")
    assert code == 1 and "only work in a folder" in err, err
    # a stricter child in the same project works, and its commands run
    code, out, err = _run(c, sid, "child=$(./sbox session create --project . "
                          "--sandbox strict) && ./sbox session exec $child -- "
                          "sh -c 'echo in-child' && echo $child")
    assert code == 0, err
    assert "in-child" in out
    child = out.split()[-1]
    info = c.call("session.info", {"session": child})
    assert info["parent"] == sid and info["profile"] == "strict"
    # closing the parent closes the child
    c.call("session.close", {"session": sid})
    sboxtest.wait_for(lambda: not c.call("session.info", {"session": child})["live"],
                      what="child session to close")


def test_channel_cannot_approve(ctx):
    d, c, proj, sid, other = _setup(ctx)
    code, out, err = _run(c, sid, "./sbox approve 1")
    assert code == 1 and "not available from inside a sandbox" in err, (code, err)


def test_channel_child_sessions_limited(ctx):
    d, c, proj, sid, other = _setup(ctx)
    limit = c.call("rpc.hello", {"protocol": 1})["limits"]["max_sessions_per_session"]
    code, out, err = _run(c, sid, "i=0; while [ $i -lt %d ]; do "
                          "./sbox session create --project . --sandbox strict "
                          ">/dev/null || exit 9; i=$((i+1)); done; "
                          "./sbox session create --project . --sandbox strict"
                          % limit)
    assert code == 1 and "at most %d sessions" % limit in err, (code, err)
    kids = [s for s in c.call("session.list")["sessions"] if s.get("parent") == sid]
    assert len(kids) == limit
    c.call("session.close", {"session": sid})
    sboxtest.wait_for(lambda: not [s for s in c.call("session.list")["sessions"]
                                   if s.get("parent") == sid],
                      what="the children to close with their parent")

