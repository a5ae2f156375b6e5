"""sandboxlib: helpers for the sandbox end-to-end tests (issue 4).

A module keeps one daemon for the tests that do not interfere (Shared),
with a home folder that holds credentials and developer tools, and a
project with every protected path. Commands run through command.exec with
stdio "pipes"; run() returns what they printed."""
import base64
import hashlib
import os
import socket
import subprocess
import time

import sboxtest
from sboxtest import RpcError

# Credentials created under the daemon's HOME (each must stay unreadable).
CREDENTIALS = [
    ".ssh/id_rsa", ".ssh/config", ".aws/credentials", ".gnupg/private.key",
    ".kube/config", ".docker/config.json", ".netrc", ".npmrc", ".pypirc",
    ".git-credentials", ".config/gh/hosts.yml", ".config/gcloud/creds.json",
    ".azure/accessTokens.json", ".cargo/credentials.toml",
    ".cache/huggingface/token", ".local/share/keyrings/login.keyring",
]
# Developer tools: readable, not writable.
TOOLS = [".cargo/bin/mytool", ".local/bin/mytool", ".gitconfig",
         ".rustup/settings.toml"]
# Package caches: writable.
CACHES = [".cache/pip/cached", ".npm/cached"]
# The rest of the home folder: hidden.
PRIVATE = [".bash_history", "Documents/notes.txt", ".config/other/app.conf"]

SECRET = "SBOX-TEST-SECRET-4242"

# Protected paths of a project: (path, is_dir, a file inside when a dir).
PROTECTED = [
    (".git/config", False, None),
    (".git/hooks", True, "pre-commit"),
    (".vscode", True, "settings.json"),
    (".idea", True, "workspace.xml"),
    (".envrc", False, None),
    (".husky", True, "pre-commit"),
    (".claude", True, "settings.json"),
    (".codex", True, "config.toml"),
    (".cursor", True, "rules"),
    (".agents", True, "AGENTS.md"),
    (".mcp.json", False, None),
    (".gitmodules", False, None),
]
# (.bashrc, .profile and the other shell startup files are protected in
# the home folder only: issue 10, they mean nothing in a project)
RUNS_LATER = "read-only, files that run programs later"

# The start of a Python script run inside a sandbox by the guard's tests:
# t(tag, f) prints tag when f() succeeds, "E<tag> <errno name>" when not.
TRY_PY = r"""
import errno, os
def t(tag, f):
    try:
        f()
        print(tag, flush=True)
    except OSError as e:
        print("E%s %s" % (tag, errno.errorcode.get(e.errno, e.errno)),
              flush=True)
"""
CRED_RULE = "credentials, hidden"


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def make_home(home):
    """Credentials, tools, caches and private files under home."""
    for rel in CREDENTIALS:
        write(os.path.join(home, rel), "%s %s\n" % (SECRET, rel), 0o600)
    for rel in TOOLS:
        write(os.path.join(home, rel), "#!/bin/sh\n# tool %s\n" % rel,
              0o755)
    for rel in CACHES:
        write(os.path.join(home, rel), "cache\n")
    for rel in PRIVATE:
        write(os.path.join(home, rel), "private %s\n" % SECRET)


def make_project(proj, git=True):
    """A project with every protected path present (git init'ed)."""
    os.makedirs(proj, exist_ok=True)
    if git:
        subprocess.run(["git", "init", "-q", proj], check=True,
                       env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                            "HOME": proj})
    for path, is_dir, inner in PROTECTED:
        full = os.path.join(proj, path)
        if is_dir:
            write(os.path.join(full, inner), "original\n", 0o755)
        elif path == ".git/config":
            with open(full, "a") as f:
                f.write("# original\n")
        else:
            write(full, "original\n")
    write(os.path.join(proj, "README"), "hello\n")
    return proj


