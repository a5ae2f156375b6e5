/* test-guard-calls.c: the file guard's table of calls (policy/
 * guard-calls.c): well formed, and no call that libseccomp knows and that
 * makes, changes or reaches a name is missing from it. */
#include <check.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/guard-calls.h"
#include "policy/guard-filter.h"

/* Parts of a call's name that say it makes, changes or reaches a name. */
static const char *const naming[] = { "open", "creat", "mkdir", "mknod",
	"link", "rename", "rmdir", "truncate", "chmod", "chown", "utime",
	"xattr", "bind", "connect", "exec", "send", NULL };

/* Calls whose names hold one of those parts but name no file. */
static const char *const not_names[] = { "perf_event_open", "pidfd_open",
	"mq_open", "fsopen", "open_tree", "open_tree_attr", "kexec_load",
	"kexec_file_load", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
	"llistxattr", "flistxattr", "getxattrat", "listxattrat", "fsmount",
	"io_uring_setup", "userfaultfd", "pidfd_getfd", "unshare",
	"create_module", "epoll_create", "epoll_create1",
	"landlock_create_ruleset", "mbind", "memfd_create", "timer_create",
	"timerfd_create",
	"mq_unlink", /* the message queues of the sandbox's own IPC space */
	"sendfile", "sendfile64", /* to an fd: no address */
	"pidfd_send_signal",
	"mq_timedsend", "mq_timedsend_time64", /* the sandbox's own queues */
	NULL };

