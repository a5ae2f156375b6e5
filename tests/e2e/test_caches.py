"""Package caches (issue 11): a sandbox gets warm caches of sbox's own, one
set per profile under the state folder, and the host never reads what a
sandbox wrote. Escape attempts plant in every cache a host tool trusts
(npx, corepack, pip wheels, a .pth, a symlink and a hard link to a host
file) and reach for a Unix socket in the host's ~/.cache; the host's trees
stay as they were, and the host commands that would use them find nothing.
A second session of the same profile sees what the first wrote; another
profile's does not; `sbox cache list|clear` sizes and frees them without
following a planted link. Pass as root and as an unprivileged user."""
import json
import os
import shutil
import socket
import select
import subprocess

import sboxtest
from sboxtest import Skip
from sandboxlib import (b64, create, make_home, make_project, ok, py, run,
                        snapshot, unix_listener, write)

# Host cache entries a host tool would run (each must stay as it is).
HOST_CACHE = [".npm/_npx/1111/package.json", ".cache/node/corepack/lastKnownGood.json",
              ".cache/pip/wheels/aa/bb/demo-1.0-py3-none-any.whl"]


def _config(d):
    return {"sandbox": {"profiles": {
        "other": {"extends": "workspace"},
    }}}


def _daemon(ctx):
    d = ctx.daemon(start=False, name="caches")
    make_home(d.home)
    for rel in HOST_CACHE:
        write(os.path.join(d.home, rel), "host %s\n" % rel)
    d.write_config(_config(d))
    d.start()
    proj = make_project(os.path.join(ctx.tmp, "proj"))
    os.chmod(ctx.tmp, 0o755)
    return d, d.client(), proj


def _host_env(d, **extra):
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": d.home,
         "LANG": "C.UTF-8"}
    e.update(extra)
    return e


def _cache_dir(d, profile, tree, proj=None):
    """sbox's cache tree of profile: of the project proj (found by its
    project file), or the profile's shared one (proj None)."""
    if proj is None:
        return os.path.join(d.state, "caches", profile, tree)
    base = os.path.join(d.state, "caches", profile, "projects")
    want = os.path.realpath(proj) + "\n"
    for k in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        with open(os.path.join(base, k, "project")) as f:
            if f.read() == want:
                return os.path.join(base, k, tree)
    raise AssertionError("no caches of %s for %s" % (profile, proj))


def _entry(lst, proj):
    """The cache.list or cache.clear entry of project proj."""
    e = [p for p in lst["profiles"] if p["project"] == os.path.realpath(proj)]
    assert len(e) == 1, lst
    return e[0]


def _close(c, s):
    c.call("session.close", {"session": s})


