"""clilib: helpers for the CLI's end-to-end tests: run sbox with its stderr
on a pseudo-terminal (what a person sees) or through pipes."""
import os
import pty
import select
import subprocess

import sboxtest


def sbox_path():
    return os.path.join(sboxtest.BIN, "sbox")


def run_tty(d, *args, env=None, timeout=60, cwd=None):
    """Run sbox with stderr (and stdin) on a pseudo-terminal, stdout a pipe.
    Returns (returncode, stdout bytes, terminal text)."""
    e = d.env()
    if env:
        e.update(env)
    master, slave = pty.openpty()
    p = subprocess.Popen([sbox_path()] + list(args), stdin=slave,
                         stdout=subprocess.PIPE, stderr=slave, env=e,
                         cwd=cwd)
    os.close(slave)
    term = b""
    out = b""
    try:
        while True:
            r, _, _ = select.select([master, p.stdout], [], [], timeout)
            if not r:
                p.kill()
                raise AssertionError("sbox %s hung" % " ".join(args))
            if p.stdout in r:
                chunk = os.read(p.stdout.fileno(), 65536)
                if chunk:
                    out += chunk
            if master in r:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    break
                term += chunk
    finally:
        rc = p.wait(timeout)
        out += p.stdout.read()
        p.stdout.close()
        os.close(master)
    return rc, out, term.decode(errors="replace").replace("\r\n", "\n")


def text(r):
    return r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")
