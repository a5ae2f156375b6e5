"""The escape suite, tools (issue 10): settings that pick programs (npm,
corepack, rustup, cargo, direnv), editors' and coding agents' settings, and
the home folder's startup files, user site and tool configs. Each attempt
runs inside a real session; then the host runs the real tool when it is
installed, and no marker may appear, during the session and after close."""
import base64
import os
import shutil
import subprocess

import sboxtest
from sandboxlib import RUNS_LATER, create, run

# Protected names a project must not get (created inside, checked on host).
PROJECT_NAMES = [
    ".npmrc", "sub/.npmrc", ".yarnrc.yml", ".corepack.env", "sub/.corepack.env",
    "rust-toolchain.toml", "rust-toolchain", ".cargo/config.toml",
    "sub/.cargo/config.toml", ".envrc", "deep/er/.envrc", ".vscode/tasks.json",
    ".idea/workspace.xml", ".zed/tasks.json", ".claude/settings.json",
    ".codex/config.toml", ".cursor/mcp.json", ".gemini/settings.json",
    ".continue/config.json", ".roo/mcp.json", ".kiro/settings/mcp.json",
    ".amazonq/mcp.json", ".windsurf/workflows/x.md", ".alta/settings.json",
    "opencode.json", ".mcp.json", ".gitmodules", ".pre-commit-config.yaml",
    ".husky/pre-commit", "lefthook.yml", ".devcontainer/devcontainer.json",
    ".tool-versions", ".mise.toml", ".python-version", ".nvim.lua", ".exrc",
    "pip.conf", "uv.toml", "poetry.toml", ".pnpmfile.cjs",
]


def _marker_script(marker):
    return "#!/bin/sh\ntouch %s\n" % marker


def test_escape_project_settings(ctx):
    """Every protected name of a project: not creatable by a shell, a
    rename, a link or Python; the host's tools see none of them."""
    d = ctx.daemon()
    c = d.client()
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    with open(os.path.join(proj, "package.json"), "w") as f:
        f.write('{"name":"p","version":"1.0.0","scripts":{"x":"true"}}\n')
    marker = os.path.join(ctx.tmp, "MARKER")
    sid = create(c, proj)
    lines = ["printf '#!/bin/sh\\ntouch %s\\n' > /tmp/evil.sh; chmod +x "
             "/tmp/evil.sh" % marker, "echo x > seed"]
    for i, n in enumerate(PROJECT_NAMES):
        dn = os.path.dirname(n)
        lines.append("mkdir -p %s 2>/dev/null" % (dn or "."))
        lines.append("{ echo 'script-shell=%s' > %s && echo 'MADE %s'; } "
                     "2>/dev/null" % (marker, n, n))
        lines.append("{ cp seed tmp%d && mv tmp%d %s && echo 'MOVED %s'; } "
                     "2>/dev/null" % (i, i, n, n))
        lines.append("{ ln seed %s && echo 'LINKED %s'; } 2>/dev/null" % (n, n))
        lines.append("{ ln -s seed %s && echo 'SYMLINKED %s'; } 2>/dev/null" %
                     (n, n))
    r = run(c, sid, "\n".join(lines) + "\ntrue\n")
    assert r.code == 0, r
    assert "MADE" not in r.out and "MOVED" not in r.out and \
        "LINKED" not in r.out, r
    # a folder staged elsewhere and moved into place
    r = run(c, sid, "mkdir -p stage/releases && echo x > stage/releases/y.cjs"
            " && mv stage .yarn && echo MOVED-YARN; mkdir -p q/st2 && echo x >"
            " q/st2/config.toml && mv q/st2 q/.cargo 2>/dev/null && echo "
            "MOVED-CARGO; true")
    assert "MOVED-YARN" not in r.out and "MOVED-CARGO" not in r.out, r
    for n in PROJECT_NAMES + ["q/.cargo"]:
        assert not os.path.lexists(os.path.join(proj, n)), n
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": ctx.tmp}
    for tool in (["npm", "run", "x"], ["corepack", "--version"],
                 ["cargo", "--version"], ["rustc", "--version"]):
        if shutil.which(tool[0]):
            tool = [shutil.which(tool[0])] + tool[1:]
            subprocess.run(tool, cwd=proj, env=env, capture_output=True,
                           timeout=120)
    c.call("session.close", {"session": sid})
    for n in PROJECT_NAMES:
        assert not os.path.lexists(os.path.join(proj, n)), n
    assert not os.path.exists(marker)