def test_plants_never_reach_the_host(ctx):
    d, c, proj = _daemon(ctx)
    marker = os.path.join(ctx.tmp, "PWNED")
    sock = unix_listener(os.path.join(d.home, ".cache", "host.sock"))
    before = snapshot(d.home)
    s = create(c, proj)
    pyver = "python%d.%d" % tuple(int(x) for x in subprocess.run(
        ["python3", "-c", "import sys; print(sys.version_info[0]); "
         "print(sys.version_info[1])"], capture_output=True, text=True
    ).stdout.split())
    pth = 'import os; open("%s", "w").write("x")' % marker
    script = r"""
set +e
# what the host had in its caches is not there
for f in ~/.npm/_npx/1111/package.json ~/.cache/pip/cached ~/.npm/cached \
    ~/.cache/node/corepack/lastKnownGood.json ~/.cache/huggingface/token; do
    test -e $f && echo SAW-HOST $f
done
test -S ~/.cache/host.sock && echo SAW-SOCKET
# npx's install cache, corepack's, pip's wheels, a .pth
mkdir -p ~/.npm/_npx/2222/node_modules/.bin && echo 'touch %(m)s' > ~/.npm/_npx/2222/node_modules/.bin/evil && echo PLANT-npx
mkdir -p ~/.cache/node/corepack/v1/pnpm/9.0.0/bin && echo 'touch %(m)s' > ~/.cache/node/corepack/v1/pnpm/9.0.0/bin/pnpm.cjs && echo PLANT-corepack
mkdir -p ~/.cache/pip/wheels/cc/dd && echo %(pth)s > ~/.cache/pip/wheels/cc/dd/evil.pth && echo PLANT-pip
mkdir -p ~/.local/lib/%(py)s/site-packages && echo %(pth)s > ~/.local/lib/%(py)s/site-packages/evil.pth && echo PLANT-usersite
# a symlink and a hard link to host files
ln -s %(home)s/.bash_history ~/.npm/evil-link && echo PLANT-symlink
echo pwned >> ~/.npm/evil-link 2>/dev/null
ln %(proj)s/README ~/.npm/evil-hard 2>/dev/null && echo PLANT-hardlink
# a cache folder that exists only inside
mkdir -p ~/.newcache && echo x > ~/.newcache/f && echo PLANT-inside-only
true
""" % {"m": marker, "pth": "'%s'" % pth, "py": pyver,
       "home": d.home, "proj": proj}
    out = ok(c, s, script)
    assert "SAW-HOST" not in out and "SAW-SOCKET" not in out, out
    for p in ("npx", "corepack", "pip", "symlink"):
        assert "PLANT-" + p in out, out
    # a hard link cannot cross into a cache from another mount
    assert "PLANT-hardlink" not in out, out
    # the host's Unix socket in ~/.cache is unreachable
    r = py(c, s, "import socket, os\n"
           "for p in (os.path.expanduser('~/.cache/host.sock'), %r):\n"
           "    s = socket.socket(socket.AF_UNIX)\n"
           "    try:\n        s.connect(p); print('CONNECTED', p)\n"
           "    except OSError as e: print('refused', e.errno)\n"
           % os.path.join(d.home, ".cache", "host.sock"))
    assert "CONNECTED" not in r.out and r.out.count("refused") == 2, r
    _close(c, s)
    sock.close()
    # what was planted went to sbox's own cache of the profile, nowhere else
    assert os.path.exists(os.path.join(_cache_dir(d, "workspace", "npm", proj),
                                       "_npx", "2222"))
    assert os.path.islink(os.path.join(_cache_dir(d, "workspace", "npm", proj),
                                       "evil-link"))
    after = snapshot(d.home)
    before.pop(".cache/host.sock", None)
    after.pop(".cache/host.sock", None)
    assert after == before, set(after.items()) ^ set(before.items())
    assert not os.path.exists(os.path.join(d.home, ".newcache"))
    assert sorted(os.listdir(os.path.join(d.home, ".npm", "_npx"))) == ["1111"]
    with open(os.path.join(proj, "README")) as f:
        assert f.read() == "hello\n"
    # the host commands that would use those caches
    if shutil.which("npm"):
        r = subprocess.run(["npm", "config", "get", "cache"],
                           capture_output=True, text=True, env=_host_env(d),
                           timeout=60)
        assert r.stdout.strip() == os.path.join(d.home, ".npm"), r
        assert sorted(os.listdir(os.path.join(d.home, ".npm", "_npx"))) == \
            ["1111"]
    venv = os.path.join(ctx.tmp, "venv")
    r = subprocess.run(["python3", "-m", "venv", "--without-pip", venv],
                       capture_output=True, text=True, env=_host_env(d),
                       timeout=120)
    if r.returncode == 0:
        r = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                            "import site; print(site.ENABLE_USER_SITE)"],
                           capture_output=True, text=True,
                           env=_host_env(d), timeout=60)
        assert r.returncode == 0, r
    r = subprocess.run(["python3", "-c", "pass"], capture_output=True,
                       env=_host_env(d), timeout=60)
    assert not os.path.exists(marker), "a planted .pth ran on the host"


