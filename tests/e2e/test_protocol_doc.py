"""protocol/PROTOCOL.md is kept in step with the daemon: every method that
rpc.hello lists, and every stable error name of protocol/error.h, must be
documented there.

A method counts as documented when a heading ("### `session.create`") or a
table row ("| `session.create` | ...") holds its exact name in backticks.
This fails as soon as someone adds a method without documenting it: that is
its purpose. The example exchanges that change nothing (errors of the
envelope, rpc.ping, batches) are also sent to a real daemon and its answers
compared with the documented ones; the Shapes table is checked by
test_protocol_shapes.py."""
import json
import os
import re

from sboxtest import Skip

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
DOC = os.path.join(SRC, "protocol", "PROTOCOL.md")
ERROR_H = os.path.join(SRC, "protocol", "error.h")


def _doc():
    if not os.path.exists(DOC):
        # tests/run.sh copies only bin/ and tests/e2e/ for the unprivileged
        # run; the check has been made by the run as the first user.
        raise Skip("%s is not in this copy of the tree" % DOC)
    with open(DOC, encoding="utf-8") as f:
        return f.read()


def documented_names(text):
    """Names in backticks on heading lines and table rows."""
    names = set()
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#") or s.startswith("|"):
            names.update(re.findall(r"`([^`\s]+)`", s))
    return names


def test_every_method_documented(ctx):
    text = _doc()
    d = ctx.daemon()
    methods = [m["name"] for m in
               d.client().call("rpc.hello", {"protocol": 1})["methods"]]
    assert methods, "rpc.hello listed no methods"
    have = documented_names(text)
    missing = [m for m in methods if m not in have]
    assert not missing, (
        "methods listed by rpc.hello but not documented in protocol/"
        "PROTOCOL.md (add a heading \"### `NAME`\" with params and an "
        "example in its group's section): %s" % ", ".join(missing))


def test_every_error_name_documented(ctx):
    text = _doc()
    with open(ERROR_H) as f:
        names = re.findall(r'#define\s+E_\w+\s+"([^"]+)"', f.read())
    assert "sbox.InvalidParams" in names, names
    have = documented_names(text)
    missing = [n for n in names if n not in have]
    assert not missing, ("error names of protocol/error.h missing from the "
                         "errors table of protocol/PROTOCOL.md: %s" %
                         ", ".join(missing))


SAFE_METHODS = {"rpc.ping", "rpc.hello", "nope"}


def examples(text):
    """(request text, answer JSON) pairs of the example exchanges: a `>`
    line and the `<` line right after it (continuation lines, indented,
    joined). Only requests that change nothing are taken: lines that are
    not valid requests at all, and calls of rpc.ping, rpc.hello and unknown
    methods; answers that are not plain JSON (with "...") are left out."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("> "):
            i += 1
            continue
        req = lines[i][2:]
        i += 1
        if i >= len(lines) or not lines[i].startswith("< "):
            continue
        ans = lines[i][2:]
        i += 1
        while i < len(lines) and lines[i].startswith("   "):
            ans += lines[i].strip()
            i += 1
        try:
            answer = json.loads(ans)
        except ValueError:
            continue
        try:
            msg = json.loads(req)
        except ValueError:
            out.append((req, answer))
            continue
        msgs = msg if isinstance(msg, list) else [msg]
        if all(not isinstance(m, dict) or m.get("method") in SAFE_METHODS or
               "method" not in m for m in msgs):
            out.append((req, answer))
    return out


def same_reply(doc, real, where):
    """A documented reply and a real one agree: the id, the error's code,
    name and field, the result's members."""
    assert real.get("id") == doc.get("id"), (where, doc, real)
    assert ("error" in real) == ("error" in doc), (where, doc, real)
    if "error" in doc:
        de, re_ = doc["error"], real["error"]
        assert de["code"] == re_["code"], (where, doc, real)
        assert de["data"].get("name") == re_["data"].get("name"), (where, real)
        assert de["data"].get("field") == re_["data"].get("field"), (where,
                                                                     real)
    else:
        assert set(doc["result"]) == set(real["result"]), (where, doc, real)


def test_examples_match_answers(ctx):
    """The example exchanges of PROTOCOL.md that change nothing are sent to
    a real daemon, and its answers match the documented ones."""
    text = _doc()
    pairs = examples(text)
    assert len(pairs) >= 8, pairs
    d = ctx.daemon()
    c = d.client()
    for req, doc in pairs:
        c.send_raw(req.encode() + b"\n")
        real = c.recv()
        while isinstance(real, dict) and "method" in real:
            real = c.recv()
        if isinstance(doc, list):
            assert isinstance(real, list) and len(real) == len(doc), (
                req, doc, real)
            by = {json.dumps(m.get("id")): m for m in real}
            for m in doc:
                same_reply(m, by[json.dumps(m.get("id"))], req)
        else:
            same_reply(doc, real, req)
