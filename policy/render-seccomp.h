/* render-seccomp.h: the plan's system-call policy (enum plan_sys) as a
 * seccomp BPF program built with libseccomp, in a memfd for `bwrap --seccomp`. */
#ifndef SBOX_RENDER_SECCOMP_H
#define SBOX_RENDER_SECCOMP_H

#include "protocol/error.h"

/* The errno a refused socket family gets (as Flatpak does). */
#define RENDER_SECCOMP_SOCKET_ERRNO EAFNOSUPPORT

/* Build the filter for plan_syscalls (an OR of enum plan_sys): default allow;
 * each blocked call fails with EPERM (clone3 with ENOSYS so libc falls back
 * to clone, socket families with EAFNOSUPPORT). The native architecture and
 * its compat one (x86 on x86_64, arm on aarch64) are covered; any other ABI
 * (x32) is killed. On success *fd_out is a sealed-size memfd positioned at 0
 * holding the raw BPF program (close-on-exec set; the caller clears it or dups
 * the fd for bwrap). */
int render_seccomp(unsigned plan_syscalls, int *fd_out, sbox_error *err);

#endif