def test_warm_per_profile(ctx):
    d, c, proj = _daemon(ctx)
    a = create(c, proj)
    ok(c, a, "mkdir -p ~/.cache/pip/http && echo warm > ~/.cache/pip/http/e1"
             " && echo warm > ~/.npm/warm.txt && mkdir -p ~/go/pkg/mod/x &&"
             " echo m > ~/go/pkg/mod/x/go.mod && chmod -R a-w ~/go/pkg/mod/x")
    _close(c, a)
    # a second session of the same profile sees what the first wrote
    b = create(c, proj)
    out = ok(c, b, "cat ~/.npm/warm.txt ~/.cache/pip/http/e1 ~/go/pkg/mod/x/go.mod")
    assert out.split() == ["warm", "warm", "m"], out
    # where it lives on the host: sbox's state folder, not the home folder
    with open(os.path.join(_cache_dir(d, "workspace", "npm", proj), "warm.txt")) as f:
        assert f.read() == "warm\n"
    assert not os.path.exists(os.path.join(d.home, ".npm", "warm.txt"))
    st = os.stat(_cache_dir(d, "workspace", "npm", proj))
    # owned by the uid the sandbox runs as: a root sboxd's is not root
    assert st.st_mode & 0o777 == 0o700, st
    assert st.st_uid == (os.getuid() if os.getuid() else 2147352576), st
    # another profile has caches of its own
    o = create(c, proj, "other")
    r = run(c, o, "cat ~/.npm/warm.txt ~/.cache/pip/http/e1 || echo MISSING")
    assert "warm" not in r.out and "MISSING" in r.out, r
    ok(c, o, "echo other > ~/.npm/other.txt")
    r = run(c, b, "cat ~/.npm/other.txt")
    assert r.code != 0 and "other" not in r.out, r
    # sandbox show says what a profile sees and where its writes go
    sh = c.call("sandbox.show", {"profile": "workspace"})["caches"]
    trees = {t["path"]: t for t in sh["trees"]}
    assert trees["~/.npm"]["writes_to"] == os.path.join(
        d.state, "caches", "workspace", "projects", "<project>", "npm")
    assert "~/.cache" in trees and "~/.cargo/registry" in trees, trees
    assert sh["shared_with"] == "workspace" and sh["scope"] == "project", sh
    lab = c.call("sandbox.show", {"profile": "lab"})["caches"]
    assert lab["trees"] == [], lab
    r = d.cli("sandbox", "show", "other")
    text = r.stdout.decode()
    assert r.returncode == 0 and "~/.npm" in text and os.path.join(
        d.state, "caches", "other", "projects", "<project>", "npm") in text \
        and "same project" in text, text
    _close(c, b)
    _close(c, o)
    c.call("cache.clear", {})	# Go's read-only folders go too


def test_list_clear_no_follow(ctx):
    d, c, proj = _daemon(ctx)
    outside = os.path.join(ctx.tmp, "outside")
    write(os.path.join(outside, "keep"), "keep me\n")
    write(os.path.join(outside, "sub", "deep"), "keep me too\n")
    s = create(c, proj)
    ok(c, s, "head -c 1048576 /dev/zero > ~/.npm/big && "
             "ln -s %s ~/.npm/to-outside && ln -s %s/keep ~/.cache/to-keep && "
             "mkdir -p ~/.cache/ro && touch ~/.cache/ro/f && chmod 0 ~/.cache/ro"
             % (outside, outside))
    # as a sandbox cannot, plant a hard link to a file outside directly
    hard = os.path.join(_cache_dir(d, "workspace", "npm", proj), "hard")
    try:
        os.link(os.path.join(outside, "keep"), hard)
    except OSError:
        hard = None
    lst = c.call("cache.list", {"profile": "workspace"})
    p = _entry(lst, proj)
    trees = {t["name"]: t for t in p["trees"]}
    assert p["profile"] == "workspace" and p["exists"] is True, p
    assert trees["npm"]["bytes"] >= 1 << 20, trees["npm"]
    assert trees["npm"]["links"] == 1 and trees["cache"]["links"] == 1, trees
    # the size of what a link leads to is not counted
    assert trees["npm"]["bytes"] < (1 << 20) + (64 << 10), trees["npm"]
    r = d.cli("cache", "list")
    assert r.returncode == 0 and "workspace" in r.stdout.decode() and \
        "~/.npm" in r.stdout.decode(), r
    # not from inside a sandbox
    shutil.copy(sboxtest.sbox_for_sandbox(), os.path.join(proj, "sbox"))
    for m in ("cache.list", "cache.clear"):
        e = c.call("command.exec", {"session": s, "argv": [
            "./sbox", "cache", m.split(".")[1]], "channel": True})
        assert e["exit_code"] == 1 and "not available from inside a sandbox" \
            in b64(e["stderr"]), e
    # inside, sandbox show names the caches but no host path
    e = c.call("command.exec", {"session": s, "argv": [
        "./sbox", "--json", "sandbox", "show", "workspace"], "channel": True})
    shown = json.loads(b64(e["stdout"]))["caches"]
    assert [t for t in shown["trees"] if t["path"] == "~/.npm"], shown
    assert "root" not in shown and d.state not in json.dumps(shown), shown
    os.unlink(os.path.join(proj, "sbox"))
    r = d.cli("cache", "clear", "--profile", "workspace")
    assert r.returncode == 0 and "freed" in r.stdout.decode(), r
    # a live session sees an empty cache; the tree folders stay
    out = ok(c, s, "ls -A ~/.npm ~/.cache; echo again > ~/.npm/again")
    assert "big" not in out and "to-outside" not in out, out
    # nothing outside was followed
    with open(os.path.join(outside, "keep")) as f:
        assert f.read() == "keep me\n"
    with open(os.path.join(outside, "sub", "deep")) as f:
        assert f.read() == "keep me too\n"
    if hard is not None:
        assert os.stat(os.path.join(outside, "keep")).st_nlink == 1
    assert os.listdir(_cache_dir(d, "workspace", "npm", proj)) == ["again"]
    lst = c.call("cache.list", {"profile": "workspace"})
    assert lst["bytes"] < 64 << 10, lst
    e = c.error("cache.list", {"profile": "../x"})
    assert e.name == "sbox.InvalidParams" and e.field == "profile", e
    _close(c, s)


