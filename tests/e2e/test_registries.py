"""Network "registries": the hosts come from the user's tools and the
defaults file, never from a project."""
import os
import stat

import sboxtest


def _daemon_with_tools(ctx, npm_url, defaults=None):
    """A daemon whose PATH has a fake npm answering npm_url."""
    tools = os.path.join(ctx.tmp, "tools")
    os.makedirs(tools, exist_ok=True)
    npm = os.path.join(tools, "npm")
    with open(npm, "w") as f:
        # npm must be asked to write no log file (it would land in ~/.npm)
        f.write("#!/bin/sh\n[ \"$1 $2 $3\" = \"config get registry\" ] && "
                "case \" $* \" in *' --logs-max=0 '*) echo '%s';; esac\n"
                % npm_url)
    os.chmod(npm, 0o755)
    d = ctx.daemon(start=False)
    base = d.env

    def env():
        e = base()
        e["PATH"] = tools + ":" + e["PATH"]
        if defaults is not None:
            e["SBOX_REGISTRIES_FILE"] = defaults
        return e
    d.env = env
    d.start()
    return d


def _registry_hosts(c):
    return c.call("sandbox.show", {"profile": "workspace"})["registry_hosts"]


def test_npm_registry_asked_from_the_tool(ctx):
    defaults = os.path.join(ctx.tmp, "registries")
    with open(defaults, "w") as f:
        f.write("# test defaults\npkgs.example.test\n*.code.example.test\n")
    d = _daemon_with_tools(ctx, "https://npm.mirror.example.test:8443/path/",
                           defaults)
    c = d.client()
    hosts = sboxtest.wait_for(
        lambda: (lambda h: h if "npm.mirror.example.test:8443" in h else None)(
            _registry_hosts(c)), timeout=15, what="npm's answer")
    assert "pkgs.example.test" in hosts and "*.code.example.test" in hosts
    # and a session's plan lets exactly those through its proxy
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    sid = c.call("session.create", {"project": proj, "sandbox": "workspace",
                                    "env": {"PATH": "/usr/bin:/bin"}})["session"]
    st = c.call("sandbox.status", {"session": sid})
    assert st["session"] == sid


def test_project_npmrc_is_not_read(ctx):
    defaults = os.path.join(ctx.tmp, "registries")
    with open(defaults, "w") as f:
        f.write("pkgs.example.test\n")
    d = _daemon_with_tools(ctx, "not a url", defaults)
    c = d.client()
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    with open(os.path.join(proj, ".npmrc"), "w") as f:
        f.write("registry=https://evil.example.test/\n")
    c.call("session.create", {"project": proj, "sandbox": "workspace",
                              "env": {"PATH": "/usr/bin:/bin"}})
    hosts = _registry_hosts(c)
    assert "evil.example.test" not in hosts
    assert "pkgs.example.test" in hosts, hosts
    # whatever else this computer's tools name (corepack's Yarn, ...), none
    # of it comes from the project
    show = c.call("sandbox.show", {"profile": "workspace"})
    for s in show["registry_sources"]:
        assert proj not in s["source"], s


def test_defaults_file_beside_sboxd(ctx):
    """Without $SBOX_REGISTRIES_FILE or /etc/sbox/registries, sboxd uses the
    file shipped beside it (policy/registries.default in a build tree)."""
    if os.path.exists("/etc/sbox/registries"):
        raise sboxtest.Skip("/etc/sbox/registries exists on this machine")
    shipped = os.path.join(os.path.dirname(sboxtest.BIN), "policy",
                           "registries.default")
    if not os.path.exists(shipped):
        raise sboxtest.Skip("no build tree beside %s" % sboxtest.BIN)
    d = ctx.daemon()
    c = d.client()
    show = c.call("sandbox.show", {"profile": "workspace"})
    assert show["registries_file"] == os.path.realpath(shipped) or \
        os.path.realpath(show["registries_file"]) == os.path.realpath(shipped)
    hosts = show["registry_hosts"]
    assert "pypi.org" in hosts and "github.com" in hosts, hosts
