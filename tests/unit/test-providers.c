/* test-providers.c: the built-in providers file (providers.c): its
 * parsing and errors, aliases, the merge with a config entry of the same
 * name; what a session of a provider gets (config_provider_resolve): its
 * key env names, its run-later files, the other agents' folders hidden;
 * the session's protected names (plan_provider_table); the config notes
 * (config_check_profile_notes); network "hosts". */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/config.h"
#include "policy/guard.h"
#include "policy/plan-internal.h"
#include "policy/policy.h"
#include "policy/providers.h"
#include "policy/strv.h"

/* Write text to a new temporary file; its path (static). */
static const char *
tmpfile_with(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof path, "/tmp/sbox-test-providers.XXXXXX");
	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_ptr_nonnull(f = fdopen(fd, "w"));
	fputs(text, f);
	fclose(f);
	return path;
}

/* The binding called key of b[n], or NULL. */
static const struct config_binding *
find(const struct config_binding *b, size_t n, const char *key)
{
	return config_find_binding(b, n, key);
}

static const char providers_text[] =
    "# test\n"
    "agent alias  ag\n"
    "agent hosts  API.Agent.example *.agent.example\n"
    "agent account ~/.agent\n"
    "agent env    AGENT_API_KEY\n"
    "agent runs-later ~/.agent/settings.json ~/.agent/hooks/\n"
    "other account ~/.other   # another agent\n";

START_TEST(test_read_file)
{
	const struct config_binding *b;
	struct config_binding *out;
	sbox_error err;
	size_t n, i;

	const char *path = tmpfile_with(providers_text);

	error_clear(&err);
	ck_assert_int_eq(providers_read(path, "/home/me", &out, &n, &err), 0);
	unlink(path);
	ck_assert_int_eq(n, 3);
	b = find(out, n, "agent");
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(b->builtin, 1);
	ck_assert_str_eq(b->hosts[0], "api.agent.example");
	ck_assert_str_eq(b->hosts[1], "*.agent.example");
	ck_assert_str_eq(b->account_folders[0], "/home/me/.agent");
	ck_assert_str_eq(b->key_env[0], "AGENT_API_KEY");
	ck_assert_str_eq(b->runs_later[1], "/home/me/.agent/hooks/");
	b = find(out, n, "ag");	/* the alias has the same facts */
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(b->runs_later[0], "/home/me/.agent/settings.json");
	for (i = 0; i < n; i++) {
		free(out[i].key);
		config_provider_free(&out[i]);
	}
	free(out);
}
END_TEST

START_TEST(test_read_errors)
{
	static const char *const bad[] = {
		"agent hosts *\n", "agent env NOT-A-NAME\n",
		"agent account /abs\n", "agent colour red\n", "agent\n",
		"../x hosts a.example\n", NULL };
	struct config_binding *out;
	sbox_error err;
	size_t n, i;

	for (i = 0; bad[i] != NULL; i++) {
		const char *path = tmpfile_with(bad[i]);

		error_clear(&err);
		ck_assert_msg(providers_read(path, "/home/me", &out, &n, &err) ==
		    -1, "accepted %s", bad[i]);
		ck_assert_str_eq(err.name, E_CONFIG);
		ck_assert_ptr_nonnull(strstr(err.message, ":1:"));
		unlink(path);
	}
}
END_TEST

/* A config (home /home/me) merged with the providers file. */
static struct config *
load(const char *config, const char *providers)
{
	const char *pf = tmpfile_with(providers);
	char pfile[64], cfile[64];
	struct config *cfg;
	sbox_error err;

	snprintf(pfile, sizeof pfile, "%s", pf);
	snprintf(cfile, sizeof cfile, "%s", tmpfile_with(config));
	setenv("SBOX_PROVIDERS_FILE", pfile, 1);
	error_clear(&err);
	cfg = config_load_home(cfile, "/home/me", &err);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	unsetenv("SBOX_PROVIDERS_FILE");
	unlink(pfile);
	unlink(cfile);
	return cfg;
}

