/* test-guard-spec.c: the protected-names table (policy/guard-table.c:
 * its lines, each entry once, the shipped file) and the guard's spec in
 * the form sbox-init receives (policy/guard-spec.c: path rules, protected
 * lines, each malformed one refused). test-guard.c holds the decisions. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/guard.h"
#include "policy/plan.h"

START_TEST(test_table)
{
	struct guard_table t = { 0 };
	sbox_error err;

	ck_assert_int_eq(guard_table_parse(&t, "runs-later root ok/ # x\n",
	    "f", &err), 0);
	ck_assert_int_eq(t.n, 1);
	ck_assert(t.e[0].is_dir);
	ck_assert_str_eq(t.e[0].name, "ok");
	ck_assert_str_eq(t.e[0].comment, "x");
	ck_assert_int_eq(guard_table_parse(&t, "runs-later root ../x\n", "f",
	    &err), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "f:1"));
	ck_assert_int_eq(guard_table_parse(&t, "\n\nsometimes root x\n", "f",
	    &err), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "f:3"));
	ck_assert_int_eq(guard_table_parse(&t, "runs-later nowhere x\n", "f",
	    &err), -1);
	ck_assert_int_eq(guard_table_parse(&t, "runs-later root /abs\n", "f",
	    &err), -1);
	ck_assert_int_eq(guard_table_parse(&t, "runs-later root a//b\n", "f",
	    &err), -1);
	ck_assert_int_eq(guard_table_parse(&t, "runs-later root\n", "f", &err),
	    -1);
	guard_table_free(&t);
}
END_TEST

START_TEST(test_table_same_entry_once)
{
	struct guard_table t = { 0 }, c = { 0 };
	sbox_error err;
	size_t i;

	ck_assert_int_eq(guard_table_parse(&t, "runs-later root .envrc # a\n"
	    "runs-later root .envrc # again: kept once, the first comment\n"
	    "runs-later root .envrc.local # a longer name\n"
	    "runs-later root .env # a shorter one\n"
	    "runs-later root .envrc/ # a folder of that name\n"
	    "runs-later root .envrc/ # that folder again\n"
	    "runs-later any .envrc # another scope\n"
	    "credential root .envrc # another kind\n", "f", &err), 0);
	ck_assert_uint_eq(t.n, 6);
	ck_assert_str_eq(t.e[0].name, ".envrc");
	ck_assert_str_eq(t.e[0].comment, "a");
	ck_assert_str_eq(t.e[1].name, ".envrc.local");
	ck_assert_str_eq(t.e[2].name, ".env");
	ck_assert_str_eq(t.e[3].name, ".envrc");
	ck_assert(t.e[3].is_dir);
	ck_assert_int_eq(t.e[4].scope, GUARD_SCOPE_ANY);
	ck_assert_int_eq(t.e[5].kind, GUARD_KIND_CREDENTIAL);
	/* a copy into an empty table is the same; into a full one, nothing
	 * already there is added twice */
	ck_assert_int_eq(guard_table_copy(&c, &t, &err), 0);
	ck_assert_uint_eq(c.n, t.n);
	for (i = 0; i < t.n; i++) {
		ck_assert_int_eq(c.e[i].kind, t.e[i].kind);
		ck_assert_int_eq(c.e[i].scope, t.e[i].scope);
		ck_assert_int_eq(c.e[i].is_dir, t.e[i].is_dir);
		ck_assert_str_eq(c.e[i].name, t.e[i].name);
		ck_assert_str_eq(c.e[i].comment, t.e[i].comment);
		ck_assert_ptr_ne(c.e[i].name, t.e[i].name);
	}
	ck_assert_int_eq(guard_table_copy(&c, &t, &err), 0);
	ck_assert_uint_eq(c.n, t.n);
	ck_assert_int_eq(guard_table_parse(&c, "runs-later root .new # n\n",
	    "f", &err), 0);
	ck_assert_uint_eq(c.n, t.n + 1);
	guard_table_free(&c);
	guard_table_free(&t);
}
END_TEST

