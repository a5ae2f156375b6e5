/* stdio.h: which descriptors may go into a sandbox as a command's stdio. */
#ifndef SBOX_POLICY_STDIO_H
#define SBOX_POLICY_STDIO_H

/* May fd go into a sandbox as it is? A regular file, a pipe, a socket or
 * one of the memory devices (/dev/null, zero, full, random, urandom); never
 * a terminal or another device (the person's terminal would let the
 * sandbox change its line discipline or answer its queries). */
int stdio_fd_allowed(int fd);

#endif
