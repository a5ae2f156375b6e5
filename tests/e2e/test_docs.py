"""The docs check (issue 40, item 6): every command and subcommand of sbox,
every option of every command (of sbox and of sboxd) and every config key
is defined exactly once in docs/, and nothing is defined there that the
code does not have.

Where the names come from (the real CLI and the real parser, never a list
kept here):
- commands: `sbox --json help` (the client's command table);
- options: the option strings of that table (client/table.c: "x/name="),
  the options its usage lines name, `sbox --help`'s first line and the
  getopt tables of client/main.c; sboxd's `--help` and daemon/main.c's;
- config keys (and the keys of the providers data file): the parser's
  own lists, the "unknown key (expected a, b or
  c)" messages of policy/ (each mapped to its place in the file by GROUPS
  below) and the keys the function that applies a profile compares
  (profile_apply_json()).

Where a definition is (docs/cli.md's structure is in its head):
- a command: a heading `` ## `sbox GROUP` (N) `` or `` ### `sbox CMD SUB` ``;
- an option: a list item `` - `--name ARG`, `-n ARG`: ... `` under its
  command's heading in docs/cli.md (under a plain heading such as
  "Options": the page's command);
- a config key: a row `` | `path.of.key` | ... `` of a table whose first
  column is headed "key", in any page of docs/.
"""
import ast
import glob
import importlib.util
import os
import re
import subprocess

import sboxtest
from sboxtest import Skip

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DOCS = os.path.join(ROOT, "docs")

# Each list of keys the config parser names in an "unknown key (expected
# ...)" message, found by a key only it has, and the paths of the file
# where that object stands (P: a profile's name, ...).
GROUPS = [
    ("resolve", [""]),                          # the top level
    ("all_sessions", ["sandbox."]),
    ("account_folders", ["providers.P."]),
    ("burst", ["approvals."]),
    ("drop_osc", ["terminal."]),
    ("disk_reserve_mb", ["daemon."]),
    ("read_write", ["sandbox.profiles.P.folders."]),
    ("memory_mb", ["sandbox.profiles.P.limits."]),
]
# a binding that names nothing but its sandbox
BINDING = ["spaces.S.", "projects.DIR.", "models.M."]
# the line kinds of the providers data file (NAME KEY VALUE...)
DATA_FILE = ("pass-env", ["NAME "])


# the staged copy the suite runs as another user holds no sources: the
# root pass checks the docs
if not os.path.exists(os.path.join(ROOT, "daemon", "main.c")):
    import pytest
    pytest.skip("the sources are not in this copy of the tree",
                allow_module_level=True)


