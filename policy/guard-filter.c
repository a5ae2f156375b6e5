/* guard-filter.c: the file guard's notify filter and its seal, built from
 * THE TABLE with libseccomp, and their hex form for the guard message. */
#include "policy/guard-filter.h"
#include "policy/guard-calls.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The compat architecture of this one (0: none), whose numbers the filter
 * also covers. */
static uint32_t
guard_filter_compat(void)
{
#if defined(__x86_64__)
	return SCMP_ARCH_X86;
#elif defined(__aarch64__)
	return SCMP_ARCH_ARM;
#else
	return 0;
#endif
}

/* Add the notify rules of one call of the table to ctx; 0 or -errno. */
static int
guard_filter_rule(scmp_filter_ctx ctx, const struct guard_filter_kind *k,
    int nr, enum guard_call c)
{
	static const int wflags[] = { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC };
	unsigned arg = c == GUARD_CALL_OPEN ? 1 : 2;
	size_t i;
	int rc;

	if (c == GUARD_CALL_EXECVE || c == GUARD_CALL_EXECVEAT)
		/* only to match the profile's `exclude` patterns */
		return k->exclude ? seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr,
		    0) : 0;
	if (c == GUARD_CALL_SENDMSG)
		/* all but the handoff (sealed in every command after it) */
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
		    SCMP_CMP(2, SCMP_CMP_NE, (scmp_datum_t)GUARD_FILTER_HANDOFF));
	if (c == GUARD_CALL_SENDTO)
		/* with an address only (a NULL one reaches the connected
		 * peer, decided at connect) */
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
		    SCMP_CMP(4, SCMP_CMP_NE, 0));
	if (c != GUARD_CALL_OPEN && c != GUARD_CALL_OPENAT)
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	/* (O_TMPFILE always carries O_WRONLY or O_RDWR: matched below) */
	for (i = 0; i < sizeof wflags / sizeof wflags[0]; i++) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
		    SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, (scmp_datum_t)wflags[i],
		    (scmp_datum_t)wflags[i]));
		if (rc < 0)
			return rc;
	}
	/* read-only opens, to report those a hidden path refuses; none
	 * without hidden rules (sandbox.report_reads false) */
	return !k->reads ? 0 : seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
	    SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, (scmp_datum_t)(GUARD_READS_WRITE |
	    GUARD_READS_SKIP), 0));
}

/* Export ctx's BPF into *prog (malloc'd) and *len; 0 or -1. */
static int
guard_filter_export(scmp_filter_ctx ctx, struct sock_filter **prog,
    unsigned short *len)
{
	struct stat st;
	int fd, rc = -1;

	if ((fd = memfd_create("sbox-guard", MFD_CLOEXEC)) < 0)
		return -1;
	if (seccomp_export_bpf(ctx, fd) < 0 || fstat(fd, &st) < 0 ||
	    st.st_size <= 0 || st.st_size % (off_t)sizeof(struct sock_filter) ||
	    st.st_size > GUARD_FILTER_MAX * (off_t)sizeof(struct sock_filter))
		goto out;
	free(*prog);
	if ((*prog = malloc((size_t)st.st_size)) == NULL ||
	    pread(fd, *prog, (size_t)st.st_size, 0) != st.st_size)
		goto out;
	*len = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
	rc = 0;
out:
	close(fd);
	return rc;
}

/* A new filter context that allows by default, for this architecture and
 * its compat one; NULL when it cannot be made. */
static scmp_filter_ctx
guard_filter_ctx(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	uint32_t compat = guard_filter_compat();

	if (ctx == NULL)
		return NULL;
	if (compat != 0 && seccomp_arch_add(ctx, compat) < 0 &&
	    seccomp_arch_exist(ctx, compat) != 0) {
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

/* Build both filters for kind into *f; NULL, or why not. */
const char *
guard_filter_build(const struct guard_filter_kind *kind,
    struct guard_filter *f)
{
	const struct guard_call_line *calls;
	scmp_filter_ctx ctx;
	const char *why = NULL;
	size_t i, n;
	int nr;

	memset(f, 0, sizeof *f);
	calls = guard_calls(&n);
	if ((ctx = guard_filter_ctx()) == NULL)
		return "cannot start a filter for this architecture";
	/* a binary tree of syscall numbers: half the install time of the
	 * default chain, and fewer jumps for each notified call */
	(void)seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	for (i = 0; i < n && why == NULL; i++) {
		if ((nr = seccomp_syscall_resolve_name(calls[i].name)) < 0)
			continue; /* not on this architecture */
		if (calls[i].how == GUARD_HOW_ENOSYS) {
			if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr,
			    0) < 0)
				why = "cannot add a refusal rule";
		} else if (calls[i].call != GUARD_CALL_NONE &&
		    guard_filter_rule(ctx, kind, nr, calls[i].call) < 0)
			why = "cannot add a notify rule";
	}
	if (why == NULL && guard_filter_export(ctx, &f->prog, &f->len) < 0)
		why = "cannot export the notify filter";
	seccomp_release(ctx);
	if (why != NULL) {
		guard_filter_free(f);
		return why;
	}
	/* the seal: the handoff's sendmsg refused from then on */
	if ((ctx = guard_filter_ctx()) == NULL ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
	    seccomp_syscall_resolve_name("sendmsg"), 1, SCMP_CMP(2, SCMP_CMP_EQ,
	    (scmp_datum_t)GUARD_FILTER_HANDOFF)) < 0 ||
	    guard_filter_export(ctx, &f->seal, &f->seal_len) < 0)
		why = "cannot build the handoff's seal";
	seccomp_release(ctx);
	if (why != NULL)
		guard_filter_free(f);
	return why;
}

/* Release what f holds. */
void
guard_filter_free(struct guard_filter *f)
{
	free(f->prog);
	free(f->seal);
	memset(f, 0, sizeof *f);
}

/* Copy a program of len bytes at b into *p (malloc'd) and *n; 0, or -1
 * when it is empty, not whole instructions or longer than
 * GUARD_FILTER_MAX. */
int
guard_filter_copy(const void *b, size_t len, struct sock_filter **p,
    unsigned short *n)
{
	*p = NULL;
	*n = 0;
	if (len == 0 || len % sizeof(struct sock_filter) != 0 ||
	    len / sizeof(struct sock_filter) > GUARD_FILTER_MAX ||
	    (*p = malloc(len)) == NULL)
		return -1;
	memcpy(*p, b, len);
	*n = (unsigned short)(len / sizeof(struct sock_filter));
	return 0;
}