def test_escape_file_tools_rpc(ctx):
    """file.write and file.mkdir (an agent's own tools) get the same
    decision: a missing protected name is not created."""
    d = ctx.daemon()
    c = d.client()
    proj = os.path.join(ctx.tmp, "proj")
    for sub in ("sub", "vendor", "x"):
        os.makedirs(os.path.join(proj, sub))
    sid = create(c, proj)
    data = base64.b64encode(b"evil\n").decode()
    for path in (".claude/settings.json", ".npmrc", "sub/.envrc",
                 "rust-toolchain.toml", "vendor/.git", "x/commondir"):
        e = c.error("file.write", {"session": sid, "path": path,
                                   "data": data})
        assert e.name in ("sbox.Blocked", "sbox.PermissionDenied"), (path, e)
        assert not os.path.lexists(os.path.join(proj, path)), path
    c.call("file.write", {"session": sid, "path": "ok.txt", "data": data})
    assert open(os.path.join(proj, "ok.txt")).read() == "evil\n"
    c.call("session.close", {"session": sid})


def _home_session(ctx, rw):
    d = ctx.daemon(config={"sandbox": {"profiles": {"homey": {
        "extends": "workspace", "folders": {"read_write": rw}}}}})
    for f in rw:
        os.makedirs(os.path.join(d.home, f[2:]), exist_ok=True)
    c = d.client()
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj, exist_ok=True)
    try:
        sid = create(c, proj, sandbox="homey")
    except sboxtest.RpcError as e:
        raise sboxtest.Skip("a grant of %s is refused: %s" % (rw, e))
    return d, c, sid


def _user_site(home):
    r = subprocess.run(["python3", "-c", "import site; print(site."
                        "getusersitepackages())"], capture_output=True,
                       text=True, env={"PATH": "/usr/bin:/bin", "HOME": home})
    return r.stdout.strip()


def _host_tools(home, proj, marker):
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "TERM": "dumb"}
    subprocess.run(["python3", "-c", "pass"], env=env, capture_output=True,
                   timeout=60)
    subprocess.run(["git", "status"], cwd=proj, env=env, capture_output=True,
                   timeout=60)
    subprocess.run(["bash", "-i", "-c", "true"], env=env, capture_output=True,
                   stdin=subprocess.DEVNULL, timeout=60)
    assert not os.path.exists(marker), "the host ran the sandbox's code"


def test_escape_home_parts(ctx):
    """A grant of ~/.config and ~/.local: git's config, nvim, pip, the user
    site's *.pth and ~/.local/bin stay uncreatable."""
    d, c, sid = _home_session(ctx, ["~/.config", "~/.local"])
    marker = os.path.join(ctx.tmp, "MARKER")
    site = _user_site(d.home)
    r = run(c, sid, """
H=%s
mkdir -p $H/.config/git && printf '[core]\\n\\tfsmonitor = touch %s\\n' > $H/.config/git/config && echo W1
mkdir -p %s && echo 'import os; open("%s","w")' > %s/evil.pth && echo W2
mkdir -p $H/.local/bin && printf '#!/bin/sh\\ntouch %s\\n' > $H/.local/bin/git && echo W3
mkdir -p $H/.config/nvim && echo x > $H/.config/nvim/init.lua && echo W4
mkdir -p $H/.config/pip && echo x > $H/.config/pip/pip.conf && echo W5
mkdir -p $H/.config/autostart && echo x > $H/.config/autostart/x.desktop && echo W6
mkdir -p $H/.config/other && echo fine > $H/.config/other/app.conf && echo OK
true
""" % (d.home, marker, site, marker, site, marker))
    for w in ("W1", "W2", "W3", "W4", "W5", "W6"):
        assert w + "\n" not in r.out, (w, r)
    assert "OK" in r.out, r
    assert os.path.exists(os.path.join(d.home, ".config/other/app.conf"))
    for rel in (".config/git/config", ".local/bin/git",
                ".config/nvim/init.lua", ".config/pip/pip.conf"):
        assert not os.path.exists(os.path.join(d.home, rel)), rel
    assert not os.path.exists(os.path.join(site, "evil.pth"))
    proj = os.path.join(ctx.tmp, "proj")
    subprocess.run(["git", "init", "-q", proj], capture_output=True)
    _host_tools(d.home, proj, marker)
    c.call("session.close", {"session": sid})
    _host_tools(d.home, proj, marker)