def need(*parts):
    p = os.path.join(ROOT, *parts)
    if not os.path.exists(p):
        raise Skip("%s is not in this copy of the tree" % os.path.join(*parts))
    return p


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def mkman():
    spec = importlib.util.spec_from_file_location(
        "mkman", need("docs", "mkman.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(*argv):
    r = subprocess.run(list(argv), capture_output=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    return r.stdout.decode()


def c_strings(src):
    """Adjacent C string literals joined (as the compiler does)."""
    return re.sub(r'"\s+"', "", src)


def flags_of(text):
    """The options a usage text names (-x, --name)."""
    return set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text))


def table_entries():
    """The rows of client/table.c: (cmd, sub, usage, summary, opts)."""
    src = read(need("client", "table.c"))
    m = re.search(r"table_subs\[\]\s*=\s*\{(.*?)\n\};", src, re.S)
    assert m, "client/table.c: no table_subs[] (the docs check reads it)"
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    rows, row, last_str = [], None, False
    for tok in re.findall(r'"(?:[^"\\]|\\.)*"|NULL|-?\d+|[{},]', body):
        if tok == "{":
            row, last_str = [], False
        elif tok == "}":
            if row and row[0] is not None:
                rows.append(row[:5])
            row = None
        elif tok == ",":
            last_str = False
        elif row is not None:
            val = ast.literal_eval(tok) if tok.startswith('"') else \
                (None if tok == "NULL" else int(tok))
            if last_str and isinstance(val, str):
                row[-1] += val
            else:
                row.append(val)
            last_str = isinstance(val, str)
    assert len(rows) > 20, "client/table.c: %d rows read" % len(rows)
    return rows


def getopt_table(path):
    """--name and -x of a getopt_long table and its short-option string."""
    src = read(path)
    longs = re.findall(r'\{\s*"([a-z][\w-]*)",\s*\w+_argument,\s*NULL,\s*'
                       r"'(.)'\s*\}", src)
    shorts = "".join(re.findall(r'getopt_long\([^"]*"([^"]*)"', src))
    out = set()
    for name, ch in longs:
        out.add("--" + name)
        if ch.isalpha() and ch in shorts:
            out.add("-" + ch)
    return out


def cli_expected():
    """{command: set of its options} of the real sbox and sboxd."""
    sbox = os.path.join(sboxtest.BIN, "sbox")
    sboxd = os.path.join(sboxtest.BIN, "sboxd")
    import json
    cmds = json.loads(run(sbox, "--json", "help"))["commands"]
    want = {"sbox": set(), "sboxd": set()}
    rows = {(r[0], r[1]): r for r in table_entries()}
    for c in cmds:
        name = "sbox " + c["command"]
        want.setdefault(name, set())
        if c["subcommand"]:
            name += " " + c["subcommand"]
            want.setdefault(name, set())
        opts = flags_of(c["usage"])
        row = rows.get((c["command"], c["subcommand"]))
        assert row is not None, ("sbox --json help names %s, which "
                                 "client/table.c does not" % name)
        for o in row[4].split():
            o = o.rstrip("=")
            short, _, long_ = o.rpartition("/")
            opts.add("--" + long_)
            if short:
                opts.add("-" + short)
        want[name] |= opts
    # the global options: sbox --help's first line and client/main.c
    want["sbox"] |= flags_of(run(sbox, "--help").splitlines()[0])
    want["sbox"] |= getopt_table(need("client", "main.c"))
    helptext = run(sboxd, "--help")
    want["sboxd"] |= flags_of(helptext.split("\n  ")[0]) | {"--help"}
    if os.path.exists(os.path.join(ROOT, "daemon", "main.c")):
        want["sboxd"] |= getopt_table(os.path.join(ROOT, "daemon", "main.c"))
    # --help (and -h) is every command's, defined once for sbox
    for name, opts in want.items():
        if name != "sbox" and name != "sboxd":
            opts.discard("--help")
            opts.discard("-h")
    return want


def cli_documented():
    """({command: count}, {(command, option): count}) of docs/."""
    mm = mkman()
    cmds, opts = {}, {}
    for page in mm.parse(need("docs", "cli.md")):
        cmds[page["name"]] = cmds.get(page["name"], 0) + 1
        for head, kind, elems in page["blocks"]:
            owner = head if kind == "command" else page["name"]
            if kind == "command":
                cmds[head] = cmds.get(head, 0) + 1
            for e in elems:
                if e[0] != "opts":
                    continue
                for names, _ in e[1]:
                    for n in names:
                        k = (owner, n.split()[0].split("=")[0])
                        opts[k] = opts.get(k, 0) + 1
    # a command is defined in docs/cli.md only
    for page in glob.glob(os.path.join(DOCS, "*.md")):
        if os.path.basename(page) == "cli.md":
            continue
        for m in re.finditer(r"^#{1,6} `(sbox[^`]*)`", read(page), re.M):
            cmds[m.group(1)] = cmds.get(m.group(1), 0) + 1
    return cmds, opts


def config_expected():
    """The paths of every key the config parser takes."""
    srcs = sorted(glob.glob(os.path.join(need("policy"), "**", "*.c"),
                            recursive=True))
    text = "\n".join(c_strings(re.sub(r"/\*.*?\*/", "", read(p), flags=re.S))
                     for p in srcs)
    keys, unknown, seen = set(), [], set()
    for m in re.finditer(r'unknown key (?:\\"%s\\" )?\(expected ([a-z_][\w, -]*)\)',
                         text):
        names = [n.strip() for n in
                 re.split(r", | or ", m.group(1)) if n.strip()]
        if DATA_FILE[0] in names:
            seen.add(DATA_FILE[0])
            bases = DATA_FILE[1]
        elif names == ["sandbox"]:
            bases = BINDING
        else:
            hit = [(k, b) for k, b in GROUPS if k in names]
            if not hit:
                unknown.append(m.group(1))
                continue
            seen.add(hit[0][0])
            bases = hit[0][1]
        keys |= {b + n for b in bases for n in names}
    assert not unknown, (
        "the config parser lists keys the docs check cannot place: %s; add "
        "the object they belong to to GROUPS in tests/e2e/test_docs.py"
        % unknown)
    assert seen == {k for k, _ in GROUPS} | {DATA_FILE[0]}, (
        "policy/: the parser's \"unknown key (expected ...)\" lists of %s "
        "were not found (the docs check reads the keys from them)" %
        sorted(({k for k, _ in GROUPS} | {DATA_FILE[0]}) - seen))
    # a profile's keys: the function that compares "extends" and "network"
    prof = set()
    for fn in re.split(r"\n\}\n", text):
        names = set(re.findall(r'strcmp\(key, "([a-z_]+)"\) == 0', fn))
        if {"extends", "network", "run_outside"} <= names:
            prof |= names
    assert {"extends", "hosts", "limits"} <= prof, (
        "policy/: no function that applies a profile's keys (strcmp(key, "
        "\"extends\") ...) was found: %s" % sorted(prof))
    keys |= {"sandbox.profiles.P." + k for k in prof}
    return keys


def config_documented():
    """{key path: [page, ...]} of the key tables of docs/."""
    out = {}
    for page in sorted(glob.glob(os.path.join(DOCS, "*.md"))):
        in_keys = False
        for line in read(page).split("\n"):
            if not line.startswith("|"):
                in_keys = False
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0] == "key":
                in_keys = True
                continue
            m = re.match(r"^`([^`]+)`$", cells[0])
            if in_keys and m:
                out.setdefault(m.group(1), []).append(os.path.basename(page))
    return out


