"""End-to-end tests of issue 23 item 5: Yarn's registry is reached in
`workspace` with no yarn program on sboxd's PATH (Yarn through corepack):
it comes at run time from the person's own Yarn configuration
(~/.yarnrc.yml npmRegistryServer, ~/.yarnrc registry), else from what
corepack's own bundled configuration, or a Yarn in corepack's cache, names
(read from their files, nothing run). No registry host name is written
here: the fake corepack and Yarn name fake hosts.

Each fake host resolves (config "resolve") to a metadata address the proxy
refuses by its address rule: a refusal "resolves to a ... address" proves
the name passed the allowlist."""
import base64
import json
import os

META = "169.254.169.254"
HOSTS = ("yarn-rc.test", "yarn-classic.test", "yarn-mirror.test",
         "yarn-rel.test", "yarn-cached.test", "not-yarn.test")


def run(c, sid, script, timeout=60):
    r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c", script],
                                "timeout": timeout})
    for k in ("stdout", "stderr"):
        r[k] = base64.b64decode(r.get(k) or "").decode(errors="replace")
    return r


def write(path, data, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(data)
    os.chmod(path, mode)


def fake_corepack(home):
    """corepack as npm installs it: bin/corepack -> dist/corepack.js, its
    configuration bundled in dist/lib/corepack.cjs."""
    dist = os.path.join(home, "tools", "corepack", "dist")
    write(os.path.join(dist, "corepack.js"), "#!/bin/sh\nexit 1\n", 0o755)
    write(os.path.join(dist, "lib", "corepack.cjs"),
          'var config = {\n  yarn: { ranges: {\n'
          '    "<2.0.0": { url: "http://yarn-mirror.test/yarn/-/yarn-{}.tgz" },\n'
          '    ">=2.0.0": { url: "http://yarn-rel.test/{}/packages/'
          'yarnpkg-cli/bin/yarn.js" } } } };\n')
    os.makedirs(os.path.join(home, ".local", "bin"), exist_ok=True)
    os.symlink(os.path.join(dist, "corepack.js"),
               os.path.join(home, ".local", "bin", "corepack"))
    # a Yarn 1 that corepack installed in its cache
    write(os.path.join(home, ".cache", "node", "corepack", "v1", "yarn",
                       "1.22.0", "lib", "cli.js"),
          "const YARN_REGISTRY = 'http://yarn-cached.test';\n")


def setup(ctx):
    d = ctx.daemon(None, start=False)
    write(os.path.join(d.home, ".yarnrc.yml"),
          'npmRegistryServer: "http://yarn-rc.test"\n')
    write(os.path.join(d.home, ".yarnrc"),
          'registry "http://yarn-classic.test/"\n')
    fake_corepack(d.home)
    d.write_config({"resolve": {h: [META] for h in HOSTS}})
    d.start()
    return d, d.client()


def proxy_get(c, sid, host):
    r = run(c, sid, "curl -sS -i -m 20 http://%s/ 2>&1; true" % host)
    return r["stdout"]


def test_yarn_registry_without_yarn(ctx):
    d, c = setup(ctx)
    sid = c.call("session.create", {"project": ctx.tmp,
                                    "sandbox": "workspace"})["session"]
    for host in HOSTS[:-1]:
        out = proxy_get(c, sid, host)
        assert "403" in out and "resolves to a" in out and \
            "not in the allowlist" not in out, (host, out)
    out = proxy_get(c, sid, "not-yarn.test")
    assert "not in the allowlist" in out, out
    # where each comes from
    r = d.cli("--json", "sandbox", "show", "workspace")
    src = {s["host"]: s["source"] for s in
           json.loads(r.stdout)["registry_sources"]}
    assert "corepack.cjs" in src["yarn-mirror.test"], src
    assert "corepack" in src["yarn-rel.test"], src
    assert "cli.js" in src["yarn-cached.test"], src
