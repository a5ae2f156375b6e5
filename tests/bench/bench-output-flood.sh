#!/usr/bin/env bash
# bench-output-flood.sh: sboxd's memory under an output flood (issue 22):
# 64 finished commands of 8 MiB kept output in one session, then 16 more in
# two sessions made inside it, with the default budgets (16 MiB per
# top-level session, 256 MiB for the daemon). Prints sboxd's RSS before
# and after, and the peak; keeping everything would take over 640 MiB.
set -u
BIN=${BIN:-$(pwd)/bin}
cd "$(dirname "$0")/../.."
SBOX_BIN="$BIN" exec python3 - <<'PY'
import base64, json, os, sys
sys.path.insert(0, "tests/e2e")
import sboxtest
sboxtest.BIN = os.environ["SBOX_BIN"]
import sandboxlib
import test_isolation as iso

d = sboxtest.Daemon(None, name="bench-flood")
try:
    sandboxlib.make_home(d.home)
    d.start()
    c = d.client()
    proj = sandboxlib.make_project(os.path.join(d.root, "proj"))
    with open(os.path.join(proj, "kids.py"), "w") as f:
        f.write(iso.CHILDREN)
    top = sandboxlib.create(c, proj)
    rss0 = d.rss_kb()
    for _ in range(8):
        iso._flood(c, top, 8)
        iso._all_ended(c, [top])
    rss1 = d.rss_kb()
    r = c.call("command.exec", {"session": top, "argv": [
        "python3", "kids.py", "2", "8", "sh", "-c", iso.FLOOD],
        "channel": True, "timeout": 300})
    kids = json.loads(base64.b64decode(r["stdout"]).decode().strip())
    iso._all_ended(c, [top] + kids)
    rss2 = d.rss_kb()
    with open("/proc/%d/status" % d.proc.pid) as f:
        hwm = [l.split()[1] for l in f if l.startswith("VmHWM:")][0]
    print("   %-44s %8d KiB" % ("sboxd RSS, idle with one session", rss0))
    print("   %-44s %8d KiB" % ("after 64 x 8 MiB kept output", rss1))
    print("   %-44s %8d KiB" % ("after 16 x 8 MiB more in 2 child sessions",
                                 rss2))
    print("   %-44s %8s KiB" % ("peak (VmHWM)", hwm))
    # the goal (issue 22): kept output stays within the daemon's budget
    # (256 MiB by default) instead of everything (over 640 MiB here)
    grow = (int(hwm) - rss0) / 1024.0
    print("   peak growth %.1f MiB = %.2fx the daemon's 256 MiB output budget"
          " (goal <= 1x: %s)" % (grow, grow / 256, "met" if grow <= 256
                                   else "not met"))
    c.close()
finally:
    d.cleanup()
PY