def report(what, want, have):
    missing = sorted(k for k in want if have.get(k, 0) == 0)
    twice = sorted("%s (%d times)" % (k, have[k]) for k in want
                   if have.get(k, 0) > 1)
    extra = sorted(k for k in have if k not in want)
    lines = []
    if missing:
        lines.append("%s not documented: %s" % (what, ", ".join(missing)))
    if twice:
        lines.append("%s documented more than once: %s" % (what,
                                                           ", ".join(twice)))
    if extra:
        lines.append("%s documented but not in the code: %s" % (
            what, ", ".join(extra)))
    return lines


def fmt(k):
    return k if isinstance(k, str) else "%s %s" % k


def test_every_command_and_option_documented_once(ctx):
    need("docs", "cli.md")
    want = cli_expected()
    cmds, opts = cli_documented()
    want_opts = {(c, o) for c, os_ in want.items() for o in os_}
    problems = report("commands", set(want), cmds)
    problems += report("options", {fmt(k) for k in want_opts},
                       {fmt(k): v for k, v in opts.items()})
    assert not problems, "docs/cli.md:\n  " + "\n  ".join(problems)


def test_every_config_key_documented_once(ctx):
    need("docs")
    want = config_expected()
    have = config_documented()
    problems = report("config keys", want, {k: len(v) for k, v in have.items()})
    where = ["%s in %s" % (k, ", ".join(v)) for k, v in sorted(have.items())
             if len(v) > 1]
    assert not problems, "docs/ (key tables):\n  " + "\n  ".join(
        problems + where)


def test_docs_links_resolve(ctx):
    """Every relative link of README.md and docs/ names a file that exists,
    and an anchor a heading of that file makes."""
    need("docs")
    bad = []
    pages = [os.path.join(ROOT, "README.md")] + \
        sorted(glob.glob(os.path.join(DOCS, "*.md")))
    for page in pages:
        text = read(page)
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            url = m.group(1)
            if re.match(r"^[a-z]+:", url):
                continue
            path, _, anchor = url.partition("#")
            target = os.path.normpath(os.path.join(os.path.dirname(page),
                                                   path)) if path else page
            if not os.path.exists(target):
                bad.append("%s: %s (no such file)" % (
                    os.path.relpath(page, ROOT), url))
                continue
            if anchor and target.endswith(".md"):
                anchors = set()
                for h in re.findall(r"^#+ (.*)$", read(target), re.M):
                    a = re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
                    anchors.add(a)
                if anchor not in anchors:
                    bad.append("%s: %s (no such heading)" % (
                        os.path.relpath(page, ROOT), url))
    assert not bad, "\n".join(bad)
