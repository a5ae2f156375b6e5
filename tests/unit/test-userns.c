/* test-userns.c: the settings that restrict user namespaces as read from
 * /proc/sys and the kernel's AppArmor profile list, and the sentence that
 * says, for each state, what restricts them and the one command that
 * fixes it (or what applies as root). */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/container/userns.h"

/* A state where nothing restricts anything and the probe failed. */
static struct userns_state
state(void)
{
	struct userns_state st;

	memset(&st, 0, sizeof st);
	st.apparmor_restrict = -1;
	st.userns_clone = -1;
	st.max_userns = 15000;
	st.probed = 1;
	st.probe_step = USERNS_PROBE_UID_MAP;
	st.probe_errno = EPERM;
	return st;
}

/* A /proc/sys value: one integer, else -1. */
START_TEST(test_sysctl_parse)
{
	ck_assert_int_eq(userns_sysctl_parse("1\n"), 1);
	ck_assert_int_eq(userns_sysctl_parse("0"), 0);
	ck_assert_int_eq(userns_sysctl_parse("96367\n"), 96367);
	ck_assert_int_eq(userns_sysctl_parse(""), -1);
	ck_assert_int_eq(userns_sysctl_parse(NULL), -1);
	ck_assert_int_eq(userns_sysctl_parse("x\n"), -1);
	ck_assert_int_eq(userns_sysctl_parse("-1\n"), -1);
	ck_assert_int_eq(userns_sysctl_parse("1 2\n"), -1);
	ck_assert_int_eq(userns_sysctl_parse("99999999999999999999999\n"), -1);
}
END_TEST

/* The profile list: "NAME (MODE)" lines; a longer name is another. */
START_TEST(test_profile_listed)
{
	const char *list = "/usr/bin/man (enforce)\nsbox-bwrap (unconfined)\n"
	    "sboxd (unconfined)\n";

	ck_assert(userns_profile_listed(list, "sbox-bwrap"));
	ck_assert(userns_profile_listed(list, "sboxd"));
	ck_assert(!userns_profile_listed("sbox-bwrap-old (enforce)\n",
	    "sbox-bwrap"));
	ck_assert(!userns_profile_listed("xsbox-bwrap (enforce)\n",
	    "sbox-bwrap"));
	ck_assert(!userns_profile_listed("", "sbox-bwrap"));
	ck_assert(!userns_profile_listed(NULL, "sbox-bwrap"));
	ck_assert(!userns_profile_listed("sbox-bwrap", "sbox-bwrap"));
}
END_TEST

/* AppArmor's restriction: `sudo make install` (the profile), or the
 * blunt sysctl; installed but not loaded: apparmor_parser -r. */
START_TEST(test_explain_apparmor)
{
	struct userns_state st = state();
	char buf[1024];

	st.apparmor_restrict = 1;
	ck_assert_int_eq(userns_explain(&st, "/usr/bin/bwrap", buf, sizeof buf),
	    0);
	ck_assert_ptr_nonnull(strstr(buf, "user namespaces are restricted"));
	ck_assert_ptr_nonnull(strstr(buf,
	    "kernel.apparmor_restrict_unprivileged_userns=1"));
	ck_assert_ptr_nonnull(strstr(buf, "`sudo make install`"));
	ck_assert_ptr_nonnull(strstr(buf, "/usr/bin/bwrap"));
	ck_assert_ptr_nonnull(strstr(buf, "`sudo sysctl "
	    "kernel.apparmor_restrict_unprivileged_userns=0`"));
	ck_assert_ptr_nonnull(strstr(buf, "uid_map: Operation not permitted"));
	st.profile_installed = 1;
	ck_assert_int_eq(userns_explain(&st, NULL, buf, sizeof buf), 0);
	ck_assert_ptr_nonnull(strstr(buf, "`sudo apparmor_parser -r "
	    USERNS_PROFILE_FILE "`"));
	ck_assert_ptr_null(strstr(buf, "make install"));
	st.profile_loaded = 1;
	ck_assert_int_eq(userns_explain(&st, "/opt/bwrap", buf, sizeof buf), 1);
	ck_assert_ptr_nonnull(strstr(buf, "is loaded"));
	ck_assert_ptr_nonnull(strstr(buf, "BWRAP=/opt/bwrap"));
	/* sboxd's own profile lets the probe through */
	st.probe_step = USERNS_PROBE_NONE;
	st.probe_errno = 0;
	ck_assert_int_eq(userns_explain(&st, NULL, buf, sizeof buf), 1);
	ck_assert_ptr_nonnull(strstr(buf, "allows them to sboxd and its bwrap"));
}
END_TEST