START_TEST(test_merge_and_resolve)
{
	const struct config_binding *b;
	struct resolve_request req = { 0 };
	struct config *cfg;
	struct profile *p;
	sbox_error err;

	cfg = load("{\"providers\": {\"agent\": {\"sandbox\": \"strict\","
	    " \"hosts\": [\"extra.example\"], \"account_folders\": "
	    "[\"~/.agent2\"]}, \"mine\": {\"hosts\": [\"m.example\"]}}}",
	    providers_text);
	b = find(cfg->providers, cfg->n_providers, "agent");
	ck_assert_int_eq(b->builtin, 1);
	ck_assert_str_eq(b->sandbox, "strict");	/* the config's */
	ck_assert(strv_contains(b->hosts, "api.agent.example"));
	ck_assert(strv_contains(b->hosts, "extra.example"));
	ck_assert(strv_contains(b->account_folders, "/home/me/.agent2"));
	ck_assert_int_eq(find(cfg->providers, cfg->n_providers, "mine")->builtin,
	    0);
	ck_assert_ptr_nonnull(find(cfg->providers, cfg->n_providers, "other"));
	req.provider = "agent";
	error_clear(&err);
	p = policy_resolve(cfg, &req, &err);
	ck_assert_msg(p != NULL, "%s", err.message);
	ck_assert(strv_contains(p->env, "AGENT_API_KEY"));
	ck_assert(strv_contains(p->folders_rw, "/home/me/.agent"));
	ck_assert(strv_contains(p->account_protect, "/home/me/.agent/hooks/"));
	ck_assert(strv_contains(p->hidden_accounts, "/home/me/.other"));
	ck_assert(!strv_contains(p->hidden_accounts, "/home/me/.agent"));
	ck_assert_ptr_null(p->state_folders);
	profile_free(p);
	/* a session without a provider: every agent's folder is hidden */
	req.provider = NULL;
	req.sandbox = "strict";
	p = policy_resolve(cfg, &req, &err);
	ck_assert(strv_contains(p->hidden_accounts, "/home/me/.agent"));
	ck_assert(!strv_contains(p->env, "AGENT_API_KEY"));
	profile_free(p);
	config_free(cfg);
}
END_TEST

static const char alias_text[] =
    "agent alias  ag agent-cli\n"
    "agent hosts  api.agent.example\n"
    "agent env    AGENT_API_KEY\n"
    "agent pass-env AGENT_BASE_URL AGENT_MODEL\n"
    "agent set-env IS_SANDBOX=1\n";

START_TEST(test_alias_entry_and_env_keys)
{
	static const char *const configs[] = {
		"{\"providers\": {\"ag\": {\"sandbox\": \"strict\", \"hosts\": "
		"[\"x.example\"]}}}",
		"{\"providers\": {\"agent\": {\"sandbox\": \"strict\", \"hosts\": "
		"[\"x.example\"]}}}", NULL };
	static const char *const names[] = { "agent", "ag", "agent-cli", NULL };
	const struct config_binding *b;
	struct resolve_request req = { 0 };
	struct config *cfg;
	struct profile *p;
	sbox_error err;
	size_t i, j;

	for (i = 0; configs[i] != NULL; i++) {
		cfg = load(configs[i], alias_text);
		for (j = 0; names[j] != NULL; j++) {
			b = find(cfg->providers, cfg->n_providers, names[j]);
			ck_assert_msg(b != NULL, "%s", names[j]);
			ck_assert_str_eq(b->sandbox, "strict");
			ck_assert(strv_contains(b->hosts, "x.example"));
			ck_assert(strv_contains(b->hosts, "api.agent.example"));
			ck_assert(strv_contains(b->pass_env, "AGENT_MODEL"));
			req.provider = names[j];
			error_clear(&err);
			p = policy_resolve(cfg, &req, &err);
			ck_assert_msg(p != NULL, "%s", err.message);
			ck_assert_str_eq(p->name, "strict");
			ck_assert(strv_contains(p->env, "AGENT_API_KEY"));
			ck_assert(strv_contains(p->env, "AGENT_BASE_URL"));
			ck_assert(strv_contains(p->env_values, "IS_SANDBOX=1"));
			profile_free(p);
		}
		/* an unknown name: refused, with the closest one */
		req.provider = "agnet";
		error_clear(&err);
		ck_assert_ptr_null(policy_resolve(cfg, &req, &err));
		ck_assert_str_eq(err.name, E_INVALID_PARAMS);
		ck_assert_str_eq(err.field, "provider");
		ck_assert_ptr_nonnull(strstr(err.message,
		    "did you mean \"agent\""));
		config_free(cfg);
	}
}
END_TEST

START_TEST(test_alias_two_entries_refused)
{
	const char *pf = tmpfile_with(alias_text);
	char pfile[64], cfile[64];
	sbox_error err;

	snprintf(pfile, sizeof pfile, "%s", pf);
	snprintf(cfile, sizeof cfile, "%s", tmpfile_with("{\"providers\": "
	    "{\"ag\": {}, \"agent\": {}}}"));
	setenv("SBOX_PROVIDERS_FILE", pfile, 1);
	error_clear(&err);
	ck_assert_ptr_null(config_load_home(cfile, "/home/me", &err));
	ck_assert_str_eq(err.name, E_CONFIG);
	ck_assert_ptr_nonnull(strstr(err.message, "same provider"));
	unsetenv("SBOX_PROVIDERS_FILE");
	unlink(pfile);
	unlink(cfile);
}
END_TEST

