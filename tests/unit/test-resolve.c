/* test-resolve.c: precedence with provenance at every level, extends, exclusions. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/config.h"
#include "policy/policy.h"
#include "policy/strv.h"

static const char conf[] =
"{\"sandbox\": {\"all_sessions\": \"workspace\", \"profiles\": {"
"   \"company\": {\"extends\": \"workspace\", \"hosts\": [\"pkgs.example.test\"],"
"                 \"exclude\": [\"docker *\", \"make deploy\"]},"
"   \"team\": {\"extends\": \"company\", \"network\": \"internet\"}}},"
" \"resolve\": {\"pkgs.test\": [\"198.18.0.10\"]},"
" \"spaces\": {\"work\": {\"sandbox\": \"company\"}, \"quiet\": {}},"
" \"projects\": {\"/home/me/code/Lib\": {\"sandbox\": \"strict\"},"
"               \"~/code/Lib/vendor/\": {\"sandbox\": \"lab\"},"
"               \"/home/me/trusted\": {\"sandbox\": \"none\"}},"
" \"providers\": {\"ollama\": {\"sandbox\": \"team\", \"hosts\": [\"api.ollama.example\"],"
"                 \"env\": {\"OLLAMA_KEY\": \"k1\"}},"
"               \"quiet\": {\"hosts\": [\"q.example\"]}},"
" \"models\": {\"local-llm\": {\"sandbox\": \"none\"}}}";

static struct config *cfg;

/* Parse the shared config with home /home/me. */
static void
setup(void)
{
	json_t *root = json_loads(conf, 0, NULL);
	sbox_error err;

	ck_assert_ptr_nonnull(root);
	cfg = config_parse(root, "test.json", "/home/me", &err);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	json_decref(root);
}

/* Free the shared config. */
static void
teardown(void)
{
	config_free(cfg);
}

/* Resolve and check name and provenance; returns the profile. */
static struct profile *
check(const struct config *c, const struct resolve_request *req,
    const char *name, const char *prov)
{
	struct profile *p;
	sbox_error err;

	error_clear(&err);
	p = policy_resolve(c, req, &err);
	ck_assert_msg(p != NULL, "%s", err.message);
	ck_assert_str_eq(p->name, name);
	ck_assert_str_eq(p->provenance, prov);
	return p;
}

/* Each level wins over the ones below it. */
START_TEST(test_precedence)
{
	struct resolve_request req = {
		.sandbox = "lab", .model = "local-llm", .provider = "ollama",
		.project = "/home/me/code/Lib", .space = "work",
	};

	profile_free(check(cfg, &req, "lab", "lab, from session"));
	req.sandbox = NULL;
	profile_free(check(cfg, &req, "none", "none, from model local-llm"));
	req.model = "other";
	profile_free(check(cfg, &req, "team", "team, from provider ollama"));
	req.provider = "quiet";	/* says nothing about the sandbox */
	profile_free(check(cfg, &req, "strict", "strict, from project /home/me/code/Lib"));
	req.project = "/home/me/elsewhere";
	profile_free(check(cfg, &req, "company", "company, from space work"));
	req.space = "quiet";
	profile_free(check(cfg, &req, "workspace", "workspace, from all_sessions"));
	memset(&req, 0, sizeof req);
	profile_free(check(cfg, &req, "workspace", "workspace, from all_sessions"));
	profile_free(check(NULL, &req, "none", "none, by default (nothing chose a sandbox)"));
}
END_TEST

/* "none" can be chosen at every level, and is the default with nothing set. */
START_TEST(test_none_everywhere)
{
	struct resolve_request req = { 0 };
	struct profile *p;
	struct config *empty;
	sbox_error err;

	req.sandbox = "none";
	p = check(cfg, &req, "none", "none, from session");
	ck_assert_int_eq(p->sandboxed, 0);
	profile_free(p);
	req.sandbox = NULL;
	req.project = "/home/me/trusted/";
	profile_free(check(cfg, &req, "none", "none, from project /home/me/trusted"));
	empty = config_load_home("/nonexistent/sbox/config.json", "/home/me", &err);
	ck_assert_ptr_nonnull(empty);
	req.project = "/home/me/code/Lib";
	req.space = "work";
	p = check(empty, &req, "none", "none, by default (nothing chose a sandbox)");
	ck_assert_int_eq(p->sandboxed, 0);
	profile_free(p);
	config_free(empty);
}
END_TEST