def test_escape_home_granted(ctx):
    """A grant of the whole home: shell startup files and agents' sign-ins
    stay out of reach."""
    d, c, sid = _home_session(ctx, ["~"])
    marker = os.path.join(ctx.tmp, "MARKER")
    r = run(c, sid, """
H=%s
echo 'touch %s' >> $H/.bashrc && echo W1
echo 'touch %s' >> $H/.bash_aliases && echo W2
echo 'touch %s' >> $H/.profile && echo W3
mkdir -p $H/.codex && echo '{}' > $H/.codex/auth.json && echo W4
mkdir -p $H/.claude && echo '{}' > $H/.claude/.credentials.json && echo W5
printf '[core]\\n\\tfsmonitor = touch %s\\n' > $H/.gitconfig && echo W6
echo fine > $H/fine.txt && echo OK
true
""" % (d.home, marker, marker, marker, marker))
    assert "OK" in r.out and os.path.exists(os.path.join(d.home, "fine.txt")), r
    for w in ("W1", "W2", "W3", "W4", "W5", "W6"):
        assert w + "\n" not in r.out, (w, r)
    for rel in (".bashrc", ".bash_aliases", ".profile", ".codex/auth.json",
                ".claude/.credentials.json", ".gitconfig"):
        assert not os.path.exists(os.path.join(d.home, rel)), rel
    proj = os.path.join(ctx.tmp, "proj")
    subprocess.run(["git", "init", "-q", proj], capture_output=True)
    _host_tools(d.home, proj, marker)
    c.call("session.close", {"session": sid})
    _host_tools(d.home, proj, marker)


def test_protected_names_shown_and_configured(ctx):
    """`sbox sandbox show` lists the protected names; the config's
    sandbox.protected adds one, which is then refused like the others."""
    d = ctx.daemon(config={"sandbox": {"protected": [
        "runs-later any .mytool.json # mytool runs its hooks"]}})
    c = d.client()
    r = d.cli("sandbox", "show", "workspace")
    assert r.returncode == 0, r
    out = r.stdout.decode() if isinstance(r.stdout, bytes) else r.stdout
    assert ".npmrc" in out and ".mytool.json" in out and \
        "mytool runs its hooks" in out, out
    r = d.cli("--json", "sandbox", "show", "workspace")
    j = __import__("json").loads(r.stdout)
    assert {"kind": "runs-later", "scope": "any", "name": ".mytool.json",
            "comment": "mytool runs its hooks"} in j["protected"], j
    proj = os.path.join(ctx.tmp, "proj")
    os.makedirs(proj)
    sid = create(c, proj)
    r = run(c, sid, "mkdir -p a && echo x > a/.mytool.json && echo MADE; true")
    assert "MADE" not in r.out, r
    assert not os.path.exists(os.path.join(proj, "a/.mytool.json"))
    c.call("session.close", {"session": sid})
    bad = ctx.daemon(config={"sandbox": {"protected": ["runs-later x y"]}},
                     start=False, name="bad")
    p = subprocess.run(bad.args() + ["--foreground"], env=bad.env(),
                       capture_output=True, text=True, timeout=30)
    assert p.returncode != 0 and "sandbox.protected[0]" in p.stderr, p
