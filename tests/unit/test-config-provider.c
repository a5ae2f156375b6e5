/* test-config-provider.c: the provider keys of the config (hosts, env, home,
 * account_folders, sandbox_capable), what policy_resolve takes from them,
 * their stored form (values "(set)"), and the plan of a provider home. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/config.h"
#include "policy/guard.h"
#include "policy/policy.h"
#include "policy/strv.h"

/* Parse text as a config with home /home/me. */
static struct config *
parse(const char *text, sbox_error *err)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);
	struct config *cfg;

	ck_assert_ptr_nonnull(root);
	error_clear(err);
	cfg = config_parse(root, "config.json", "/home/me", err);
	json_decref(root);
	return cfg;
}

static const char full[] =
    "{\"sandbox\": {\"profiles\": {\"off\": {\"extends\": \"strict\"}}},"
    " \"providers\": {"
    "  \"agent\": {\"sandbox\": \"off\", \"hosts\": [\"API.Model.example\"],"
    "   \"env\": {\"AGENT_KEY\": \"s3cret\"}, \"home\": \"persistent\","
    "   \"account_folders\": [\"~/.agent\", \"/home/me/.config/agent/\"],"
    "   \"sandbox_capable\": true},"
    "  \"hostonly\": {\"sandbox_capable\": false, \"home\": \"empty\"}}}";

START_TEST(test_provider_keys)
{
	const struct config_binding *b;
	struct config *cfg;
	sbox_error err;

	cfg = parse(full, &err);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	b = config_find_binding(cfg->providers, cfg->n_providers, "agent");
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(b->sandbox, "off");
	ck_assert_str_eq(b->hosts[0], "api.model.example");
	ck_assert_str_eq(b->env_values[0], "AGENT_KEY=s3cret");
	ck_assert_int_eq(b->home_persistent, 1);
	ck_assert_int_eq(b->no_sandbox, 0);
	ck_assert_int_eq(strv_len(b->account_folders), 2);
	ck_assert_str_eq(b->account_folders[0], "/home/me/.agent");
	ck_assert_str_eq(b->account_folders[1], "/home/me/.config/agent");
	b = config_find_binding(cfg->providers, cfg->n_providers, "hostonly");
	ck_assert_int_eq(b->no_sandbox, 1);
	ck_assert_int_eq(b->home_persistent, 0);
	config_free(cfg);
}
END_TEST

static const struct {
	const char *text, *field, *words;
} bad[] = {
	{ "{\"providers\": {\"p\": {\"home\": \"yes\"}}}", "providers.p.home",
	  "persistent" },
	{ "{\"providers\": {\"p\": {\"home\": true}}}", "providers.p.home",
	  "persistent" },
	{ "{\"providers\": {\"a/b\": {\"home\": \"persistent\"}}}",
	  "providers.a/b.home", "cannot name a folder" },
	{ "{\"providers\": {\"..\": {\"home\": \"persistent\"}}}",
	  "providers....home", "cannot name a folder" },
	{ "{\"providers\": {\"p\": {\"account_folders\": \"~/.p\"}}}",
	  "providers.p.account_folders", "array" },
	{ "{\"providers\": {\"p\": {\"account_folders\": [1]}}}",
	  "providers.p.account_folders[0]", "string" },
	{ "{\"providers\": {\"p\": {\"account_folders\": [\"~\"]}}}",
	  "providers.p.account_folders[0]", "below your home" },
	{ "{\"providers\": {\"p\": {\"account_folders\": [\"/etc\"]}}}",
	  "providers.p.account_folders[0]", "below your home" },
	{ "{\"providers\": {\"p\": {\"account_folders\": [\"/home\"]}}}",
	  "providers.p.account_folders[0]", "below your home" },
	{ "{\"providers\": {\"p\": {\"account_folders\": [\"rel\"]}}}",
	  "providers.p.account_folders[0]", "" },
	{ "{\"providers\": {\"p\": {\"sandbox_capable\": \"no\"}}}",
	  "providers.p.sandbox_capable", "true or false" },
	{ "{\"providers\": {\"p\": {\"homes\": 1}}}", "providers.p.homes",
	  "account_folders" },
	{ "{\"models\": {\"m\": {\"home\": \"persistent\"}}}", "models.m.home",
	  "unknown key" },
};