/* Projects: trailing slashes, "~", and the longest configured folder wins. */
START_TEST(test_projects)
{
	struct resolve_request req = { 0 };
	struct profile *p;
	sbox_error err;

	req.project = "/home/me/code/Lib/";
	profile_free(check(cfg, &req, "strict", "strict, from project /home/me/code/Lib"));
	req.project = "~/code/Lib";
	profile_free(check(cfg, &req, "strict", "strict, from project /home/me/code/Lib"));
	req.project = "/home/me/code/Lib/src/x";
	profile_free(check(cfg, &req, "strict", "strict, from project /home/me/code/Lib"));
	req.project = "/home/me/code/Lib/vendor/y";
	profile_free(check(cfg, &req, "lab", "lab, from project /home/me/code/Lib/vendor"));
	req.project = "/home/me/code/Library";
	profile_free(check(cfg, &req, "workspace", "workspace, from all_sessions"));
	req.project = "code/Lib";
	error_clear(&err);
	p = policy_resolve(cfg, &req, &err);
	ck_assert_ptr_null(p);
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	ck_assert_str_eq(err.field, "project");
}
END_TEST

/* Write text into path (made). */
static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A linked worktree of a configured project resolves with the project's
 * choice (both of git's links agree); a forged .git file does not. */
START_TEST(test_worktree_follows_project)
{
	char tmpl[] = "/tmp/sbox-resolve-XXXXXX", *dir, path[512], text[512];
	char doc[1024], *real;
	struct resolve_request req = { 0 };
	struct config *c;
	struct profile *p;
	json_t *root;
	sbox_error err;

	ck_assert_ptr_nonnull(dir = mkdtemp(tmpl));
	real = realpath(dir, NULL);
	snprintf(path, sizeof path, "%s/app", real);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/app/.git", real);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/app/.git/worktrees", real);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/app/.git/worktrees/f1", real);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/wt", real);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/wt/.git", real);
	snprintf(text, sizeof text, "gitdir: %s/app/.git/worktrees/f1\n", real);
	put(path, text);
	snprintf(path, sizeof path, "%s/app/.git/worktrees/f1/gitdir", real);
	snprintf(text, sizeof text, "%s/wt/.git\n", real);
	put(path, text);
	snprintf(doc, sizeof doc, "{\"projects\": {\"%s/app\": {\"sandbox\": "
	    "\"strict\"}}}", real);
	root = json_loads(doc, 0, NULL);
	c = config_parse(root, "t.json", "/home/me", &err);
	json_decref(root);
	ck_assert_ptr_nonnull(c);
	snprintf(path, sizeof path, "%s/wt", real);
	req.project = path;
	error_clear(&err);
	p = policy_resolve(c, &req, &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->name, "strict");
	ck_assert_ptr_nonnull(strstr(p->provenance, "worktree"));
	profile_free(p);
	/* the repository's side no longer names it: no worktree */
	snprintf(text, sizeof text, "%s/app/.git/worktrees/f1/gitdir", real);
	put(text, "/elsewhere/.git\n");
	p = policy_resolve(c, &req, &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->name, "none");
	profile_free(p);
	config_free(c);
	{
		static const char *const made[] = { "app/.git/worktrees/f1/gitdir",
		    "app/.git/worktrees/f1", "app/.git/worktrees", "app/.git",
		    "app", "wt/.git", "wt", NULL };
		for (int i = 0; made[i] != NULL; i++) {
			snprintf(path, sizeof path, "%s/%s", real, made[i]);
			if (unlink(path) != 0)
				rmdir(path);
		}
		rmdir(real);
	}
	free(real);
}
END_TEST

