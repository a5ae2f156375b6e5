#!/usr/bin/env bash
# bench-host-agent.sh: the wall time of a scripted agent run (Claude Code,
# the pinned CLI of tests/agents, against tests/e2e/modelapi.py: 6 shell
# tool calls, then an answer) with its shell commands in a session (`sbox
# agent claude`: session made, each command through sbox shell, session
# closed) over the same run with its commands on the host (its own bash).
# And the same run with the agent itself inside a session (`sbox session
# exec`: the CLI, its API calls through local_ports, its tool commands in
# the sandbox) over the host's run: bench: inside-agent.
# Medians of 3 interleaved rounds. A figure, never a failure: without the
# agent CLIs installed (tests/agents) it says so and stops.
set -u
BIN=${BIN:-$(pwd)/bin}
cd "$(dirname "$0")/../.."
SBOX_BIN="$BIN" exec python3 - <<'PY'
import json, os, socket, statistics, subprocess, sys, time
sys.path.insert(0, "tests/e2e")
import sboxtest
sboxtest.BIN = os.environ["SBOX_BIN"]
import agentlib
import modelapi

try:
    if not os.path.exists(agentlib.install_dir()):
        raise sboxtest.Skip("tests/agents is not installed in " +
                            agentlib.install_dir())
    dag = agentlib.install()
except sboxtest.Skip as e:
    print("   skipped: %s" % e)
    sys.exit(0)
turns = [{"shell": "echo step-%d >> log.txt && wc -l log.txt" % i}
         for i in range(6)] + [{"text": "done"}]
# one port for every round's mock: the inside profile names it
_s = socket.socket()
_s.bind(("127.0.0.1", 0))
PORT = _s.getsockname()[1]
_s.close()
d = sboxtest.Daemon({"sandbox": {"profiles": {"agents": {
    "extends": "strict", "local_ports": [PORT],
    # node's WebAssembly reserves address space by the gigabyte
    "limits": {"memory_mb": 65536},
    "folders": {"read_only": [dag]}}}},
    "providers": {"claude": {"sandbox": "agents"}}}, name="bench-agent")
try:
    d.start()
    proj = os.path.join(d.root, "proj")
    os.makedirs(proj)
    subprocess.run(["git", "init", "-q", proj], check=True)
    if os.geteuid() == 0:
        for p in (proj, d.home):
            os.chmod(p, 0o777)
    os.makedirs(os.path.join(d.home, ".claude"), exist_ok=True)
    if os.geteuid() == 0:
        for p in (proj, d.home, os.path.join(d.home, ".claude")):
            os.chmod(p, 0o777)
    sbox = os.path.join(sboxtest.BIN, "sbox")
    r = subprocess.run([sbox, "session", "create", "--project", proj,
                        "--provider", "claude"], env=d.env(),
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        print("   session create failed: %s" % r.stderr[-300:])
        sys.exit(1)
    sid = r.stdout.strip()
    times = {"host": [], "sbox agent": [], "inside": []}
    for rnd in range(3):
        for mode in ("host", "sbox agent", "inside"):
            api = modelapi.ModelAPI(turns)
            port = api.start(port=PORT)
            argv, env = agentlib.command("claude", dag,
                                         "http://127.0.0.1:%d" % port,
                                         "go", d.home)
            e = dict(d.env(), **env)
            if mode == "sbox agent":
                argv = [sbox, "agent", "--bin", argv[0], "claude"] + argv[1:]
            elif mode == "inside":
                envargs = []
                for k, v in dict(env, NO_PROXY="127.0.0.1",
                                 no_proxy="127.0.0.1").items():
                    envargs += ["--env", "%s=%s" % (k, v)]
                argv = [sbox, "session", "exec"] + envargs + [sid, "--"] + \
                    argv
            t0 = time.monotonic()
            r = subprocess.run(argv, cwd=proj, env=e, capture_output=True,
                               timeout=300)
            dt = time.monotonic() - t0
            api.stop()
            if r.returncode != 0:
                print("   %s run failed: %s" % (mode, r.stderr[-300:]))
                sys.exit(1)
            times[mode].append(dt)
    h = statistics.median(times["host"])
    s = statistics.median(times["sbox agent"])
    print("   %-52s %8.2f s" % ("Claude Code, 6 shell calls, commands on the host", h))
    print("   %-52s %8.2f s" % ("the same through sbox agent (session, sbox shell)", s))
    i = statistics.median(times["inside"])
    print("   %-52s %8.2f s" % ("the agent itself inside a session", i))
    ratio = s / h
    print("bench: host-agent %.2fx goal 1.1 %s" % (ratio, "met" if ratio <= 1.1 else "unmet"))
    ratio = i / h
    print("bench: inside-agent %.2fx goal 1.1 %s" % (ratio, "met" if ratio <= 1.1 else "unmet"))
finally:
    d.cleanup()
PY
