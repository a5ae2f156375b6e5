"""A blocking connect() inside the sandbox (sbox-init performs every
connect, on a copy of the caller's socket): one that is over at once is
answered at once (tried without blocking, the caller's flags put back),
one that has to wait still waits (TCP: the handshake begun is waited for;
Unix: a full listener's queue), with the errors a connect of the caller's
own would give."""
import os

from sandboxlib import create, make_project, run

CONNECT_PY = r"""
import errno, fcntl, os, socket, struct, threading, time

def blocking(s):
    return not fcntl.fcntl(s.fileno(), fcntl.F_GETFL) & os.O_NONBLOCK

# TCP, over at once: the answer, the data, and a socket that still blocks
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(8)
c = socket.socket()
c.connect(srv.getsockname())
a, _ = srv.accept()
c.sendall(b"ping")
print("TCP", a.recv(4).decode(), c.getpeername() == srv.getsockname(),
      blocking(c))
a.close(); c.close()

# TCP, a closed port: refused, as a blocking connect says it
port = srv.getsockname()[1]
srv.close()
c = socket.socket()
try:
    c.connect(("127.0.0.1", port))
    print("REFUSED no")
except OSError as e:
    print("REFUSED", errno.errorcode[e.errno], blocking(c))
c.close()

# A TCP listener whose queue is full (the connections that fill it kept
# in held).
def full_listener(held):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(0)
    for _ in range(4):
        h = socket.socket()
        h.setblocking(False)
        try:
            h.connect(srv.getsockname())
        except BlockingIOError:
            pass
        held.append(h)
    time.sleep(0.2)
    return srv

# TCP, a full queue: the connect waits until it is accepted, and then it
# is connected
held = []
srv = full_listener(held)
def drain():
    time.sleep(0.5)
    srv.setblocking(False)
    end = time.time() + 20
    while time.time() < end:
        try:
            held.append(srv.accept()[0])
        except BlockingIOError:
            time.sleep(0.05)
threading.Thread(target=drain, daemon=True).start()
c = socket.socket()
t = time.time()
c.connect(srv.getsockname())
c.sendall(b"late")
print("WAITED", time.time() - t > 0.3, blocking(c))
c.close()

# the same with a send timeout of the caller's: EINPROGRESS when it ends
held2 = []
srv2 = full_listener(held2)
c = socket.socket()
c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
             struct.pack("ll", 0, 200000))
try:
    c.connect(srv2.getsockname())
    print("TIMEO connected")
except OSError as e:
    print("TIMEO", errno.errorcode[e.errno])

# Unix, a full queue: waits for the accept
path = "/tmp/guard-connect.sock"
u = socket.socket(socket.AF_UNIX)
u.bind(path)
u.listen(0)
uh = []
for _ in range(4):
    h = socket.socket(socket.AF_UNIX)
    h.setblocking(False)
    try:
        h.connect(path)
        uh.append(h)
    except BlockingIOError:
        break
def udrain():
    time.sleep(0.5)
    for _ in range(len(uh) + 1):
        uh.append(u.accept()[0])
threading.Thread(target=udrain, daemon=True).start()
c = socket.socket(socket.AF_UNIX)
t = time.time()
c.connect(path)
print("UNIX", time.time() - t > 0.3, blocking(c))
print("END")
"""


def test_blocking_connects(ctx):
    d = ctx.daemon()
    c = d.client()
    proj = os.path.join(ctx.tmp, "proj")
    make_project(proj)
    s = create(c, proj)
    with open(os.path.join(proj, "conn.py"), "w") as f:
        f.write(CONNECT_PY)
    r = run(c, s, "python3 conn.py")
    lines = r.out.split("\n")
    assert "END" in lines, r
    assert "TCP ping True True" in lines, r
    assert "REFUSED ECONNREFUSED True" in lines, r
    assert "WAITED True True" in lines, r
    assert "TIMEO EINPROGRESS" in lines, r
    assert "UNIX True True" in lines, r
