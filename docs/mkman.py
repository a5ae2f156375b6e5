#!/usr/bin/env python3
"""mkman.py: docs/cli.md -> one manual page per `## `NAME` (N)` section.

    python3 docs/mkman.py docs/cli.md OUTDIR [VERSION]

docs/cli.md is written in a strict structure (its head says which); this
script and the docs check (tests/e2e/test_docs.py, through parse()) read
it the same way, so a page and the reference cannot drift. Only Python's
standard library: no dependency beyond Debian's python3.
"""
import os
import re
import sys

PAGE = re.compile(r"^## `([^`]+)` \((\d)\)\s*$")
CMD = re.compile(r"^#{2,} `(sbox[^`]*)`")
HEAD = re.compile(r"^(#{2,}) (.*)$")
OPT = re.compile(r"^- ((?:`-[^`]+`(?:, )?)+):(.*)$")


def parse(path):
    """The pages of cli.md: a list of dicts {name, section, title, desc,
    blocks}, where blocks is a list of (heading, kind, body) for the
    page's subsections (kind "command" or "section", heading None for the
    text before the first), and body a list of elements: ("p", text),
    ("code", lines, info), ("list", [text]), ("opts", [(names, text)])."""
    lines = open(path, encoding="utf-8").read().split("\n")
    pages, page, blk = [], None, None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = PAGE.match(line)
        if m:
            page = {"name": m.group(1), "section": m.group(2), "desc": None,
                    "blocks": []}
            blk = [None, "section", []]
            page["blocks"].append(blk)
            pages.append(page)
            i += 1
            continue
        if page is None:
            i += 1
            continue
        h = HEAD.match(line)
        if h and not line.startswith("```"):
            c = CMD.match(line)
            blk = [c.group(1) if c else h.group(2),
                   "command" if c else "section", []]
            page["blocks"].append(blk)
            i += 1
            continue
        if line.startswith("```"):
            info = line[3:].strip()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            blk[2].append(("code", lines[i + 1:j], info))
            i = j + 1
            continue
        if line.strip() == "":
            i += 1
            continue
        if line.startswith("- "):
            items = []
            while i < len(lines) and (lines[i].startswith("- ") or
                                      lines[i].startswith("  ")):
                if lines[i].startswith("- "):
                    items.append(lines[i])
                else:
                    items[-1] += " " + lines[i].strip()
                i += 1
            opts = [OPT.match(t) for t in items]
            if all(opts):
                blk[2].append(("opts", [
                    ([n.strip("`") for n in o.group(1).split(", ")],
                     o.group(2).strip()) for o in opts]))
            else:
                blk[2].append(("list", [t[2:] for t in items]))
            continue
        para = []
        while i < len(lines) and lines[i].strip() != "" and \
                not lines[i].startswith("```") and not HEAD.match(lines[i]) \
                and not lines[i].startswith("- "):
            para.append(lines[i].strip())
            i += 1
        text = " ".join(para)
        if page["desc"] is None and blk[0] is None and not blk[2]:
            page["desc"] = text
        else:
            blk[2].append(("p", text))
    return pages


def esc(s):
    """Plain text as roff: backslashes, dashes, quotes, non-ASCII."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    out = []
    for ch in s:
        out.append(ch if ord(ch) < 128 else "\\[u%04X]" % ord(ch))
    return "".join(out)


def inline(s):
    """Markdown inline text (code, bold, emphasis, links) as roff."""
    s = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", s)
    parts = re.split(r"(`[^`]+`|\*\*[^*]+\*\*|\*[^*\s][^*]*\*)", s)
    out = []
    for p in parts:
        if p.startswith("`") and p.endswith("`") and len(p) > 1:
            out.append("\\fB" + esc(p[1:-1]) + "\\fR")
        elif p.startswith("**") and p.endswith("**") and len(p) > 4:
            out.append("\\fB" + esc(p[2:-2]) + "\\fR")
        elif p.startswith("*") and p.endswith("*") and len(p) > 2:
            out.append("\\fI" + esc(p[1:-1]) + "\\fR")
        else:
            out.append(esc(p))
    return "".join(out)


def line(s):
    """One output line; a leading . or ' would be a request."""
    return "\\&" + s if s[:1] in (".", "'") else s


def body(elems, out, skip_synopsis):
    for e in elems:
        if e[0] == "p":
            out += [".PP", line(inline(e[1]))]
        elif e[0] == "code":
            if skip_synopsis and e[2] == "synopsis":
                continue
            out += [".PP", ".RS 4", ".nf"]
            out += [line(esc(l)) for l in e[1]]
            out += [".fi", ".RE"]
        elif e[0] == "list":
            for t in e[1]:
                out += [".IP \\(bu 2", line(inline(t))]
        elif e[0] == "opts":
            for names, text in e[1]:
                out += [".TP", line(", ".join("\\fB" + esc(n) + "\\fR"
                                               for n in names)),
                        line(inline(text))]


def manname(name):
    return name.replace(" ", "-")


def render(page, pages, version):
    name = manname(page["name"])
    out = ['.\\" %s.%s: made by docs/mkman.py from docs/cli.md; edit that.'
           % (name, page["section"]),
           '.TH %s %s "" "sbox %s" "%s"' % (
               esc(name.upper()), page["section"], esc(version),
               "System Administration" if page["section"] == "8"
               else "User Commands"),
           ".nh", ".SH NAME", "%s \\- %s" % (esc(name), inline(page["desc"] or ""))]
    syn = [e[1] for b in page["blocks"][:1] for e in b[2]
           if e[0] == "code" and e[2] == "synopsis"]
    if not syn:
        syn = [e[1] for b in page["blocks"] for e in b[2]
               if e[0] == "code" and e[2] == "synopsis"]
    out += [".SH SYNOPSIS", ".nf"]
    for s in syn:
        out += [line(esc(l)) for l in s]
    out += [".fi", ".SH DESCRIPTION"]
    body(page["blocks"][0][2], out, True)
    for head, kind, elems in page["blocks"][1:]:
        if kind == "section" and head == "Options":
            out.append(".SH OPTIONS")
            body(elems, out, True)
    if any(b[1] == "command" for b in page["blocks"]):
        out.append(".SH COMMANDS")
    for head, kind, elems in page["blocks"][1:]:
        if kind == "command":
            out.append('.SS "%s"' % esc(head))
            for e in elems:
                if e[0] == "code" and e[2] == "synopsis":
                    out += [".nf"] + [line(esc(l)) for l in e[1]] + [".fi"]
            body(elems, out, True)
    for head, kind, elems in page["blocks"][1:]:
        if kind == "section" and head != "Options":
            out.append('.SH "%s"' % esc(head.upper()))
            body(elems, out, True)
    others = [p for p in pages if p is not page]
    out += [".SH SEE ALSO",
            ",\n".join(".BR %s (%s)" % (esc(manname(p["name"])), p["section"])
                       for p in others) + ";",
            "the reference this page is made from, and the other pages of",
            "sbox's documentation: docs/cli.md and docs/ in its source."]
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: mkman.py docs/cli.md OUTDIR [VERSION]\n")
        return 2
    src, outdir = argv[1], argv[2]
    version = argv[3] if len(argv) > 3 else ""
    pages = parse(src)
    os.makedirs(outdir, exist_ok=True)
    for p in pages:
        f = os.path.join(outdir, "%s.%s" % (manname(p["name"]), p["section"]))
        with open(f + ".tmp", "w", encoding="ascii") as o:
            o.write(render(p, pages, version))
        os.replace(f + ".tmp", f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
