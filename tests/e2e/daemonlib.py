"""daemonlib: what the daemon core's end-to-end suites share (test_daemon,
test_daemon_life, test_cli): request lines, checking a JSON-RPC error,
running the sbox CLI against a private daemon, and whether a pid lives."""
import json
import os


def req(method, params=None, id=1):
    """One request line as bytes."""
    m = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        m["params"] = params
    return json.dumps(m, separators=(",", ":")).encode() + b"\n"


def check_error(reply, code, name, field=None, id="any"):
    """Assert that a reply is the JSON-RPC error expected."""
    assert reply is not None, "no reply (connection closed)"
    assert reply.get("jsonrpc") == "2.0", reply
    assert "error" in reply and "result" not in reply, reply
    e = reply["error"]
    assert e["code"] == code, "code %s, wanted %s: %r" % (e["code"], code, reply)
    assert isinstance(e.get("message"), str) and e["message"], reply
    assert e["data"]["name"] == name, reply
    if field is not None:
        assert e["data"].get("field") == field, \
            "field %r, wanted %r: %r" % (e["data"].get("field"), field, reply)
    if id != "any":
        assert reply.get("id") == id, "id %r, wanted %r" % (reply.get("id"), id)


def ping_ok(client):
    r = client.call("rpc.ping")
    assert r["pong"] is True, r


def sbox(d, *args, env=None, timeout=30):
    return d.cli(*args, env=env, timeout=timeout)


def out(r):
    return r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False