def test_npm_offline_from_warm_cache(ctx):
    if shutil.which("npm") is None or shutil.which("node") is None:
        raise Skip("npm is not installed")
    d, c, proj = _daemon(ctx)
    pkg = os.path.join(proj, "tiny")
    write(os.path.join(pkg, "package.json"), json.dumps(
        {"name": "sbox-tiny", "version": "1.0.0", "main": "index.js"}))
    write(os.path.join(pkg, "index.js"), "module.exports = 'tiny-ok';\n")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "npm_config_update_notifier": "false", "npm_config_logs_max": "0"}
    a = create(c, proj, env=env)
    out = ok(c, a, "cd tiny && npm pack --silent && npm cache add "
                   "./sbox-tiny-1.0.0.tgz && node -e \"const c=require('crypto');"
                   "console.log('sha512-'+c.createHash('sha512').update(require"
                   "('fs').readFileSync('sbox-tiny-1.0.0.tgz')).digest('base64'))\"")
    integrity = out.strip().split("\n")[-1]
    assert integrity.startswith("sha512-"), out
    _close(c, a)
    shutil.rmtree(pkg)
    app = os.path.join(proj, "app")
    write(os.path.join(app, "package.json"), json.dumps(
        {"name": "app", "version": "1.0.0",
         "dependencies": {"sbox-tiny": "1.0.0"}}))
    write(os.path.join(app, "package-lock.json"), json.dumps(
        {"name": "app", "version": "1.0.0", "lockfileVersion": 3,
         "requires": True, "packages": {
             "": {"name": "app", "version": "1.0.0",
                  "dependencies": {"sbox-tiny": "1.0.0"}},
             "node_modules/sbox-tiny": {
                 "version": "1.0.0", "integrity": integrity,
                 "resolved": "https://registry.example.invalid/sbox-tiny/-/"
                             "sbox-tiny-1.0.0.tgz"}}}))
    # the next session of the profile installs it offline, from the cache
    b = create(c, proj, env=env)
    out = ok(c, b, "cd app && npm ci --offline --no-audit --no-fund >/dev/null"
                   " && node -e \"console.log(require('sbox-tiny'))\"")
    assert out.strip() == "tiny-ok", out
    _close(c, b)
    # another profile's cache does not have it
    shutil.rmtree(os.path.join(app, "node_modules"))
    o = create(c, proj, "other", env=env)
    r = run(c, o, "cd app && npm ci --offline --no-audit --no-fund")
    assert r.code != 0, r
    _close(c, o)
    # and the host's cache never got it
    assert not os.path.exists(os.path.join(d.home, ".npm", "_cacache"))


