/* test-hostexec.c: what a run outside the sandbox executes: the variables a
 * request may add (hostenv), the environment built from the person's own,
 * the program resolved with the host's PATH, the folder opened without
 * following symlinks. */
#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/command/hostenv.h"
#include "daemon/command/hostexec.h"
#include "policy/strv.h"

static char tmp[256];

/* Remove one entry of the temporary tree. */
static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

/* A fresh temporary folder (symlinks resolved) per test. */
static void
setup(void)
{
	char t[] = "/tmp/test-hostexec-XXXXXX", *r;

	ck_assert_ptr_nonnull(mkdtemp(t));
	ck_assert_ptr_nonnull(r = realpath(t, NULL));
	ck_assert_uint_lt(strlen(r), sizeof tmp);
	snprintf(tmp, sizeof tmp, "%s", r);
	free(r);
}

/* Remove the temporary folder. */
static void
teardown(void)
{
	nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Write a file under tmp with a mode. */
static void
put(const char *rel, const char *text, mode_t mode)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", tmp, rel);
	ck_assert_ptr_nonnull(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(p, mode), 0);
}

/* Make a folder under tmp. */
static void
dir(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s/%s", tmp, rel);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

/* tmp/rel as a string (static buffer, one at a time per slot). */
static const char *
at(const char *rel, int slot)
{
	static char p[4][512];

	snprintf(p[slot], sizeof p[slot], "%s/%s", tmp, rel);
	return p[slot];
}

/* The names the brief forbids, any case, and names that are not names. */
START_TEST(test_refused_names)
{
	static const char *const bad[] = {
		"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "ld_preload", "PATH",
		"path", "GIT_SSH_COMMAND", "GIT_DIR", "GIT_CONFIG_GLOBAL",
		"GIT_EXEC_PATH", "BASH_ENV", "ENV", "PYTHONPATH", "PYTHONSTARTUP",
		"NODE_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
		"JDK_JAVA_OPTIONS", "RES_OPTIONS", "PERL5LIB", "PERL5OPT",
		"RUBYOPT", "RUBYLIB", "IFS", "PS4", "SHELLOPTS", "BASHOPTS",
		"BASH_FUNC_ls%%", "HOME", "XDG_CONFIG_HOME", "GCONV_PATH",
		"GLIBC_TUNABLES", "DYLD_INSERT_LIBRARIES", "LESSOPEN", "PAGER",
		"EDITOR", "SSH_AUTH_SOCK", "GIT_ASKPASS", "SUDO_ASKPASS",
		"HTTPS_PROXY", "http_proxy", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE",
		"NODE_EXTRA_CA_CERTS", "DOTNET_STARTUP_HOOKS", "MAVEN_OPTS",
		"npm_config_script_shell", "ZDOTDIR", "PROMPT_COMMAND",
		"KUBECONFIG", "AWS_CONFIG_FILE", "DOCKER_CONFIG", "LUA_INIT",
		"SBOX_SOCKET", "LISTEN_FDS", "TMPDIR", "GOFLAGS", "CFLAGS",
		"LDFLAGS", "PKG_CONFIG_PATH", "JAVA_HOME", "CARGO_HOME", "CC",
		"GOTOOLCHAIN", "R_PROFILE_USER", "VIRTUAL_ENV", "",
		"1ABC", "A-B", "A=B", "A B", "caf\xc3\xa9", "X\n",
		/* an allow list: names nobody listed are dropped too */
		"OPENSSL_CONF", "OPENSSL_MODULES", "VIMINIT", "EXINIT",
		"KUBE_EDITOR", "GH_PAGER", "GIT_PAGER", "RSYNC_RSH", "CVS_RSH",
		"GIO_EXTRA_MODULES", "GTK_MODULES", "DBUS_SESSION_BUS_ADDRESS",
		"WGETRC", "CURL_HOME", "INPUTRC", "SYSTEMD_EDITOR", "RELEASE_TAG",
		"MY_VAR", "lang", "term", NULL
	};
	static const char *const good[] = {
		"CI", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM",
		"COLORTERM", "COLUMNS", "LINES", "TZ", "NO_COLOR", NULL
	};
	static const char *const bad_values[][2] = {
		{ "LANG", "/proj/locale" }, { "LC_ALL", "../x" },
		{ "TZ", "/proj/zone" }, { "TZ", ":/proj/zone" },
		{ "TZ", "Europe/../../proj/x" }, { "TZ", "Europe//x" },
		{ "COLUMNS", "80x" }, { "TERM", "xterm;ls" },
		{ "TERM", "../../proj/t" }, { NULL, NULL }
	};
	static const char *const good_values[][2] = {
		{ "LANG", "en_US.UTF-8" }, { "LANGUAGE", "fr:en" },
		{ "TZ", "Europe/Paris" }, { "TZ", "UTC" }, { "COLUMNS", "120" },
		{ "TERM", "xterm-256color" }, { "LC_ALL", "C" },
		{ NULL, NULL }
	};
	size_t i;

	for (i = 0; bad[i] != NULL; i++)
		ck_assert_msg(hostenv_refused(bad[i]) != NULL, "%s allowed",
		    bad[i]);
	for (i = 0; good[i] != NULL; i++)
		ck_assert_msg(hostenv_refused(good[i]) == NULL, "%s refused: %s",
		    good[i], hostenv_refused(good[i]));
	for (i = 0; bad_values[i][0] != NULL; i++)
		ck_assert_msg(hostenv_refused_value(bad_values[i][0],
		    bad_values[i][1], strlen(bad_values[i][1])) != NULL,
		    "%s=%s allowed", bad_values[i][0], bad_values[i][1]);
	for (i = 0; good_values[i][0] != NULL; i++)
		ck_assert_msg(hostenv_refused_value(good_values[i][0],
		    good_values[i][1], strlen(good_values[i][1])) == NULL,
		    "%s=%s refused", good_values[i][0], good_values[i][1]);
}
END_TEST

/* A request's env splits into added and dropped (sorted); bad values and
 * too many variables are errors, a NUL inside a value is dropped. */
START_TEST(test_filter)
{
	json_t *env, *added, *dropped;
	sbox_error err;
	char name[32];
	int i;

	env = json_pack("{s:s, s:s, s:s, s:s, s:s}", "LANG", "C.UTF-8",
	    "PATH", "/proj:/usr/bin", "LD_PRELOAD", "/proj/x.so",
	    "GIT_SSH_COMMAND", "touch /tmp/x", "CI", "true");
	json_object_set_new(env, "TERM", json_stringn("a\0b", 3));
	error_clear(&err);
	ck_assert_int_eq(hostenv_filter(env, &added, &dropped, &err), 0);
	ck_assert_int_eq(json_object_size(added), 2);
	ck_assert_str_eq(json_string_value(json_object_get(added, "LANG")),
	    "C.UTF-8");
	ck_assert_str_eq(json_string_value(json_object_get(added, "CI")),
	    "true");
	ck_assert_int_eq(json_array_size(dropped), 4);
	ck_assert_str_eq(json_string_value(json_array_get(dropped, 0)),
	    "GIT_SSH_COMMAND");
	ck_assert_str_eq(json_string_value(json_array_get(dropped, 1)),
	    "LD_PRELOAD");
	ck_assert_str_eq(json_string_value(json_array_get(dropped, 2)), "PATH");
	ck_assert_str_eq(json_string_value(json_array_get(dropped, 3)), "TERM");
	json_decref(added);
	json_decref(dropped);
	json_decref(env);
	/* none given: both empty */
	ck_assert_int_eq(hostenv_filter(NULL, &added, &dropped, &err), 0);
	ck_assert_int_eq(json_object_size(added), 0);
	ck_assert_int_eq(json_array_size(dropped), 0);
	json_decref(added);
	json_decref(dropped);
	/* a value that is not a string */
	env = json_pack("{s:i}", "N", 5);
	error_clear(&err);
	ck_assert_int_eq(hostenv_filter(env, &added, &dropped, &err), -1);
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	ck_assert_str_eq(err.field, "env");
	ck_assert_ptr_null(added);
	json_decref(env);
	/* too many */
	env = json_object();
	for (i = 0; i <= HOSTENV_MAX_VARS; i++) {
		snprintf(name, sizeof name, "V%d", i);
		json_object_set_new(env, name, json_string("x"));
	}
	error_clear(&err);
	ck_assert_int_eq(hostenv_filter(env, &added, &dropped, &err), -1);
	ck_assert_str_eq(err.field, "env");
	json_decref(env);
}
END_TEST

/* The environment: the person's own (service manager's variables and the
 * old PWD left out), PWD the folder, the added variables on top. */
START_TEST(test_build)
{
	char *base[] = { "PATH=/usr/bin:/bin", "HOME=/home/me", "PWD=/old",
	    "OLDPWD=/older", "LISTEN_FDS=3", "NOTIFY_SOCKET=/run/x", "CI=false",
	    "weird", NULL };
	json_t *added = json_pack("{s:s, s:s}", "CI", "true", "TAG", "v1");
	sbox_error err;
	char **env;

	error_clear(&err);
	env = hostenv_build(base, added, "/proj/sub", &err);
	ck_assert_ptr_nonnull(env);
	ck_assert(strv_contains(env, "PATH=/usr/bin:/bin"));
	ck_assert(strv_contains(env, "HOME=/home/me"));
	ck_assert(strv_contains(env, "PWD=/proj/sub"));
	ck_assert(strv_contains(env, "CI=true"));
	ck_assert(strv_contains(env, "TAG=v1"));
	ck_assert(!strv_contains(env, "CI=false"));
	ck_assert(!strv_contains(env, "PWD=/old"));
	ck_assert(!strv_contains(env, "OLDPWD=/older"));
	ck_assert(!strv_contains(env, "LISTEN_FDS=3"));
	ck_assert(!strv_contains(env, "NOTIFY_SOCKET=/run/x"));
	ck_assert(!strv_contains(env, "weird"));
	ck_assert_int_eq(strv_len(env), 5);
	strv_free(env);
	json_decref(added);
}
END_TEST

/* A bare name is found in the host's PATH only: empty and relative entries
 * (the folder the request names) are never searched; files that are not
 * executable and folders are skipped; the result is absolute, resolved. */
START_TEST(test_resolve_path)
{
	char path[4096], want[PATH_MAX];
	struct stat st, real;
	sbox_error err;
	char *got;
	int fd;

	dir("proj");
	dir("bin1");
	dir("bin2");
	dir("bin1/tool");                      /* a folder: skipped */
	put("proj/tool", "#!/bin/sh\necho shadow\n", 0755);
	put("bin2/tool", "#!/bin/sh\n", 0644);  /* not executable: skipped */
	dir("real");
	put("real/tool-1.0", "#!/bin/sh\necho host\n", 0755);
	dir("bin3");
	ck_assert_int_eq(symlink(at("real/tool-1.0", 0), at("bin3/tool", 1)),
	    0);
	fd = open(at("proj", 0), O_PATH | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchdir(fd), 0);
	snprintf(path, sizeof path, ":.:proj:%s:%s:%s", at("bin1", 0),
	    at("bin2", 1), at("bin3", 2));
	error_clear(&err);
	got = hostexec_resolve("tool", path, fd, &st, &err);
	ck_assert_msg(got != NULL, "%s", err.message);
	snprintf(want, sizeof want, "%s/real/tool-1.0", tmp);
	ck_assert_str_eq(got, want);
	ck_assert_int_eq(stat(want, &real), 0);
	ck_assert(st.st_ino == real.st_ino && st.st_dev == real.st_dev);
	free(got);
	/* Not in the PATH at all: the project's own is never taken. */
	snprintf(path, sizeof path, ".:%s", at("bin1", 0));
	error_clear(&err);
	ck_assert_ptr_null(hostexec_resolve("tool", path, fd, &st, &err));
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	ck_assert_str_eq(err.field, "argv");
	ck_assert_ptr_nonnull(strstr(err.message, "host's PATH"));
	/* The real host PATH finds sh as an absolute path. */
	error_clear(&err);
	got = hostexec_resolve("sh", "/usr/bin:/bin", fd, &st, &err);
	ck_assert_ptr_nonnull(got);
	ck_assert(got[0] == '/');
	free(got);
	ck_assert_int_eq(chdir("/"), 0);
	close(fd);
}
END_TEST

/* A name with a slash is relative to the request's folder (or absolute);
 * the result is the resolved absolute path. */
START_TEST(test_resolve_relative)
{
	struct stat st;
	sbox_error err;
	char *got, want[PATH_MAX];
	int fd;

	dir("proj");
	dir("proj/sub");
	put("proj/sub/run.sh", "#!/bin/sh\n", 0755);
	put("proj/sub/data", "x", 0644);
	fd = open(at("proj", 0), O_PATH | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	error_clear(&err);
	got = hostexec_resolve("./sub/run.sh", "/usr/bin", fd, &st, &err);
	ck_assert_msg(got != NULL, "%s", err.message);
	snprintf(want, sizeof want, "%s/proj/sub/run.sh", tmp);
	ck_assert_str_eq(got, want);
	free(got);
	got = hostexec_resolve(want, "", -1, &st, &err);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
	error_clear(&err);
	ck_assert_ptr_null(hostexec_resolve("sub/data", "", fd, &st, &err));
	ck_assert_str_eq(err.field, "argv");
	error_clear(&err);
	ck_assert_ptr_null(hostexec_resolve("sub", "", fd, &st, &err));
	error_clear(&err);
	ck_assert_ptr_null(hostexec_resolve("", "/usr/bin", fd, &st, &err));
	close(fd);
}
END_TEST

/* A folder is opened when it is a real folder; a symlink anywhere in the
 * path is refused; what is shown is where the descriptor is. */
START_TEST(test_open_dir)
{
	sbox_error err;
	char *shown, p[PATH_MAX];
	struct stat a, b;
	int fd;

	dir("proj");
	dir("proj/sub");
	dir("elsewhere");
	ck_assert_int_eq(symlink(at("elsewhere", 0), at("proj/link", 1)), 0);
	error_clear(&err);
	fd = hostexec_open_dir(at("proj/sub", 0), &shown, &err);
	ck_assert_msg(fd >= 0, "%s", err.message);
	ck_assert_str_eq(shown, at("proj/sub", 0));
	free(shown);
	/* Renamed and replaced by a symlink: the descriptor is the original. */
	snprintf(p, sizeof p, "%s/proj/sub.orig", tmp);
	ck_assert_int_eq(rename(at("proj/sub", 0), p), 0);
	ck_assert_int_eq(symlink(at("elsewhere", 0), at("proj/sub", 1)), 0);
	ck_assert_int_eq(fstat(fd, &a), 0);
	ck_assert_int_eq(stat(p, &b), 0);
	ck_assert(a.st_ino == b.st_ino);
	close(fd);
	error_clear(&err);
	ck_assert_int_eq(hostexec_open_dir(at("proj/sub", 0), &shown, &err),
	    -1);
	ck_assert_str_eq(err.field, "cwd");
	ck_assert_int_eq(hostexec_open_dir(at("proj/link/x", 0), &shown, &err),
	    -1);
	ck_assert_int_eq(hostexec_open_dir("relative", &shown, &err), -1);
	snprintf(p, sizeof p, "%s/proj/nothere", tmp);
	ck_assert_int_eq(hostexec_open_dir(p, &shown, &err), -1);
}
END_TEST

/* The same without openat2: the O_NOFOLLOW walk refuses symlinks too. */
START_TEST(test_open_dir_walk)
{
	sbox_error err;
	char *shown;
	int fd;

	hostexec_force_walk = 1;
	dir("proj");
	dir("proj/sub");
	dir("elsewhere");
	ck_assert_int_eq(symlink(at("elsewhere", 0), at("proj/link", 1)), 0);
	error_clear(&err);
	fd = hostexec_open_dir(at("proj/sub", 0), &shown, &err);
	ck_assert_msg(fd >= 0, "%s", err.message);
	ck_assert_str_eq(shown, at("proj/sub", 0));
	free(shown);
	close(fd);
	ck_assert_int_eq(hostexec_open_dir(at("proj/link", 0), &shown, &err),
	    -1);
	ck_assert_str_eq(err.field, "cwd");
	ck_assert_int_eq(hostexec_open_dir(at("proj/link/x", 0), &shown,
	    &err), -1);
	ck_assert_int_eq(hostexec_open_dir(at("proj/../proj", 0), &shown,
	    &err), -1);
	hostexec_force_walk = 0;
}
END_TEST

/* The Check suite. */
static Suite *
hostexec_suite(void)
{
	Suite *s = suite_create("hostexec");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_refused_names);
	tcase_add_test(tc, test_filter);
	tcase_add_test(tc, test_build);
	tcase_add_test(tc, test_resolve_path);
	tcase_add_test(tc, test_resolve_relative);
	tcase_add_test(tc, test_open_dir);
	tcase_add_test(tc, test_open_dir_walk);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite. */
int
main(void)
{
	SRunner *sr = srunner_create(hostexec_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
