"""End-to-end tests of issue 23 item 3: a read-only grant of the home
folder ({"extends": "workspace", "folders": {"read_only": ["~"]}}, the CLI
reference's "everything except credentials") works whatever cache folders
exist on the host: the cache binds and other mount points inside it are
made without writing to the host; credentials, sbox's own files and the
other agents' account folders stay hidden inside it; a read_write folder
inside home is writable with its run-later files read-only."""
import base64
import os
import shutil
import time

from sboxtest import is_root


def run(c, sid, script, timeout=60):
    r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c", script],
                                "timeout": timeout})
    for k in ("stdout", "stderr"):
        r[k] = base64.b64decode(r.get(k) or "").decode(errors="replace")
    return r


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(data)


def setup(ctx):
    d = ctx.daemon(None, start=False)
    h = d.home
    write(os.path.join(h, "notes", "todo.txt"), "read me\n")
    write(os.path.join(h, ".ssh", "id_ed25519"), "PRIVATE-KEY-5c2\n")
    write(os.path.join(h, ".codex", "auth.json"), '{"k": "codex-9f1"}\n')
    write(os.path.join(h, "work", "lib", "a.txt"), "a\n")
    write(os.path.join(h, "work", "lib", ".envrc"), "true\n")
    # a host folder that holds a cache's place (~/.cargo/registry is
    # sbox's own, ~/.cargo is the host's) and a link in home
    write(os.path.join(h, ".cargo", "env"), "export X=1\n")
    write(os.path.join(h, "dotfiles", "profile"), "# profile\n")
    os.symlink("dotfiles/profile", os.path.join(h, ".profile"))
    if is_root():
        for p in ("work", "work/lib", "work/lib/a.txt", "work/lib/.envrc"):
            os.chmod(os.path.join(h, p), 0o777 if not p.endswith("txt") and
                     not p.endswith("envrc") else 0o666)
    d.write_config({"sandbox": {"profiles": {
        "homeread": {"extends": "workspace",
                     "folders": {"read_only": ["~"],
                                 "read_write": ["~/work/lib"]}}}}})
    d.start()
    return d, d.client()


def test_read_only_home(ctx):
    d, c = setup(ctx)
    # sboxd asks the host's own npm for its registry when it starts, and
    # npm keeps its logs in ~/.npm: the person's tool writing the person's
    # home, not sbox; let it finish before the listing
    if shutil.which("npm"):
        end = time.time() + 30
        while time.time() < end and "npm (" not in d.read_log():
            time.sleep(0.1)
        time.sleep(0.5)
    before = sorted(os.listdir(d.home))
    sid = c.call("session.create", {"project": ctx.tmp,
                                    "sandbox": "homeread"})["session"]
    h = d.home
    r = run(c, sid, 'cat %s/notes/todo.txt; echo x > %s/notes/new; '
            'echo rc=$?' % (h, h))
    assert "read me" in r["stdout"] and "rc=0" not in r["stdout"], r
    # credentials and other agents' folders stay hidden inside the grant
    r = run(c, sid, 'cat %s/.ssh/id_ed25519 %s/.codex/auth.json; echo rc=$?'
            % (h, h))
    assert "PRIVATE-KEY" not in r["stdout"] and "codex-9f1" not in \
        r["stdout"], r
    # the caches are sbox's own, writable, though the host has none
    r = run(c, sid, 'echo c > %s/.npm/probe && echo rc=$?' % h)
    assert "rc=0" in r["stdout"], r
    # the read_write folder inside home: writable, its .envrc read-only
    r = run(c, sid, 'echo b > %s/work/lib/b.txt; echo rc=$?; '
            'echo bad > %s/work/lib/.envrc; echo rc2=$?' % (h, h))
    assert "rc=0" in r["stdout"] and "rc2=0" not in r["stdout"], r
    with open(os.path.join(h, "work", "lib", "b.txt")) as f:
        assert f.read() == "b\n"
    r = run(c, sid, 'cat %s/.cargo/env; echo y > %s/.cargo/registry/p && '
            'echo rc=$?; readlink %s/.profile; cat %s/.profile; '
            'echo z > %s/.cargo/new; echo rc2=$?' % (h, h, h, h, h))
    assert "export X=1" in r["stdout"] and "rc=0" in r["stdout"], r
    assert "# profile" in r["stdout"] and "rc2=0" not in r["stdout"], r
    assert sorted(os.listdir(os.path.join(h, ".cargo"))) == ["env"]
    # nothing was made on the host's home for the mount points
    assert sorted(os.listdir(d.home)) == before, (before,
                                                  os.listdir(d.home))