START_TEST(test_provider_errors)
{
	struct config *cfg;
	sbox_error err;

	cfg = parse(bad[_i].text, &err);
	ck_assert_msg(cfg == NULL, "accepted %s", bad[_i].text);
	ck_assert_str_eq(err.name, E_CONFIG);
	ck_assert_msg(strcmp(err.field, bad[_i].field) == 0, "%s: field %s",
	    bad[_i].text, err.field);
	ck_assert_msg(strstr(err.message, bad[_i].words) != NULL, "%s: %s",
	    bad[_i].text, err.message);
}
END_TEST

START_TEST(test_provider_resolve)
{
	struct resolve_request req = { NULL, NULL, "agent", "/home/me/code/x",
	    NULL };
	struct profile *p, *q;
	struct config *cfg;
	sbox_error err;
	json_t *pub, *full_json;
	char *s;

	cfg = parse(full, &err);
	ck_assert_ptr_nonnull(cfg);
	p = policy_resolve(cfg, &req, &err);
	ck_assert_msg(p != NULL, "%s", err.message);
	ck_assert_str_eq(p->name, "off");
	ck_assert_str_eq(p->provider, "agent");
	ck_assert_int_eq(p->provider_home, 1);
	ck_assert(strv_contains(p->provider_hosts, "api.model.example"));
	ck_assert(strv_contains(p->folders_rw, "/home/me/.agent"));
	ck_assert(strv_contains(p->account_folders, "/home/me/.agent"));
	/* the public form (stored, shown) never holds the value */
	pub = profile_to_json_public(p);
	s = json_dumps(pub, 0);
	ck_assert_ptr_null(strstr(s, "s3cret"));
	ck_assert_ptr_nonnull(strstr(s, "\"AGENT_KEY\": \"(set)\""));
	free(s);
	q = profile_from_json(pub, &err);
	ck_assert_msg(q != NULL, "%s", err.message);
	ck_assert_str_eq(q->provider, "agent");
	ck_assert_int_eq(q->provider_home, 1);
	ck_assert(strv_contains(q->provider_hosts, "api.model.example"));
	profile_free(q);
	json_decref(pub);
	full_json = profile_to_json(p);
	s = json_dumps(full_json, 0);
	ck_assert_ptr_nonnull(strstr(s, "s3cret"));
	free(s);
	json_decref(full_json);
	profile_free(p);
	/* a provider that cannot run in a sandbox, with a sandboxed profile */
	req.provider = "hostonly";
	req.sandbox = "workspace";
	ck_assert_ptr_null(policy_resolve(cfg, &req, &err));
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	ck_assert_str_eq(err.field, "provider");
	ck_assert_ptr_nonnull(strstr(err.message, "cannot run in a sandbox"));
	req.sandbox = "none";
	p = policy_resolve(cfg, &req, &err);
	ck_assert_ptr_nonnull(p);
	profile_free(p);
	config_free(cfg);
}
END_TEST

/* A fake host: folders only (home, the account folder, its settings). */
static int
fake_stat(void *arg, const char *path, struct stat *st)
{
	static const char *const dirs[] = { "/", "/home", "/home/me",
	    "/home/me/.agent", "/home/me/code", "/home/me/code/x", "/tmp",
	    "/state", "/state/homes", "/state/homes/agent", "/usr", NULL };
	size_t i;

	(void)arg;
	memset(st, 0, sizeof *st);
	for (i = 0; dirs[i] != NULL; i++)
		if (strcmp(dirs[i], path) == 0) {
			st->st_mode = S_IFDIR | 0755;
			return 0;
		}
	if (strcmp(path, "/home/me/.agent/settings.json") == 0 ||
	    strcmp(path, "/state/homes/agent/.bashrc") == 0) {
		st->st_mode = S_IFREG | 0644;
		return 0;
	}
	return -1;
}