def snapshot(root):
    """{relative path: sha256} of every file under root."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for n in files + [d for d in dirs if os.path.islink(
                os.path.join(dirpath, d))]:
            p = os.path.join(dirpath, n)
            try:
                with open(p, "rb") as f:
                    out[os.path.relpath(p, root)] = hashlib.sha256(
                        f.read()).hexdigest()
            except OSError:
                out[os.path.relpath(p, root)] = "?"
        for d in dirs:
            out.setdefault(os.path.relpath(os.path.join(dirpath, d), root) +
                           "/", "dir")
    return out


def b64(s):
    return base64.b64decode(s or "").decode(errors="replace")


class Result:
    """What a command did: code, signal, stdout, stderr, the raw result."""

    def __init__(self, r):
        self.raw = r
        self.code = r.get("exit_code")
        self.signal = r.get("signal")
        self.out = b64(r.get("stdout"))
        self.err = b64(r.get("stderr"))
        self.blocked = r.get("blocked", {}).get("files", [])

    def __repr__(self):
        return "<code=%r sig=%r out=%r err=%r blocked=%r>" % (
            self.code, self.signal, self.out[-2000:], self.err[-2000:],
            self.blocked)


def run(c, session, script, argv=None, **params):
    """Run `sh -c script` (or argv) in a session; returns a Result."""
    p = {"session": session, "argv": argv or ["sh", "-c", script],
         "stdio": "pipes"}
    p.update(params)
    return Result(c.call("command.exec", p))


def py(c, session, code, **params):
    """Run a Python program in a session."""
    return run(c, session, None, argv=["python3", "-c", code], **params)


def ok(c, session, script, **params):
    """Run a script that must succeed; returns its stdout."""
    r = run(c, session, script, **params)
    assert r.code == 0, "%s: %r" % (script, r)
    return r.out


def create(c, project, sandbox="workspace", env=None, **kw):
    p = {"project": project, "sandbox": sandbox,
         "env": env if env is not None else {"PATH": "/usr/bin:/bin"}}
    p.update(kw)
    return c.call("session.create", p)["session"]


def has_rule(blocked, path_end, rule, op=None):
    """True when a blocked entry names a path ending in path_end with rule."""
    for b in blocked:
        if b["path"].rstrip("/").endswith(path_end) and b["rule"] == rule \
                and (op is None or b["op"] == op):
            assert b["message"].endswith("refused: " + rule), b
            return True
    return False


def unix_listener(path):
    """A listening Unix socket at path (kept open by the caller)."""
    try:
        os.unlink(path)
    except OSError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o777)
    s.listen(4)
    return s


def sbox_processes(marker):
    """Pids of host processes whose cmdline mentions marker (not us)."""
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if marker.encode() in cmd:
            pids.append(int(p))
    return pids


def mounts_under(path):
    """Mount points of the host (our namespace) at or under path."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            mp = line.split()[4]
            if mp == path or mp.startswith(path.rstrip("/") + "/"):
                out.append(mp)
    return out


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Shared:
    """One daemon for a module's tests, started on first use; stop() at the
    end of the module (teardown_module)."""

    def __init__(self, name, config_fn):
        self.name = name
        self.config_fn = config_fn
        self.d = None
        self.c = None
        self.sessions = {}

    def get(self):
        if self.d is None:
            d = sboxtest.Daemon(None, name=self.name)
            make_home(d.home)
            d.write_config(self.config_fn(d))
            self.d = d
            d.start()
            self.c = d.client()
        return self.d

    def client(self):
        self.get()
        return self.c

    def project(self):
        """The module's project folder (a git repository), made once."""
        p = os.path.join(self.get().root, "proj")
        if not os.path.exists(p):
            make_project(p)
        return p

    def session(self, key, project, sandbox="workspace", env=None):
        """A session kept for the module, created once."""
        if key not in self.sessions:
            self.sessions[key] = create(self.client(), project, sandbox, env)
        return self.sessions[key]

    def log(self):
        return "--- shared sboxd log (%s):\n%s" % (
            self.d.root, self.d.read_log()) if self.d else ""

    def stop(self):
        if self.d is None:
            return
        try:
            for s in self.sessions.values():
                try:
                    self.c.call("session.close", {"session": s})
                except (RpcError, OSError):
                    pass
            self.c.close()
            self.d.stop()
        finally:
            self.d.cleanup()
            self.d = None
            self.sessions = {}


def wait_gone(pred, timeout=10, what="processes to end"):
    sboxtest.wait_for(pred, timeout, what=what)


def now_ms():
    return int(time.time() * 1000)