def test_walk_does_not_stall_the_daemon(ctx):
    d, c, proj = _daemon(ctx)
    s = create(c, proj)
    # a sandbox decides how big its cache is: 10000 entries (made from
    # here, as a sandbox would, only faster)
    junk = os.path.join(_cache_dir(d, "workspace", "npm", proj), "junk")
    for i in range(50):
        os.makedirs(os.path.join(junk, str(i)))
        for j in range(200):
            open(os.path.join(junk, str(i), str(j)), "w").close()
    other = d.client()
    walk = c.send("cache.list", {"profile": "workspace"})
    # the daemon answers another client while the walk goes on: the ping's
    # answer comes first, the walk's is not there yet
    assert other.call("rpc.ping")["pong"] is True
    ready, _, _ = select.select([c.sock], [], [], 0)
    assert not ready and not c.buf, "cache.list answered before the ping"
    r = c.result(c.wait_reply(walk))
    files = {t["name"]: t for t in _entry(r, proj)["trees"]}["npm"]["files"]
    assert files >= 10000, r
    r = c.call("cache.clear", {"profile": "workspace"})
    assert all(p["left"] == 0 for p in r["profiles"]), r
    assert _entry(r, proj)["freed_bytes"] > 0, r
    assert os.listdir(_cache_dir(d, "workspace", "npm", proj)) == []
    _close(c, s)


def test_child_session_gets_its_parents_caches(ctx):
    d, c, proj = _daemon(ctx)
    shutil.copy(sboxtest.sbox_for_sandbox(), os.path.join(proj, "sbox"))
    s = create(c, proj)
    ok(c, s, "echo parent > ~/.npm/parent.txt")
    # a session made from inside (another profile) is at most as wide as
    # its parent: it writes its parent's caches, never strict's own
    e = c.call("command.exec", {"session": s, "channel": True, "argv": [
        "sh", "-c", "child=$(./sbox session create --project . --sandbox "
        "strict) && ./sbox session exec $child -- sh -c 'cat ~/.npm/parent.txt"
        " && echo child > ~/.npm/child.txt'"]})
    assert e["exit_code"] == 0 and b64(e["stdout"]).strip() == "parent", e
    with open(os.path.join(_cache_dir(d, "workspace", "npm", proj), "child.txt")) as f:
        assert f.read() == "child\n"
    assert not os.path.exists(os.path.join(d.state, "caches", "strict"))
    os.unlink(os.path.join(proj, "sbox"))
    _close(c, s)



SERVE = r"""
import os, socket, sys, time
p = os.path.expanduser("~/.cache/a.sock")
s = socket.socket(socket.AF_UNIX)
s.bind(p)
s.listen(4)
print("serving", flush=True)
while True:
    c, _ = s.accept()
    c.sendall(b"from-A\n")
    c.close()
"""

BIND = r"""
import os, socket
s = socket.socket(socket.AF_UNIX)
try:
    s.bind(os.path.expanduser("~/.cache/a.sock"))
    print("BOUND")
except OSError as e:
    print("refused", e.errno)
"""

CONNECT = r"""
import os, socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(os.path.expanduser("~/.cache/a.sock"))
    print("CONNECTED", s.recv(100))
except OSError as e:
    print("refused", e.errno)
"""