START_TEST(test_env_key_errors)
{
	static const char *const bad[] = { "agent pass-env NOT-A-NAME\n",
		"agent set-env NOEQUALS\n", "agent set-env BAD-NAME=1\n", NULL };
	struct config_binding *out;
	sbox_error err;
	size_t n, i;

	for (i = 0; bad[i] != NULL; i++) {
		const char *path = tmpfile_with(bad[i]);

		error_clear(&err);
		ck_assert_msg(providers_read(path, "/home/me", &out, &n, &err) ==
		    -1, "accepted %s", bad[i]);
		ck_assert_str_eq(err.name, E_CONFIG);
		unlink(path);
	}
}
END_TEST

/* The entry KIND home NAME of t, or NULL. */
static const struct guard_entry *
entry(const struct guard_table *t, enum guard_kind k, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].kind == k && t->e[i].scope == GUARD_SCOPE_HOME &&
		    strcmp(t->e[i].name, name) == 0)
			return &t->e[i];
	return NULL;
}

START_TEST(test_session_table)
{
	struct guard_table base = { 0 }, *t = NULL;
	struct plan_context ctx = { .home = "/home/me" };
	struct profile *p;
	sbox_error err;

	error_clear(&err);
	ck_assert_int_eq(guard_table_parse(&base,
	    "runs-later home .agent/ # the agent\n"
	    "credential home .agent/auth.json # its sign-in\n"
	    "runs-later root .agent/ # in a project\n"
	    "credential home .ssh/ # keys\n", "t", &err), 0);
	ctx.protected = &base;
	p = profile_new("x", &err);
	strv_append(&p->account_folders, "/home/me/.agent");
	strv_append(&p->account_protect, "/home/me/.agent/hooks/");
	strv_append(&p->hidden_accounts, "/home/me/.other");
	ck_assert_int_eq(plan_provider_table(p, &ctx, &t, &err), 0);
	ck_assert_ptr_nonnull(t);
	/* its own folder and sign-in are its; a project's .agent is not */
	ck_assert_ptr_null(entry(t, GUARD_KIND_RUNS_LATER, ".agent"));
	ck_assert_ptr_null(entry(t, GUARD_KIND_CREDENTIAL, ".agent/auth.json"));
	ck_assert_ptr_nonnull(entry(t, GUARD_KIND_CREDENTIAL, ".ssh"));
	ck_assert_ptr_nonnull(entry(t, GUARD_KIND_RUNS_LATER, ".agent/hooks"));
	ck_assert_ptr_nonnull(entry(t, GUARD_KIND_RUNS_LATER,
	    ".agent/settings.json"));	/* the common ones too */
	ck_assert_ptr_nonnull(entry(t, GUARD_KIND_CREDENTIAL, ".other"));
	guard_table_free(t);
	free(t);
	guard_table_free(&base);
	profile_free(p);
}
END_TEST

START_TEST(test_notes_and_hosts_mode)
{
	struct config *cfg;
	json_t *notes;
	const struct profile *p;

	cfg = load("{\"sandbox\": {\"profiles\": {"
	    "\"off\": {\"network\": \"none\", \"hosts\": [\"a.example\"]},"
	    "\"only\": {\"network\": \"hosts\", \"hosts\": [\"*.b.example\","
	    " \"*.c.example\", \"c.example\"]}}}}", "");
	p = config_find_profile(cfg, "off");
	notes = config_check_profile_notes(p);
	ck_assert_int_eq(json_array_size(notes), 1);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(notes, 0)),
	    "no effect"));
	json_decref(notes);
	p = config_find_profile(cfg, "only");
	ck_assert_int_eq(p->network, PROFILE_NET_HOSTS);
	ck_assert_str_eq(profile_network_name(p->network), "hosts");
	notes = config_check_profile_notes(p);
	ck_assert_int_eq(json_array_size(notes), 1);	/* *.b, not *.c */
	ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(notes, 0)),
	    "subdomains of b.example only"));
	json_decref(notes);
	config_free(cfg);
}
END_TEST

static Suite *
providers_suite(void)
{
	Suite *s = suite_create("providers");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_read_file);
	tcase_add_test(tc, test_read_errors);
	tcase_add_test(tc, test_merge_and_resolve);
	tcase_add_test(tc, test_alias_entry_and_env_keys);
	tcase_add_test(tc, test_alias_two_entries_refused);
	tcase_add_test(tc, test_env_key_errors);
	tcase_add_test(tc, test_session_table);
	tcase_add_test(tc, test_notes_and_hosts_mode);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(providers_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
