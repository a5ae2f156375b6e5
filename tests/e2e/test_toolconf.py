"""Registries wherever the tools are (issue 14, item 4): a sboxd started
with a minimal PATH (as a systemd user service is) still asks the npm that
lives in a version manager's folder in the home folder, falls back to npm's
own configuration files when that npm cannot answer, and
`sbox sandbox show workspace` says where each registry came from.

The fake tools answer registry URLs on loopback chosen here."""
import json
import os

import sboxtest

NVM_URL = "http://127.0.0.1:4873/"
GLOBAL_URL = "http://127.0.0.2:4874/"


def fake_npm(path, url):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        if url is None:   # an npm whose node is missing: no answer
            f.write("#!/bin/sh\nexit 127\n")
        else:
            f.write("#!/bin/sh\n[ \"$1 $2 $3\" = \"config get registry\" ] "
                    "&& echo '%s'\n" % url)
    os.chmod(path, 0o755)


def sources(c):
    r = c.call("sandbox.show", {"profile": "workspace"})
    return {s["host"]: s["source"] for s in r["registry_sources"]}, r


def test_npm_in_version_manager_folder(ctx):
    d = ctx.daemon(start=False)
    nvm_npm = os.path.join(d.home, ".nvm", "versions", "node", "v20.11.0",
                           "bin", "npm")
    fake_npm(nvm_npm, NVM_URL)
    # an older version beside it is asked too, after the newest
    fake_npm(os.path.join(d.home, ".nvm", "versions", "node", "v9.0.0",
                          "bin", "npm"), None)
    # volta's npm gives no answer: its global npmrc is read instead
    volta_npm = os.path.join(d.home, ".volta", "bin", "npm")
    fake_npm(volta_npm, None)
    os.makedirs(os.path.join(d.home, ".volta", "etc"))
    with open(os.path.join(d.home, ".volta", "etc", "npmrc"), "w") as f:
        f.write("; global\nregistry = %s\n" % GLOBAL_URL)
    base = d.env

    def env():
        e = base()
        e["PATH"] = "/usr/bin:/bin"
        return e
    d.env = env
    d.start()
    c = d.client()
    src, r = sboxtest.wait_for(
        lambda: (lambda s: s if "127.0.0.1:4873" in s[0] and
                 "127.0.0.2:4874" in s[0] else None)(sources(c)),
        timeout=20, what="the registries of npm in the home folder")
    assert "127.0.0.1:4873" in r["registry_hosts"], r
    assert nvm_npm in src["127.0.0.1:4873"], src
    assert "config get registry" in src["127.0.0.1:4873"], src
    assert ".volta/etc/npmrc" in src["127.0.0.2:4874"], src
    out = d.cli("sandbox", "show", "workspace").stdout.decode()
    assert "127.0.0.1:4873: from npm config get registry (%s)" % nvm_npm \
        in out, out
    # a session of workspace reaches it through its proxy's allowlist
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    sid = c.call("session.create", {"project": proj,
                                    "sandbox": "workspace"})["session"]
    res = c.call("command.exec", {"session": sid, "argv": ["sh", "-c",
                 "curl --noproxy '' -sS -m 10 -o /dev/null %s 2>&1; true" % NVM_URL]})
    hosts = res["blocked"]["hosts"]
    # allowed by the list; refused only as a loopback address
    assert hosts and hosts[0]["rule"] != "network allowlist", res
    with open(d.log, "rb") as f:
        log = f.read().decode(errors="replace")
    assert "127.0.0.1:4873" in log, log[-2000:]
