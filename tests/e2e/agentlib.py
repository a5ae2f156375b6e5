"""agentlib: the real agent CLIs (tests/agents, pinned by its lockfile)
for end-to-end tests, and how to run each against a modelapi.ModelAPI.

    d = agentlib.install()          # folder with node_modules/.bin/...
    argv, env = agentlib.command("claude", d, "http://127.0.0.1:PORT",
                                 "make the file", home)

install() runs `npm ci` once into $SBOX_AGENTS_DIR, or else
/var/tmp/sbox-agents-<first 16 hex of the lockfile's sha256>, and reuses
that install later. It raises sboxtest.Skip when npm (or node) is absent
or the install fails.
"""
import hashlib
import json
import os
import shutil
import subprocess

from sboxtest import Skip

HERE = os.path.dirname(os.path.abspath(__file__))
AGENTS = os.path.join(HERE, "..", "agents")
BINS = {"claude": "claude", "codex": "codex", "gemini": "gemini"}


def _lock_hash():
    with open(os.path.join(AGENTS, "package-lock.json"), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def install_dir():
    return os.environ.get("SBOX_AGENTS_DIR") or os.path.join(
        "/var/tmp", "sbox-agents-" + _lock_hash())


def _ready(d):
    return all(os.path.exists(os.path.join(d, "node_modules", ".bin", b))
               for b in BINS.values()) and (
        os.environ.get("SBOX_AGENTS_DIR") or
        os.path.exists(os.path.join(d, ".sbox-installed")))


def install(timeout=900):
    """The folder holding node_modules/.bin/{claude,codex,gemini}."""
    d = install_dir()
    if _ready(d):
        return d
    if not shutil.which("npm") or not shutil.which("node"):
        raise Skip("npm/node not found: the agent CLI tests need them to "
                   "install tests/agents (or set SBOX_AGENTS_DIR to an "
                   "existing install)")
    tmp = d + ".tmp.%d" % os.getpid()
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for n in ("package.json", "package-lock.json", ".npmrc"):
        if os.path.exists(os.path.join(AGENTS, n)):
            shutil.copy(os.path.join(AGENTS, n), tmp)
    try:
        r = subprocess.run(["npm", "ci", "--omit-lockfile-registry-resolved",
                            "--no-audit", "--no-fund"], cwd=tmp,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        shutil.rmtree(tmp, ignore_errors=True)
        raise Skip("npm ci of tests/agents took over %ds" % timeout)
    if r.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise Skip("npm ci of tests/agents failed (offline?): " +
                   (r.stderr or r.stdout)[-400:])
    open(os.path.join(tmp, ".sbox-installed"), "w").close()
    try:
        os.rename(tmp, d)
    except OSError:             # another worker finished first
        shutil.rmtree(tmp, ignore_errors=True)
    if not _ready(d):
        raise Skip("tests/agents installed but the agent binaries are "
                   "missing in " + d)
    return d


def command(agent, d, base_url, prompt, home, root=None):
    """(argv, env additions) to run agent once, non-interactively, against
    the mock at base_url (http://HOST:PORT, no path). For Gemini it also
    plants home/.gemini/settings.json (selectedType gemini-api-key:
    GOOGLE_GEMINI_BASE_URL alone makes 0.61 reject the auth type)."""
    bin_ = os.path.join(d, "node_modules", ".bin", BINS[agent])
    if root is None:
        root = os.geteuid() == 0
    if agent == "claude":
        env = {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "fake"}
        if root:
            env["IS_SANDBOX"] = "1"
        return [bin_, "-p", prompt, "--permission-mode",
                "bypassPermissions"], env
    if agent == "codex":
        prov = ('model_providers.mock={name="mock",base_url="%s/v1",'
                'env_key="OPENAI_API_KEY",wire_api="responses",'
                'supports_websockets=false}' % base_url)
        return [bin_, "exec", "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox",
                "-c", prov, "-c", "model_provider=mock", prompt], \
            {"OPENAI_API_KEY": "fake"}
    if agent == "gemini":
        g = os.path.join(home, ".gemini")
        os.makedirs(g, exist_ok=True)
        s = os.path.join(g, "settings.json")
        if not os.path.exists(s):
            with open(s, "w") as f:
                json.dump({"security": {"auth": {
                    "selectedType": "gemini-api-key"}}}, f)
        return [bin_, "-p", prompt, "--yolo"], {
            "GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": base_url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    raise ValueError("unknown agent " + agent)