START_TEST(test_spec_rules)
{
	struct guard_spec s = { 0 }, back;
	const struct guard_rule *r;
	sbox_error err;
	json_t *j, *bad;
	size_t i;
	/* each a rule's items, appended to the flat [path, access, rule, ...] */
	static const char *const wrong[] = {
		"[\"h/x\",\"hidden\",\"r\"]",
		"[\"/h/../x\",\"hidden\",\"r\"]",
		"[\"/h/x/\",\"hidden\",\"r\"]",
		"[\"/h/x\",\"secret\",\"r\"]",
		"[\"/h/x\",\"ro\"]",
		"[\"/h/x\",\"ro\",7]",
		"[7,\"ro\",\"r\"]",
		"[\"/h/x\",\"ro\",\"r\\u0000x\"]",
		"[{\"path\":\"/h/x\",\"access\":\"ro\",\"rule\":\"r\"}]",
		"[\"/h/x\"]", NULL };
	json_t *items, *it;
	size_t k;

	s.roots = calloc(1, sizeof *s.roots);
	s.home = strdup("/h");
	ck_assert_int_eq(guard_spec_add_rule(&s, "/", GUARD_ACCESS_RO, "sys"), 0);
	ck_assert_int_eq(guard_spec_add_rule(&s, "/h", GUARD_ACCESS_HIDDEN,
	    "home"), 0);
	ck_assert_int_eq(guard_spec_add_rule(&s, "/h/proj", GUARD_ACCESS_RW,
	    "project"), 0);
	ck_assert_int_eq(guard_spec_add_rule(&s, "/h/proj/deny",
	    GUARD_ACCESS_HIDDEN, "deny"), 0);
	ck_assert_int_eq(guard_spec_add_rule(&s, "/h/.ssh", GUARD_ACCESS_RO,
	    "first"), 0);
	ck_assert_int_eq(guard_spec_add_rule(&s, "/h/.ssh", GUARD_ACCESS_HIDDEN,
	    "credentials"), 0);
	/* a path that is not absolute and normalised is skipped */
	ck_assert_int_eq(guard_spec_add_rule(&s, "/h/./x", GUARD_ACCESS_HIDDEN,
	    "x"), 0);
	ck_assert_int_eq(guard_spec_add_rule(&s, "rel", GUARD_ACCESS_HIDDEN,
	    "x"), 0);
	ck_assert_uint_eq(s.n_rules, 6);
	/* the longest match decides; the later one on a tie */
	ck_assert_str_eq(guard_spec_explain(&s, "/usr/bin")->rule, "sys");
	ck_assert_str_eq(guard_spec_explain(&s, "/h")->rule, "home");
	ck_assert_str_eq(guard_spec_explain(&s, "/h/notes")->rule, "home");
	ck_assert_str_eq(guard_spec_explain(&s, "/hx")->rule, "sys");
	ck_assert_str_eq(guard_spec_explain(&s, "/h/proj/a.c")->rule,
	    "project");
	ck_assert_str_eq(guard_spec_explain(&s, "/h/projx")->rule, "home");
	r = guard_spec_explain(&s, "/h/proj/deny/k");
	ck_assert_int_eq(r->access, GUARD_ACCESS_HIDDEN);
	ck_assert_str_eq(r->rule, "deny");
	r = guard_spec_explain(&s, "/h/.ssh/id");
	ck_assert_int_eq(r->access, GUARD_ACCESS_HIDDEN);
	ck_assert_str_eq(r->rule, "credentials");
	/* they survive the JSON form, in order */
	j = guard_spec_to_json(&s);
	ck_assert_msg(guard_spec_from_json(&back, j, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(back.n_rules, s.n_rules);
	for (i = 0; i < s.n_rules; i++) {
		ck_assert_str_eq(back.rules[i].path, s.rules[i].path);
		ck_assert_str_eq(back.rules[i].rule, s.rules[i].rule);
		ck_assert_int_eq(back.rules[i].access, s.rules[i].access);
	}
	ck_assert_str_eq(guard_spec_explain(&back, "/h/.ssh/x")->rule,
	    "credentials");
	guard_spec_free(&back);
	/* each malformed rule is refused */
	for (i = 0; wrong[i] != NULL; i++) {
		bad = json_deep_copy(j);
		items = json_loads(wrong[i], JSON_ALLOW_NUL, NULL);
		ck_assert_ptr_nonnull(items);
		json_array_foreach(items, k, it)
			json_array_append(json_object_get(bad, "rules"), it);
		json_decref(items);
		ck_assert_msg(guard_spec_from_json(&back, bad, &err) == -1,
		    "%s", wrong[i]);
		ck_assert_ptr_nonnull(strstr(err.message, "rules"));
		json_decref(bad);
	}
	bad = json_deep_copy(j);
	json_object_set_new(bad, "rules", json_string("x"));
	ck_assert_int_eq(guard_spec_from_json(&back, bad, &err), -1);
	json_decref(bad);
	/* absent: no rules (nothing hidden to report) */
	json_object_del(j, "rules");
	ck_assert_int_eq(guard_spec_from_json(&back, j, &err), 0);
	ck_assert_uint_eq(back.n_rules, 0);
	ck_assert_ptr_null(guard_spec_explain(&back, "/h/.ssh/x"));
	guard_spec_free(&back);
	json_decref(j);
	guard_spec_free(&s);
}
END_TEST

START_TEST(test_spec_protected)
{
	struct guard_spec s = { 0 }, back;
	sbox_error err;
	json_t *j, *bad;
	size_t i;
	/* lines sbox-init must refuse: each alone as the spec's table */
	static const char *const wrong[] = {
		"runs-later root .x # no newline",
		"runs-later root\n",
		"runs-later root .x\n",
		"sometimes root .x c\n",
		"runs-later nowhere .x c\n",
		"runs-later root /abs c\n",
		"runs-later root a//b c\n",
		"runs-later root ../x c\n",
		"runs-later  root .x c\n",
		"runs-later root .x c\x01\n",
		"credential home .ssh/ c\n\n", NULL };

	s.roots = calloc(1, sizeof *s.roots);
	s.home = strdup("/h");
	ck_assert_int_eq(guard_entry_add(&s.table, "runs-later", "root",
	    ".envrc", "direnv # runs it on cd, with  two spaces", &err), 0);
	ck_assert_int_eq(guard_entry_add(&s.table, "credential", "home",
	    ".ssh/", "", &err), 0);
	ck_assert_int_eq(guard_entry_add(&s.table, "runs-later", "any",
	    ".vscode/tasks.json", " leading and trailing ", &err), 0);
	/* every entry comes back as it was, comments to the byte */
	j = guard_spec_to_json(&s);
	ck_assert(json_is_string(json_object_get(j, "protected")));
	ck_assert_msg(guard_spec_from_json(&back, j, &err) == 0, "%s",
	    err.message);
	ck_assert_uint_eq(back.table.n, s.table.n);
	for (i = 0; i < s.table.n; i++) {
		ck_assert_int_eq(back.table.e[i].kind, s.table.e[i].kind);
		ck_assert_int_eq(back.table.e[i].scope, s.table.e[i].scope);
		ck_assert_int_eq(back.table.e[i].is_dir, s.table.e[i].is_dir);
		ck_assert_str_eq(back.table.e[i].name, s.table.e[i].name);
		ck_assert_str_eq(back.table.e[i].comment, s.table.e[i].comment);
	}
	guard_spec_free(&back);
	/* an empty table is an empty string; no string at all is refused */
	bad = json_deep_copy(j);
	json_object_set_new(bad, "protected", json_string(""));
	ck_assert_int_eq(guard_spec_from_json(&back, bad, &err), 0);
	ck_assert_uint_eq(back.table.n, 0);
	guard_spec_free(&back);
	json_object_set_new(bad, "protected", json_array());
	ck_assert_int_eq(guard_spec_from_json(&back, bad, &err), -1);
	json_object_del(bad, "protected");
	ck_assert_int_eq(guard_spec_from_json(&back, bad, &err), -1);
	json_decref(bad);
	/* each malformed line fails the whole spec (fail closed) */
	for (i = 0; wrong[i] != NULL; i++) {
		bad = json_deep_copy(j);
		json_object_set_new(bad, "protected", json_string(wrong[i]));
		ck_assert_msg(guard_spec_from_json(&back, bad, &err) == -1,
		    "%s", wrong[i]);
		ck_assert_ptr_nonnull(strstr(err.message, "protected"));
		json_decref(bad);
	}
	json_decref(j);
	guard_spec_free(&s);
}
END_TEST

START_TEST(test_shipped_file)
{
	struct guard_table t = { 0 };
	char path[512];
	const char *dir = __FILE__;
	sbox_error err;
	size_t i;
	int agents = 0;

	snprintf(path, sizeof path, "%.*s../../policy/protected.default",
	    (int)(strrchr(dir, '/') ? strrchr(dir, '/') - dir + 1 : 0), dir);
	ck_assert_msg(guard_table_load(&t, path, &err) == 0, "%s", err.message);
	ck_assert(t.n > 100);
	for (i = 0; i < t.n; i++) {
		ck_assert_msg(t.e[i].comment[0] != '\0', "%s has no comment",
		    t.e[i].name);
		if (strcmp(t.e[i].name, ".codex/auth.json") == 0 ||
		    strcmp(t.e[i].name, ".claude/.credentials.json") == 0 ||
		    strcmp(t.e[i].name, ".gemini/oauth_creds.json") == 0)
			agents++;
	}
	ck_assert_int_eq(agents, 3);
	guard_table_free(&t);
}
END_TEST

/* Suite of the table's and the spec's tests. */
static Suite *
guard_spec_suite(void)
{
	Suite *s = suite_create("guard-spec");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_table_same_entry_once);
	tcase_add_test(tc, test_spec_rules);
	tcase_add_test(tc, test_spec_protected);
	tcase_add_test(tc, test_shipped_file);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(guard_spec_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
