"""usernslib: a stand-in for a machine that restricts user namespaces, for
one process tree only (other people's tests on the same machine go on
unchanged): `python3 usernslib.py PROGRAM ARGS...` runs PROGRAM under a
seccomp filter that refuses unshare() and clone() with CLONE_NEWUSER
(EPERM, as a kernel that refuses them to this user answers) and answers
clone3 with ENOSYS (its flags are out of a filter's reach; glibc then
falls back to clone). The filter holds for everything PROGRAM starts:
sboxd's own probe, its proxy's jail and the bwrap of every session."""
import ctypes
import os
import platform
import struct
import sys

CLONE_NEWUSER = 0x10000000
# (audit arch, unshare, clone, clone3) per machine
ARCHES = {
    "x86_64": (0xc000003e, 272, 56, 435),
    "aarch64": (0xc00000b7, 97, 220, 435),
}
RET_ALLOW = 0x7fff0000
RET_ERRNO = 0x00050000
EPERM, ENOSYS = 1, 38
LD_W_ABS, JEQ_K, JSET_K, RET_K = 0x20, 0x15, 0x45, 0x06


def supported():
    return platform.machine() in ARCHES


def _ins(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


def program():
    """The filter: arch, syscall number, flags (args[0], low 32 bits)."""
    arch, unshare, clone, clone3 = ARCHES[platform.machine()]
    p = [
        _ins(LD_W_ABS, 0, 0, 4),              # 0 arch
        _ins(JEQ_K, 0, 7, arch),              # 1 other arch: allow
        _ins(LD_W_ABS, 0, 0, 0),              # 2 nr
        _ins(JEQ_K, 6, 0, clone3),            # 3 -> 10 ENOSYS
        _ins(JEQ_K, 1, 0, unshare),           # 4 -> 6
        _ins(JEQ_K, 0, 3, clone),             # 5 other: allow (9)
        _ins(LD_W_ABS, 0, 0, 16),             # 6 flags
        _ins(JSET_K, 0, 1, CLONE_NEWUSER),    # 7 -> 8 EPERM, else 9
        _ins(RET_K, 0, 0, RET_ERRNO | EPERM),  # 8
        _ins(RET_K, 0, 0, RET_ALLOW),          # 9
        _ins(RET_K, 0, 0, RET_ERRNO | ENOSYS),  # 10
    ]
    return b"".join(p), len(p)


def refuse_userns():
    """Install the filter on this process (it is inherited)."""
    libc = ctypes.CDLL(None, use_errno=True)
    code, n = program()
    buf = ctypes.create_string_buffer(code, len(code))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = Fprog(n, ctypes.cast(buf, ctypes.c_void_p))
    # no_new_privs: needed without CAP_SYS_ADMIN (as root it is left off)
    if os.geteuid() != 0 and libc.prctl(38, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
    if libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP")


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def no_more_userns():
    """The other stand-in, for a user only: enter a user namespace of this
    process's own (its uid and gid mapped to themselves) and set its
    user.max_user_namespaces to 0 there, which holds for that namespace
    only: nothing started after can make a user namespace (ENOSPC), and
    /proc/sys/user/max_user_namespaces reads 0 as on a machine that
    disables them."""
    uid, gid = os.geteuid(), os.getegid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER)")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", "%d %d 1\n" % (uid, uid))
    _write("/proc/self/gid_map", "%d %d 1\n" % (gid, gid))
    _write("/proc/sys/user/max_user_namespaces", "0\n")


def wrap(argv, how="seccomp"):
    """argv run under the stand-in (how: "seccomp" or "max0")."""
    return [sys.executable, os.path.abspath(__file__), how] + list(argv)


if __name__ == "__main__":
    if sys.argv[1] == "max0":
        no_more_userns()
    else:
        refuse_userns()
    os.execv(sys.argv[2], sys.argv[2:])
