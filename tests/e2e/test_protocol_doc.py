"""protocol/PROTOCOL.md is kept in step with the daemon: every method that
rpc.hello lists, and every stable error name of protocol/error.h, must be
documented there.

A method counts as documented when a heading ("### `session.create`") or a
table row ("| `session.create` | ...") holds its exact name in backticks.
This fails as soon as someone adds a method without documenting it: that is
its purpose."""
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