/* Debian's switch and the namespace count name their own sysctl. */
START_TEST(test_explain_sysctls)
{
	struct userns_state st = state();
	char buf[1024];

	st.userns_clone = 0;
	st.apparmor_restrict = 1;
	ck_assert_int_eq(userns_explain(&st, NULL, buf, sizeof buf), 0);
	ck_assert_ptr_nonnull(strstr(buf,
	    "`sudo sysctl kernel.unprivileged_userns_clone=1`"));
	st.max_userns = 0;
	st.probe_step = USERNS_PROBE_UNSHARE;
	st.probe_errno = ENOSPC;
	ck_assert_int_eq(userns_explain(&st, NULL, buf, sizeof buf), 0);
	ck_assert_ptr_nonnull(strstr(buf, "user.max_user_namespaces is 0"));
	ck_assert_ptr_nonnull(strstr(buf,
	    "`sudo sysctl user.max_user_namespaces=15000`"));
	ck_assert_ptr_nonnull(strstr(buf, "unshare(CLONE_NEWUSER): No space"));
	/* root too: the count holds for every user */
	st.root = 1;
	ck_assert_int_eq(userns_explain(&st, NULL, buf, sizeof buf), 0);
	ck_assert_ptr_nonnull(strstr(buf, "root too"));
}
END_TEST

/* As root the unprivileged switches do not apply: the sentence says so
 * and names neither their fix nor the AppArmor profile. */
START_TEST(test_explain_root)
{
	struct userns_state st = state();
	char buf[1024];

	st.root = 1;
	st.apparmor_restrict = 1;
	st.userns_clone = 0;
	ck_assert_int_eq(userns_explain(&st, NULL, buf, sizeof buf), 0);
	ck_assert_ptr_nonnull(strstr(buf, "as root"));
	ck_assert_ptr_nonnull(strstr(buf, "do not apply"));
	ck_assert_ptr_null(strstr(buf, "make install"));
	ck_assert_ptr_null(strstr(buf, "sysctl kernel."));
	st.probe_step = USERNS_PROBE_NONE;
	ck_assert_int_eq(userns_explain(&st, NULL, buf, sizeof buf), 1);
	ck_assert_ptr_nonnull(strstr(buf, "as root"));
}
END_TEST

/* Nothing restricts them, yet they are refused: a filter or a container;
 * a probe that worked says so; a small buffer stays terminated. */
START_TEST(test_explain_other)
{
	struct userns_state st = state();
	char buf[1024], small[16];

	st.probe_step = USERNS_PROBE_UNSHARE;
	ck_assert_int_eq(userns_explain(&st, NULL, buf, sizeof buf), 0);
	ck_assert_ptr_nonnull(strstr(buf, "user namespaces are restricted"));
	ck_assert_ptr_nonnull(strstr(buf, "seccomp"));
	st.probed = 0;
	ck_assert_int_eq(userns_explain(&st, NULL, buf, sizeof buf), 0);
	ck_assert_ptr_null(strstr(buf, "unshare(CLONE_NEWUSER)"));
	st.probed = 1;
	st.probe_step = USERNS_PROBE_NONE;
	ck_assert_int_eq(userns_explain(&st, NULL, buf, sizeof buf), 1);
	ck_assert_ptr_nonnull(strstr(buf, "was made"));
	st.probe_step = USERNS_PROBE_UNSHARE;
	st.apparmor_restrict = 1;
	ck_assert_int_eq(userns_explain(&st, NULL, small, sizeof small), 0);
	ck_assert_uint_eq(strlen(small), sizeof small - 1);
}
END_TEST

/* The probe on this machine: it ran and said where it stopped. */
START_TEST(test_probe_runs)
{
	struct userns_state st;
	char buf[1024];

	userns_read(&st);
	userns_probe(&st);
	ck_assert(st.probed);
	ck_assert(st.probe_step != USERNS_PROBE_FORK);
	ck_assert_int_eq(st.probe_step == USERNS_PROBE_NONE,
	    st.probe_errno == 0);
	userns_explain(&st, NULL, buf, sizeof buf);
	ck_assert(buf[0] != '\0');
}
END_TEST

/* The suite. */
static Suite *
userns_suite(void)
{
	Suite *s = suite_create("userns");
	TCase *tc = tcase_create("explain");

	tcase_add_test(tc, test_sysctl_parse);
	tcase_add_test(tc, test_profile_listed);
	tcase_add_test(tc, test_explain_apparmor);
	tcase_add_test(tc, test_explain_sysctls);
	tcase_add_test(tc, test_explain_root);
	tcase_add_test(tc, test_explain_other);
	tcase_add_test(tc, test_probe_runs);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(userns_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