def test_caches_belong_to_a_project(ctx):
    """Two projects of one profile: what project A's sandbox writes in its
    caches (an npx package, a socket it serves) is not seen by project B's;
    another session of A sees it; no socket is served from a cache (the
    bind is refused). "caches": "profile" shares them, and
    sandbox show says which. cache list|clear --project work per project."""
    d = ctx.daemon(start=False, name="cacheproj")
    make_home(d.home)
    d.write_config({"sandbox": {"profiles": {
        "shared": {"extends": "workspace", "caches": "profile"}}}})
    d.start()
    c = d.client()
    pa = make_project(os.path.join(ctx.tmp, "proj-a"))
    pb = make_project(os.path.join(ctx.tmp, "proj-b"))
    os.chmod(ctx.tmp, 0o755)
    a = create(c, pa)
    ok(c, a, "mkdir -p ~/.npm/_npx/99/node_modules/.bin && echo 'echo RAN-A'"
             " > ~/.npm/_npx/99/node_modules/.bin/tool && chmod +x "
             "~/.npm/_npx/99/node_modules/.bin/tool && echo a > ~/.cache/mark")
    # no socket is served from a cache: the bind is refused and reported
    r = py(c, a, BIND)
    assert "refused 13" in r.out, r
    assert any(b.get("rule") == "package caches" and
               b["path"].endswith("/.cache/a.sock")
               for b in r.blocked), r
    assert not os.path.lexists(os.path.join(
        _cache_dir(d, "workspace", "cache", pa), "a.sock"))
    # a socket the host left there (a tool of an older sbox) is reachable
    # from no sandbox: it is not one its own guard bound
    srv = socket.socket(socket.AF_UNIX)
    cfd = os.open(_cache_dir(d, "workspace", "cache", pa), os.O_PATH)
    srv.bind("/proc/self/fd/%d/a.sock" % cfd)    # the path may be long
    os.close(cfd)
    srv.listen(4)
    # project A's own sessions see it; its socket is a socket another
    # sandbox made, which no session but A's own may connect to
    a2 = create(c, pa)
    assert ok(c, a2, "~/.npm/_npx/99/node_modules/.bin/tool").strip() == \
        "RAN-A"
    r = py(c, a2, CONNECT)
    assert "CONNECTED" not in r.out and "refused" in r.out, r
    # project B's do not
    b = create(c, pb)
    r = run(c, b, "ls -A ~/.npm ~/.cache; ~/.npm/_npx/99/node_modules/.bin/"
                  "tool; cat ~/.cache/mark")
    assert "RAN-A" not in r.out and "_npx" not in r.out and \
        "mark" not in r.out and "a.sock" not in r.out, r
    r = py(c, b, CONNECT)
    assert "CONNECTED" not in r.out and "refused" in r.out, r
    ok(c, b, "echo b > ~/.npm/b.txt")
    # on the host: one folder per project, each naming its project
    assert os.path.exists(os.path.join(_cache_dir(d, "workspace", "npm", pb),
                                       "b.txt"))
    assert not os.path.exists(os.path.join(
        _cache_dir(d, "workspace", "npm", pa), "b.txt"))
    # "caches": "profile": every project of the profile shares them
    s1 = create(c, pa, "shared")
    ok(c, s1, "echo s > ~/.npm/shared.txt")
    s2 = create(c, pb, "shared")
    assert ok(c, s2, "cat ~/.npm/shared.txt").strip() == "s"
    assert "RAN-A" not in run(c, s2, "cat ~/.npm/_npx/99/node_modules/.bin/"
                                     "tool").out
    sh = c.call("sandbox.show", {"profile": "shared"})["caches"]
    assert sh["scope"] == "profile", sh
    text = d.cli("sandbox", "show", "shared").stdout.decode()
    assert "every project" in text and '"caches": "profile"' in text, text
    assert c.call("sandbox.show", {"profile": "workspace"})["caches"][
        "scope"] == "project"
    # cache list|clear --project
    lst = c.call("cache.list", {"project": pa})
    assert [p["project"] for p in lst["profiles"]] == \
        [os.path.realpath(pa)], lst
    r = d.cli("cache", "list", "--project", pb)
    out = r.stdout.decode()
    assert r.returncode == 0 and os.path.realpath(pb) in out and \
        os.path.realpath(pa) + "\n" not in out, (r, out)
    r = d.cli("cache", "clear", "--project", pb)
    assert r.returncode == 0 and "freed" in r.stdout.decode(), r
    assert not os.path.exists(os.path.join(
        _cache_dir(d, "workspace", "npm", pb), "b.txt"))
    assert os.path.isdir(os.path.join(_cache_dir(d, "workspace", "npm", pa),
                                      "_npx", "99"))
    assert ok(c, s2, "cat ~/.npm/shared.txt").strip() == "s"
    srv.close()
    for s in (a, a2, b, s1, s2):
        _close(c, s)