/* Unknown explicit profile. */
START_TEST(test_unknown)
{
	struct resolve_request req = { .sandbox = "nope" };
	sbox_error err;

	error_clear(&err);
	ck_assert_ptr_null(policy_resolve(cfg, &req, &err));
	ck_assert_str_eq(err.name, E_PROFILE_NOT_FOUND);
	ck_assert_str_eq(err.field, "sandbox");
}
END_TEST

/* Provider hosts and env join the result; resolve table is copied in. */
START_TEST(test_provider_and_extends)
{
	struct resolve_request req = { .provider = "ollama" };
	struct profile *p;

	p = check(cfg, &req, "team", "team, from provider ollama");
	ck_assert_int_eq(p->network, PROFILE_NET_INTERNET);
	ck_assert(strv_contains(p->hosts, "pkgs.example.test"));
	ck_assert(strv_contains(p->hosts, "api.ollama.example"));
	ck_assert_str_eq(p->env_values[0], "OLLAMA_KEY=k1");
	ck_assert_str_eq(p->extends, "company");
	ck_assert_uint_eq(p->n_resolve, 1);
	ck_assert_str_eq(p->resolve[0].host, "pkgs.test");
	profile_free(p);
	/* provider hosts also join a profile chosen elsewhere */
	req.sandbox = "strict";
	p = check(cfg, &req, "strict", "strict, from session");
	ck_assert(strv_contains(p->hosts, "api.ollama.example"));
	ck_assert_int_eq(p->network, PROFILE_NET_NONE);
	profile_free(p);
}
END_TEST

/* A resolved profile survives the store: JSON round trip keeps everything. */
START_TEST(test_roundtrip)
{
	struct resolve_request req = { .provider = "ollama" };
	struct profile *p, *q;
	json_t *j, *k;
	char *text;
	sbox_error err;

	p = check(cfg, &req, "team", "team, from provider ollama");
	j = profile_to_json(p);
	text = json_dumps(j, 0);
	json_decref(j);
	k = json_loads(text, 0, NULL);
	free(text);
	q = profile_from_json(k, &err);
	ck_assert_msg(q != NULL, "%s", err.message);
	ck_assert_str_eq(q->provenance, p->provenance);
	ck_assert(strv_contains(q->hosts, "api.ollama.example"));
	ck_assert_str_eq(q->env_values[0], "OLLAMA_KEY=k1");
	ck_assert_uint_eq(q->n_resolve, 1);
	j = profile_to_json(q);
	ck_assert(json_equal(j, k));
	json_decref(j);
	json_decref(k);
	profile_free(p);
	profile_free(q);
}
END_TEST

/* Exclusions: globs on the space-joined command line. */
START_TEST(test_exclude)
{
	struct resolve_request req = { .sandbox = "company" };
	char *a1[] = { "docker", "run", "x", NULL };
	char *a2[] = { "docker", NULL };
	char *a3[] = { "dockerd", NULL };
	char *a4[] = { "make", "deploy", NULL };
	char *a5[] = { "make", "deploy", "now", NULL };
	char *a6[] = { "make", NULL };
	char *a7[] = { "docker", "run", "-v", "/a:/b", NULL };
	struct profile *p;

	p = check(cfg, &req, "company", "company, from session");
	ck_assert_int_eq(policy_exclude_match(p, a1), 1);
	ck_assert_int_eq(policy_exclude_match(p, a2), 1);
	ck_assert_int_eq(policy_exclude_match(p, a3), 0);
	ck_assert_int_eq(policy_exclude_match(p, a4), 1);
	ck_assert_int_eq(policy_exclude_match(p, a5), 0);
	ck_assert_int_eq(policy_exclude_match(p, a6), 0);
	ck_assert_int_eq(policy_exclude_match(p, a7), 1);
	ck_assert_int_eq(policy_exclude_match(p, NULL), 0);
	profile_free(p);
}
END_TEST

/* Suite of resolution tests. */
static Suite *
resolve_suite(void)
{
	Suite *s = suite_create("resolve");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_precedence);
	tcase_add_test(tc, test_none_everywhere);
	tcase_add_test(tc, test_projects);
	tcase_add_test(tc, test_worktree_follows_project);
	tcase_add_test(tc, test_unknown);
	tcase_add_test(tc, test_provider_and_extends);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_exclude);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(resolve_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
