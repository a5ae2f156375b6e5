/* test-agentcfg.c: the paths an agent's settings name (policy/agentcfg.c):
 * JSON with key paths, JSONC and TOML through the scanner, the agents'
 * variables, data keys. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "policy/agentcfg.h"

/* The setting that named path in n, or NULL. */
static const char *
named_by(const struct agentcfg_named *n, const char *path)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		if (strcmp(n->paths[i], path) == 0)
			return n->by[i];
	return NULL;
}

/* Parse text as the settings file file; 0 or -1. */
static int
parse(const char *file, const char *text, int toml, char *const *data,
    struct agentcfg_named *out)
{
	struct agentcfg_where w = { "/h", "/p", file };
	sbox_error err;

	memset(out, 0, sizeof *out);
	return agentcfg_parse(text, strlen(text), toml, &w, data, out, &err);
}

START_TEST(test_json_values)
{
	struct agentcfg_named n;
	char *data[] = { "projects.*.exampleFiles", "cachedChangelog", NULL };
	const char *by;

	ck_assert_int_eq(parse("/h/.claude/settings.json",
	    "{\"statusLine\": {\"command\": \"bash ~/.claude/line.sh\"},"
	    " \"hooks\": {\"Stop\": [{\"hooks\": [{\"command\":"
	    " \"\\\"$CLAUDE_PROJECT_DIR\\\"/tools/x.sh --fast\"}]}]},"
	    " \"apiKeyHelper\": \"sh keyhelp\","
	    " \"model\": \"opus\", \"env\": {\"A\": \"B\"},"
	    " \"url\": \"https://example.test/a/b\","
	    " \"projects\": {\"/p\": {\"exampleFiles\": [\"src/a.c\"]}},"
	    " \"cachedChangelog\": \"fixed docs/x.md\"}", 0, data, &n), 0);
	by = named_by(&n, "/h/.claude/line.sh");
	ck_assert_ptr_nonnull(by);
	ck_assert_str_eq(by, "/h/.claude/settings.json: statusLine.command");
	by = named_by(&n, "/p/tools/x.sh");
	ck_assert_ptr_nonnull(by);
	ck_assert_ptr_nonnull(strstr(by, "hooks.Stop[0].hooks[0].command"));
	/* the script an interpreter runs, from the project and the file's
	 * folder */
	ck_assert_ptr_nonnull(named_by(&n, "/p/keyhelp"));
	ck_assert_ptr_nonnull(named_by(&n, "/h/.claude/keyhelp"));
	/* data keys and URLs name nothing */
	ck_assert_ptr_null(named_by(&n, "/p/src/a.c"));
	ck_assert_ptr_null(named_by(&n, "/p/docs/x.md"));
	ck_assert_ptr_null(named_by(&n, "/p/a/b"));
	agentcfg_named_free(&n);
}
END_TEST

START_TEST(test_toml_and_jsonc)
{
	struct agentcfg_named n;
	const char *by;

	ck_assert_int_eq(parse("/h/.codex/config.toml",
	    "# codex\nmodel = \"m\"\nnotify = [\"python3\", "
	    "\"/h/.codex/log/n.py\"]\n[mcp_servers.docs]\ncommand = 'node'\n"
	    "args = [\n  '$CODEX_HOME/srv/main.js',\n]\n"
	    "[shell_environment_policy]\nset = { BASH_ENV = \"~/.codex/e.sh\" }\n",
	    1, NULL, &n), 0);
	by = named_by(&n, "/h/.codex/log/n.py");
	ck_assert_ptr_nonnull(by);
	ck_assert_ptr_nonnull(strstr(by, "notify"));
	by = named_by(&n, "/h/.codex/srv/main.js");
	ck_assert_ptr_nonnull(by);
	ck_assert_ptr_nonnull(strstr(by, "mcp_servers.docs.args"));
	ck_assert_ptr_nonnull(named_by(&n, "/h/.codex/e.sh"));
	agentcfg_named_free(&n);
	/* JSON with comments: the scanner */
	ck_assert_int_eq(parse("/h/.gemini/settings.json",
	    "// a comment\n{ /* x */ \"mcpServers\": {\"s\": {\"command\": "
	    "\"node\", \"args\": [\"./srv/run.js\"]}}}", 0, NULL, &n), 0);
	ck_assert_ptr_nonnull(named_by(&n, "/p/srv/run.js"));
	ck_assert_ptr_nonnull(named_by(&n, "/h/.gemini/srv/run.js"));
	agentcfg_named_free(&n);
}
END_TEST

START_TEST(test_hostile_text)
{
	struct agentcfg_named n;
	char *big = malloc(200000);
	size_t i;

	/* unterminated strings, stray quotes, deep nesting, a huge value */
	ck_assert_int_eq(parse("/h/a.toml", "x = \"unterminated\n[[[\n'''",
	    1, NULL, &n), 0);
	agentcfg_named_free(&n);
	for (i = 0; i < 199998; i++)
		big[i] = i % 2 ? '[' : '"';
	big[199999] = '\0';
	ck_assert_int_eq(parse("/h/a.json", big, 0, NULL, &n), 0);
	agentcfg_named_free(&n);
	for (i = 0; i < 199999; i++)
		big[i] = '[';
	ck_assert_int_eq(parse("/h/a.json", big, 0, NULL, &n), 0);
	agentcfg_named_free(&n);
	/* valid JSON nested past the bound is refused, never skipped */
	for (i = 0; i < 70; i++)
		big[i] = '[';
	memcpy(big + 70, "\"/h/x.sh\"", 9);
	for (i = 79; i < 149; i++)
		big[i] = ']';
	big[149] = '\0';
	ck_assert_int_eq(parse("/h/a.json", big, 0, NULL, &n), -1);
	agentcfg_named_free(&n);
	free(big);
}
END_TEST

/* Suite of the agents' settings parser. */
static Suite *
agentcfg_suite(void)
{
	Suite *s = suite_create("agentcfg");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_json_values);
	tcase_add_test(tc, test_toml_and_jsonc);
	tcase_add_test(tc, test_hostile_text);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(agentcfg_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