/* Nothing to read. */
static char *
fake_read(void *arg, const char *path, size_t max)
{
	(void)arg; (void)path; (void)max;
	return NULL;
}

/* Nothing to list. */
static char **
fake_list(void *arg, const char *dir)
{
	(void)arg; (void)dir;
	return NULL;
}

START_TEST(test_provider_plan)
{
	static const struct plan_fs fs = { fake_stat, fake_read, fake_list,
	    NULL, NULL };
	struct resolve_request req = { NULL, NULL, "agent", NULL, NULL };
	struct plan_context ctx;
	const struct plan_mount *m;
	int home = 0, settings = 0, bashrc = 0;
	struct guard_table names = { 0 };
	struct config *cfg;
	struct profile *p;
	struct plan *plan;
	sbox_error err;
	size_t i;

	cfg = parse(full, &err);
	p = policy_resolve(cfg, &req, &err);
	ck_assert_ptr_nonnull(p);
	memset(&ctx, 0, sizeof ctx);
	ctx.project = "/home/me/code/x";
	ctx.scratch = "/tmp/scratch";
	ctx.home = "/home/me";
	ctx.user = "me";
	ctx.fs = &fs;
	ctx.registry_hosts = (char *[]){ NULL };
	ck_assert_int_eq(guard_table_parse(&names, "runs-later home .bashrc "
	    "# bash reads it\n", "test", &err), 0);
	ctx.protected = &names;
	/* a profile that keeps a home needs one */
	ck_assert_ptr_null(policy_plan(p, &ctx, &err));
	ck_assert_str_eq(err.field, "provider_home");
	ctx.provider_home = "/state/homes/agent";
	plan = policy_plan(p, &ctx, &err);
	ck_assert_msg(plan != NULL, "%s", err.message);
	ck_assert(strv_contains(plan->net.provider_hosts, "api.model.example"));
	for (i = 0; i < plan->n_mounts; i++) {
		m = &plan->mounts[i];
		if (strcmp(m->dst, "/home/me") == 0) {
			ck_assert_int_eq(m->kind, PLAN_MOUNT_RW_BIND);
			ck_assert_str_eq(m->src, "/state/homes/agent");
			home = 1;
		}
		if (strcmp(m->dst, "/home/me/.agent/settings.json") == 0 &&
		    m->kind == PLAN_MOUNT_RO_BIND) {
			ck_assert_str_eq(m->src, "/home/me/.agent/settings.json");
			ck_assert_int_eq(m->missing, 0);
			settings = 1;
		}
		if (strcmp(m->dst, "/home/me/.bashrc") == 0 &&
		    m->kind == PLAN_MOUNT_RO_BIND) {
			/* the provider's own file, never the person's */
			ck_assert_str_eq(m->src, "/state/homes/agent/.bashrc");
			bashrc = 1;
		}
		ck_assert_msg(strcmp(m->dst, "/home/me/.agent") != 0 ||
		    m->kind == PLAN_MOUNT_RW_BIND, "the account folder is "
		    "read-only");
	}
	ck_assert(home && settings && bashrc);
	ck_assert_int_eq(plan_explain(plan, "/home/me/.agent/settings.json")->access,
	    PLAN_ACCESS_RO);
	ck_assert_int_eq(plan_explain(plan, "/home/me/.agent/auth.json")->access,
	    PLAN_ACCESS_RW);
	ck_assert_int_eq(plan_explain(plan, "/home/me/note")->access,
	    PLAN_ACCESS_RW);
	plan_free(plan);
	guard_table_free(&names);
	profile_free(p);
	config_free(cfg);
}
END_TEST

/* Suite of provider config tests. */
static Suite *
config_provider_suite(void)
{
	Suite *s = suite_create("config-provider");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_provider_keys);
	tcase_add_loop_test(tc, test_provider_errors, 0,
	    (int)(sizeof bad / sizeof bad[0]));
	tcase_add_test(tc, test_provider_resolve);
	tcase_add_test(tc, test_provider_plan);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(config_provider_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
