/* test-registries.c: registry hosts from the user's tool configuration and
 * from the defaults file (example.test names only). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/registries.h"
#include "policy/strv.h"

static char home[64];

/* Write text to home/rel, creating folders. */
static void
put(const char *rel, const char *text)
{
	char path[256], cmd[300];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", home, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A temp home with tool configs and a defaults file. */
static void
setup(void)
{
	snprintf(home, sizeof home, "%s/sbox-test-reg.XXXXXX",
	    getenv("TMPDIR") && getenv("TMPDIR")[0] == '/' ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(home));
	put(".npmrc", "; npm\nregistry = https://npm.corp.example.test/\n"
	    "@scope:registry=https://user:pw@scoped.example.test:8443/x/\n"
	    "//npm.corp.example.test/:_authToken=secret\n");
	put(".yarnrc.yml", "npmRegistryServer: \"https://yarn.corp.example.test\"\n");
	put(".config/pip/pip.conf", "[global]\nindex-url = https://pip.corp.example.test/simple\n"
	    "extra-index-url =\n    https://pip1.example.test/simple\n"
	    "    https://pip2.example.test/simple\ntimeout = 5\n");
	put(".cargo/config.toml", "[source.crates-io]\nreplace-with = \"corp\"\n"
	    "[source.corp]\nregistry = \"sparse+https://cargo.corp.example.test/index/\"\n");
	put(".nuget/NuGet/NuGet.Config", "<configuration><packageSources>"
	    "<add key=\"corp\" value=\"https://nuget.corp.example.test/v3/index.json\" />"
	    "</packageSources></configuration>\n");
	put("defaults", "# public defaults, maintained by the installer\n"
	    "registry.example.test\n  *.pkgs.example.test  # comment\n\n"
	    "npm.corp.example.test\n");
	put("broken", "ok.example.test\n*.test\n");
}

/* Remove the temp home. */
static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
	ck_assert_int_eq(system(cmd), 0);
	unsetenv("SBOX_REGISTRIES_FILE");
}

/* The user's configuration first, then the defaults; unique. */
START_TEST(test_collect)
{
	char *env[] = { "GOPROXY=https://goproxy.example.test,direct",
	    "PIP_EXTRA_INDEX_URL=https://pip3.example.test/simple", NULL };
	char file[128], **hosts;
	sbox_error err;

	snprintf(file, sizeof file, "%s/defaults", home);
	setenv("SBOX_REGISTRIES_FILE", file, 1);
	ck_assert_int_eq(registries_collect(home, env, NULL, &hosts, &err), 0);
	ck_assert(strv_contains(hosts, "goproxy.example.test"));
	ck_assert(strv_contains(hosts, "pip3.example.test"));
	ck_assert(strv_contains(hosts, "npm.corp.example.test"));
	ck_assert(strv_contains(hosts, "scoped.example.test:8443"));
	ck_assert(strv_contains(hosts, "yarn.corp.example.test"));
	ck_assert(strv_contains(hosts, "pip.corp.example.test"));
	ck_assert(strv_contains(hosts, "pip1.example.test"));
	ck_assert(strv_contains(hosts, "pip2.example.test"));
	ck_assert(strv_contains(hosts, "cargo.corp.example.test"));
	ck_assert(strv_contains(hosts, "nuget.corp.example.test"));
	ck_assert(strv_contains(hosts, "registry.example.test"));
	ck_assert(strv_contains(hosts, "*.pkgs.example.test"));
	ck_assert(!strv_contains(hosts, "direct"));
	/* user config before defaults; duplicates once */
	ck_assert_str_eq(hosts[0], "pip3.example.test");
	ck_assert_str_eq(hosts[strv_len(hosts) - 1], "*.pkgs.example.test");
	strv_free(hosts);
}
END_TEST

/* No defaults file anywhere: only what the user's tools name. */
START_TEST(test_no_defaults)
{
	char fallback[128], **hosts;
	sbox_error err;

	snprintf(fallback, sizeof fallback, "%s/nonexistent", home);
	ck_assert_int_eq(registries_collect(home, NULL, fallback, &hosts, &err), 0);
	if (registries_defaults_file(fallback) == NULL)
		ck_assert(!strv_contains(hosts, "registry.example.test"));
	ck_assert(strv_contains(hosts, "npm.corp.example.test"));
	strv_free(hosts);
	ck_assert_int_eq(registries_collect(NULL, NULL, fallback, &hosts, &err), 0);
	strv_free(hosts);
}
END_TEST

/* A bad line in the defaults file names the file and line. */
START_TEST(test_bad_file)
{
	char file[128], want[160], **hosts = NULL;
	sbox_error err;

	snprintf(file, sizeof file, "%s/broken", home);
	error_clear(&err);
	ck_assert_int_eq(registries_read_file(file, &hosts, &err), -1);
	snprintf(want, sizeof want, "%s:2: bad host pattern", file);
	ck_assert_msg(strncmp(err.message, want, strlen(want)) == 0, "%s", err.message);
	strv_free(hosts);
	snprintf(file, sizeof file, "%s/missing", home);
	setenv("SBOX_REGISTRIES_FILE", file, 1);
	error_clear(&err);
	ck_assert_int_eq(registries_collect(home, NULL, NULL, &hosts, &err), -1);
	ck_assert_str_eq(err.name, E_IO);
}
END_TEST

/* Hosts from URLs. */
START_TEST(test_url_host)
{
	char buf[300];

	ck_assert_int_eq(registries_url_host("https://A.Example.test/x", buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "a.example.test");
	ck_assert_int_eq(registries_url_host("https://u:p@h.example.test:8080", buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "h.example.test:8080");
	ck_assert_int_eq(registries_url_host("http://[2001:db8::1]:81/", buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "[2001:db8::1]:81");
	ck_assert_int_eq(registries_url_host("git+https://g.example.test/r", buf, sizeof buf), 0);
	ck_assert_int_eq(registries_url_host("direct", buf, sizeof buf), -1);
	ck_assert_int_eq(registries_url_host("file:///srv/pkgs", buf, sizeof buf), -1);
	ck_assert_int_eq(registries_url_host("https://bad..host/", buf, sizeof buf), -1);
}
END_TEST

/* Suite of registry tests. */
static Suite *
registries_suite(void)
{
	Suite *s = suite_create("registries");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_collect);
	tcase_add_test(tc, test_no_defaults);
	tcase_add_test(tc, test_bad_file);
	tcase_add_test(tc, test_url_host);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(registries_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
