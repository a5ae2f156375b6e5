/* test-toolconf-find.c: finding npm and Yarn wherever they are installed
 * (version managers' folders in home, whatever PATH is), and npm's registry
 * from its own files when it cannot answer. The registry URLs here are on
 * loopback: no public registry is named. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/session/toolconf.h"
#include "policy/strv.h"

static char root[64];

/* Write text to root/rel (its folders made), mode. */
static void
put(const char *rel, const char *text, mode_t mode)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* A fresh temp folder. */
static void
setup(void)
{
	snprintf(root, sizeof root, "/tmp/sbox-test-toolconf.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

/* Remove the temp folder. */
static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_find_in_home)
{
	char **found, want[256], pathdir[256];
	size_t i;
	int nvm = -1, old = -1, volta = -1, fnm = -1, onpath = -1;

	put("home/.nvm/versions/node/v9.1.0/bin/npm", "#!/bin/sh\n", 0755);
	put("home/.nvm/versions/node/v20.11.0/bin/npm", "#!/bin/sh\n", 0755);
	put("home/.volta/bin/npm", "#!/bin/sh\n", 0755);
	put("home/.local/share/fnm/node-versions/v18.0.0/installation/bin/npm",
	    "#!/bin/sh\n", 0755);
	put("home/.nvm/versions/node/v19.0.0/bin/npm", "not executable\n", 0644);
	put("path/npm", "#!/bin/sh\n", 0755);
	char *saved = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	snprintf(pathdir, sizeof pathdir, "%s/path", root);
	setenv("PATH", pathdir, 1);
	snprintf(want, sizeof want, "%s/home", root);
	found = toolconf_find("npm", want);
	if (saved != NULL)
		setenv("PATH", saved, 1);
	free(saved);
	ck_assert_ptr_nonnull(found);
	for (i = 0; found[i] != NULL; i++) {
		if (strstr(found[i], "v20.11.0/bin/npm"))
			nvm = (int)i;
		if (strstr(found[i], "v9.1.0/bin/npm"))
			old = (int)i;
		if (strstr(found[i], ".volta/bin/npm"))
			volta = (int)i;
		if (strstr(found[i], "fnm/node-versions/v18.0.0"))
			fnm = (int)i;
		if (strstr(found[i], "/path/npm"))
			onpath = (int)i;
		ck_assert_ptr_null(strstr(found[i], "v19.0.0"));
	}
	ck_assert_int_eq(onpath, 0);	/* PATH first */
	ck_assert(nvm > 0 && old > nvm);	/* newest version first */
	ck_assert(volta > old && fnm > volta);
	strv_free(found);
}
END_TEST

START_TEST(test_npm_default_from_its_files)
{
	char npm[256], host[256], src[512];

	/* PREFIX/bin/npm -> PREFIX/lib/node_modules/npm/bin/npm-cli.js */
	put("p/lib/node_modules/npm/bin/npm-cli.js", "#!/bin/sh\n", 0755);
	put("p/lib/node_modules/npm/node_modules/@npmcli/config/lib/definitions/"
	    "definitions.js", "const x = 1\n  registry: new Definition('registry', {\n"
	    "    default: 'http://127.0.0.1:4873/',\n    type: url,\n", 0644);
	snprintf(npm, sizeof npm, "%s/p/bin", root);
	mkdir(npm, 0755);
	snprintf(npm, sizeof npm, "%s/p/bin/npm", root);
	snprintf(src, sizeof src, "../lib/node_modules/npm/bin/npm-cli.js");
	ck_assert_int_eq(symlink(src, npm), 0);
	ck_assert_int_eq(toolconf_find_npm_default(npm, host, sizeof host, src,
	    sizeof src), 0);
	ck_assert_str_eq(host, "127.0.0.1:4873");
	ck_assert_ptr_nonnull(strstr(src, "definitions.js"));
	/* its built-in npmrc wins over the built-in default */
	put("p/lib/node_modules/npm/npmrc", "registry=http://127.0.0.2:4874/\n",
	    0644);
	ck_assert_int_eq(toolconf_find_npm_default(npm, host, sizeof host, src,
	    sizeof src), 0);
	ck_assert_str_eq(host, "127.0.0.2:4874");
	/* and its global npmrc wins over both */
	put("p/etc/npmrc", "; comment\nregistry = \"http://127.0.0.3:4875/\"\n",
	    0644);
	ck_assert_int_eq(toolconf_find_npm_default(npm, host, sizeof host, src,
	    sizeof src), 0);
	ck_assert_str_eq(host, "127.0.0.3:4875");
	ck_assert_ptr_nonnull(strstr(src, "/p/etc/npmrc"));
	/* nothing to read */
	snprintf(npm, sizeof npm, "%s/none/bin/npm", root);
	ck_assert_int_eq(toolconf_find_npm_default(npm, host, sizeof host, src,
	    sizeof src), -1);
}
END_TEST

/* Suite of toolconf-find tests. */
static Suite *
toolconf_find_suite(void)
{
	Suite *s = suite_create("toolconf-find");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_find_in_home);
	tcase_add_test(tc, test_npm_default_from_its_files);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(toolconf_find_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