/* Is s in the NULL-terminated list? */
static int
in_list(const char *const *list, const char *s)
{
	size_t i;

	for (i = 0; list[i] != NULL; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

START_TEST(test_table_well_formed)
{
	const struct guard_call_line *t;
	int seen[GUARD_CALL_COUNT] = { 0 };
	size_t n, i, j;

	t = guard_calls(&n);
	ck_assert_uint_gt(n, 40);
	for (i = 0; i < n; i++) {
		ck_assert_msg(t[i].name != NULL && t[i].name[0] != '\0', "%zu", i);
		ck_assert_msg(t[i].what != NULL && strlen(t[i].what) > 5, "%s",
		    t[i].name);
		for (j = 0; j < i; j++)
			ck_assert_msg(strcmp(t[i].name, t[j].name) != 0,
			    "%s twice", t[i].name);
		/* notified lines name their call; the others none */
		if (t[i].how == GUARD_HOW_NOTIFY || t[i].how == GUARD_HOW_WRITES ||
		    t[i].how == GUARD_HOW_EXEC ||
		    t[i].how == GUARD_HOW_ADDRESS) {
			ck_assert_msg(t[i].call > GUARD_CALL_NONE &&
			    t[i].call < GUARD_CALL_COUNT, "%s", t[i].name);
			seen[t[i].call]++;
		} else
			ck_assert_msg(t[i].call == GUARD_CALL_NONE, "%s",
			    t[i].name);
		ck_assert_ptr_eq(guard_calls_find(t[i].name), &t[i]);
	}
	for (i = 0; i < GUARD_CALL_COUNT; i++)
		ck_assert_msg(seen[i] == 1, "call %zu on %d lines", i, seen[i]);
	ck_assert_ptr_null(guard_calls_find("no_such_call"));
	/* what must hold whatever else changes */
	ck_assert_int_eq(guard_calls_find("openat")->how, GUARD_HOW_WRITES);
	ck_assert_int_eq(guard_calls_find("openat2")->how, GUARD_HOW_ENOSYS);
	ck_assert_int_eq(guard_calls_find("renameat2")->how, GUARD_HOW_NOTIFY);
	ck_assert_int_eq(guard_calls_find("linkat")->how, GUARD_HOW_NOTIFY);
	ck_assert_int_eq(guard_calls_find("bind")->how, GUARD_HOW_NOTIFY);
	ck_assert_int_eq(guard_calls_find("connect")->how, GUARD_HOW_NOTIFY);
	ck_assert_int_eq(guard_calls_find("fchmod")->how, GUARD_HOW_NOTIFY);
	/* a datagram reaches a program as a connect does: decided */
	ck_assert_int_eq(guard_calls_find("sendto")->how, GUARD_HOW_ADDRESS);
	ck_assert_int_eq(guard_calls_find("sendmsg")->how, GUARD_HOW_NOTIFY);
	ck_assert_int_eq(guard_calls_find("sendmmsg")->how, GUARD_HOW_NOTIFY);
	ck_assert_int_eq(guard_calls_find("setxattr")->how, GUARD_HOW_FILTER);
	ck_assert_int_eq(guard_calls_find("fsetxattr")->how, GUARD_HOW_FILTER);
	/* removals and metadata changes: decided, never the kernel's */
	for (i = 0; i < n; i++)
		if (strstr(t[i].name, "unlink") != NULL ||
		    strstr(t[i].name, "rmdir") != NULL ||
		    strstr(t[i].name, "chown") != NULL ||
		    strstr(t[i].name, "utime") != NULL ||
		    strstr(t[i].name, "xattr") != NULL ||
		    strstr(t[i].name, "chmod") != NULL)
			ck_assert_msg(t[i].how != GUARD_HOW_KERNEL, "%s",
			    t[i].name);
	ck_assert_int_eq(guard_calls_find("unlinkat")->call,
	    GUARD_CALL_UNLINKAT);
	ck_assert_int_eq(guard_calls_find("rmdir")->how, GUARD_HOW_NOTIFY);
	ck_assert_int_eq(guard_calls_find("fchown")->how, GUARD_HOW_NOTIFY);
	ck_assert_int_eq(guard_calls_find("utimensat")->how, GUARD_HOW_NOTIFY);
	ck_assert_int_eq(guard_calls_find("fremovexattr")->how,
	    GUARD_HOW_NOTIFY);
	ck_assert_int_eq(guard_calls_find("chown32")->call, GUARD_CALL_CHOWN32);
}
END_TEST

/* Every call of the native and compat architectures whose name says it
 * names a file is in the table (a call libseccomp learns later and the
 * table forgot fails here). */
START_TEST(test_no_call_forgotten)
{
	static const uint32_t arches[] = {
#if defined(__x86_64__)
		SCMP_ARCH_X86_64, SCMP_ARCH_X86,
#elif defined(__aarch64__)
		SCMP_ARCH_AARCH64, SCMP_ARCH_ARM,
#else
		SCMP_ARCH_NATIVE,
#endif
	};
	size_t a, k, checked = 0;
	char *name;
	int nr;

	for (a = 0; a < sizeof arches / sizeof arches[0]; a++)
		for (nr = 0; nr < 1024; nr++) {
			name = seccomp_syscall_resolve_num_arch(arches[a], nr);
			if (name == NULL)
				continue;
			for (k = 0; naming[k] != NULL; k++)
				if (strstr(name, naming[k]) != NULL)
					break;
			if (naming[k] != NULL && !in_list(not_names, name)) {
				ck_assert_msg(guard_calls_find(name) != NULL,
				    "%s (arch %zu, nr %d) is not in the table",
				    name, a, nr);
				checked++;
			}
			free(name);
		}
	ck_assert_uint_gt(checked, 30);
}
END_TEST

/* The filters built from the table (policy/guard-filter.c): each kind of
 * spec gets its own (read-only opens and execve notified only when asked),
 * and a copy of one comes back whole; what is not whole instructions is
 * refused. */
START_TEST(test_filter_kinds_and_copy)
{
	struct guard_filter f[2][2];
	struct guard_filter_kind k;
	struct sock_filter *p, *big;
	unsigned short n;
	size_t len;

	for (k.exclude = 0; k.exclude < 2; k.exclude++)
		for (k.reads = 0; k.reads < 2; k.reads++) {
			ck_assert_ptr_null(guard_filter_build(&k,
			    &f[k.exclude][k.reads]));
			ck_assert_uint_gt(f[k.exclude][k.reads].len, 10);
			ck_assert_uint_gt(f[k.exclude][k.reads].seal_len, 2);
		}
	/* more rules, a longer program */
	ck_assert_uint_gt(f[0][1].len, f[0][0].len);
	ck_assert_uint_gt(f[1][0].len, f[0][0].len);
	ck_assert_uint_gt(f[1][1].len, f[0][1].len);
	/* the seal is the same whatever the kind */
	ck_assert_uint_eq(f[1][1].seal_len, f[0][0].seal_len);
	ck_assert_mem_eq(f[1][1].seal, f[0][0].seal,
	    f[0][0].seal_len * sizeof(struct sock_filter));
	/* a copy comes back whole; not whole instructions, empty or too
	 * long is refused */
	len = f[1][1].len * sizeof(struct sock_filter);
	ck_assert_int_eq(guard_filter_copy(f[1][1].prog, len, &p, &n), 0);
	ck_assert_uint_eq(n, f[1][1].len);
	ck_assert_mem_eq(p, f[1][1].prog, len);
	free(p);
	ck_assert_int_eq(guard_filter_copy(f[1][1].prog, len - 1, &p, &n), -1);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(guard_filter_copy(f[1][1].prog, 0, &p, &n), -1);
	big = calloc(GUARD_FILTER_MAX + 1, sizeof *big);
	ck_assert_ptr_nonnull(big);
	ck_assert_int_eq(guard_filter_copy(big, (GUARD_FILTER_MAX + 1) *
	    sizeof *big, &p, &n), -1);
	ck_assert_int_eq(guard_filter_copy(big, GUARD_FILTER_MAX * sizeof *big,
	    &p, &n), 0);
	ck_assert_uint_eq(n, GUARD_FILTER_MAX);
	free(p);
	free(big);
	for (k.exclude = 0; k.exclude < 2; k.exclude++)
		for (k.reads = 0; k.reads < 2; k.reads++)
			guard_filter_free(&f[k.exclude][k.reads]);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("guard-calls");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_table_well_formed);
	tcase_add_test(tc, test_no_call_forgotten);
	tcase_add_test(tc, test_filter_kinds_and_copy);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
