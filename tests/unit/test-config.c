/* test-config.c: the config loader: every error path, extends, saving hosts. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/config.h"
#include "policy/strv.h"

static char tmpdir[64];
static char cfgpath[128];

/* A fresh temp folder with the config path inside it. */
static void
setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s/sbox-test-config.XXXXXX",
	    getenv("TMPDIR") && getenv("TMPDIR")[0] == '/' ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(cfgpath, sizeof cfgpath, "%s/config.json", tmpdir);
}

/* Remove the temp folder. */
static void
teardown(void)
{
	char cmd[160];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Write text as the config file. */
static void
write_config(const char *text)
{
	FILE *f = fopen(cfgpath, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Load text as a config with home /home/me. */
static struct config *
load(const char *text, sbox_error *err)
{
	write_config(text);
	error_clear(err);
	return config_load_home(cfgpath, "/home/me", err);
}

static const char example[] =
"{\n"
"  \"sandbox\": {\n"
"    \"all_sessions\": \"workspace\",\n"
"    \"profiles\": {\n"
"      \"company\": {\n"
"        \"extends\": \"workspace\",\n"
"        \"network\": \"registries\",\n"
"        \"hosts\": [\"pkgs.dev.example.com\", \"*.company.example\", \"git.example.org:443\"],\n"
"        \"private_hosts\": [\"mirror.company.example\"],\n"
"        \"local_ports\": [5432],\n"
"        \"mcp_servers\": [\"docs\"],\n"
"        \"folders\": {\"read_write\": [\"~/data\"], \"read_only\": [\"~/models/\"], \"deny\": [\"~/secret\"]},\n"
"        \"env\": [\"CI\", \"COMPANY_TOKEN\"],\n"
"        \"run_outside\": \"ask\",\n"
"        \"exclude\": [\"docker *\", \"make deploy\"],\n"
"        \"limits\": {\"pids\": 100, \"memory_mb\": 2048, \"tmp_mb\": 64, \"output_mb\": 4, \"timeout_s\": 600, \"nofile\": 256}\n"
"      },\n"
"      \"company-ci\": {\"extends\": \"company\", \"hosts\": [\"ci.example.org\"], \"run_outside\": \"never\"},\n"
"      \"bare\": {}\n"
"    }\n"
"  },\n"
"  \"resolve\": {\"pkgs.test\": [\"198.18.0.10\", \"2001:db8::10\"]},\n"
"  \"spaces\":    {\"work\": {\"sandbox\": \"company\"}},\n"
"  \"projects\":  {\"/home/me/code/Lib/\": {\"sandbox\": \"strict\"}, \"~/trusted\": {\"sandbox\": \"none\"}},\n"
"  \"providers\": {\"ollama\": {\"sandbox\": \"strict\", \"hosts\": [\"api.ollama.example\"], \"env\": {\"OLLAMA_KEY\": \"k1\"}}},\n"
"  \"models\":    {\"local-llm\": {\"sandbox\": \"none\"}},\n"
"  \"approvals\": {\"timeout_s\": 120, \"burst\": 3, \"per_minute\": 9},\n"
"  \"terminal\":  {\"drop_osc\": true}\n"
"}\n";

/* The example config loads with everything in place. */
START_TEST(test_example)
{
	const struct profile *c, *ci, *bare;
	const struct config_binding *b;
	struct config *cfg;
	sbox_error err;

	cfg = load(example, &err);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	ck_assert_str_eq(cfg->all_sessions, "workspace");
	ck_assert_uint_eq(cfg->n_profiles, 3);
	c = config_find_profile(cfg, "company");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->extends, "workspace");
	ck_assert_int_eq(c->network, PROFILE_NET_REGISTRIES);
	ck_assert_uint_eq(strv_len(c->hosts), 3);
	ck_assert_str_eq(c->hosts[2], "git.example.org:443");
	ck_assert_str_eq(c->private_hosts[0], "mirror.company.example");
	ck_assert_uint_eq(c->n_local_ports, 1);
	ck_assert_int_eq(c->local_ports[0], 5432);
	ck_assert_str_eq(c->folders_rw[0], "/home/me/data");
	ck_assert_str_eq(c->folders_ro[0], "/home/me/models");
	ck_assert_str_eq(c->folders_deny[0], "/home/me/secret");
	ck_assert(strv_contains(c->env, "COMPANY_TOKEN"));
	ck_assert(strv_contains(c->exclude, "docker *"));
	ck_assert_int_eq(c->limits.pids, 100);
	ck_assert_int_eq(c->limits.timeout_s, 600);
	ck_assert_int_eq(c->sandboxed, 1);
	/* extends: lists add up, scalars replace */
	ci = config_find_profile(cfg, "company-ci");
	ck_assert_uint_eq(strv_len(ci->hosts), 4);
	ck_assert(strv_contains(ci->hosts, "ci.example.org"));
	ck_assert(strv_contains(ci->hosts, "*.company.example"));
	ck_assert_int_eq(ci->run_outside, PROFILE_RUN_NEVER);
	ck_assert_int_eq(ci->network, PROFILE_NET_REGISTRIES);
	ck_assert_int_eq(ci->limits.memory_mb, 2048);
	ck_assert_str_eq(ci->extends, "company");
	/* no extends: an empty sandboxed profile */
	bare = config_find_profile(cfg, "bare");
	ck_assert_int_eq(bare->network, PROFILE_NET_NONE);
	ck_assert_int_eq(bare->run_outside, PROFILE_RUN_ASK);
	ck_assert_int_eq(bare->sandboxed, 1);
	ck_assert_ptr_null(bare->extends);
	/* bindings */
	b = config_find_binding(cfg->projects, cfg->n_projects, "/home/me/code/Lib");
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(b->sandbox, "strict");
	ck_assert_ptr_nonnull(config_find_binding(cfg->projects, cfg->n_projects,
	    "/home/me/trusted"));
	b = config_find_binding(cfg->providers, cfg->n_providers, "ollama");
	ck_assert_str_eq(b->hosts[0], "api.ollama.example");
	ck_assert_str_eq(b->env_values[0], "OLLAMA_KEY=k1");
	ck_assert_uint_eq(cfg->n_resolve, 1);
	ck_assert_str_eq(cfg->resolve[0].addrs[1], "2001:db8::10");
	ck_assert_int_eq(config_approvals_timeout_s(cfg), 120);
	ck_assert_int_eq(cfg->terminal_drop_osc, 1);
	ck_assert_int_eq(config_approvals_burst(cfg), 3);
	ck_assert_int_eq(config_approvals_per_minute(cfg), 9);
	config_free(cfg);
}
END_TEST

/* A missing file is an empty config, not an error. */
START_TEST(test_missing_file)
{
	struct config *cfg;
	sbox_error err;
	char **names;

	error_clear(&err);
	cfg = config_load_home(cfgpath, "/home/me", &err);
	ck_assert_ptr_nonnull(cfg);
	ck_assert(!error_isset(&err));
	ck_assert_ptr_null(cfg->all_sessions);
	ck_assert_uint_eq(cfg->n_profiles, 0);
	ck_assert_int_eq(config_approvals_timeout_s(cfg),
	    CONFIG_APPROVALS_TIMEOUT_DEFAULT);
	ck_assert_int_eq(config_approvals_burst(cfg),
	    CONFIG_APPROVALS_BURST_DEFAULT);
	ck_assert_int_eq(config_approvals_per_minute(cfg),
	    CONFIG_APPROVALS_PER_MINUTE_DEFAULT);
	/* sboxd's own budgets: the defaults */
	ck_assert_uint_eq(config_output_session_bytes(cfg), 16u << 20);
	ck_assert_uint_eq(config_output_total_bytes(cfg), 256u << 20);
	ck_assert_uint_eq(config_disk_reserve_bytes(cfg), 64u << 20);
	names = profile_list(cfg);
	ck_assert_uint_eq(strv_len(names), 4);
	ck_assert_str_eq(names[0], "workspace");
	ck_assert_str_eq(names[3], "none");
	strv_free(names);
	config_free(cfg);
}
END_TEST

/* Broken configs: the error names the file, the key and why. */
static const struct {
	const char *json;
	const char *field;    /* err.field; NULL: none */
	const char *why;      /* substring of the message */
} bad[] = {
	{ "{", NULL, "invalid JSON" },
	{ "{\"a\": 1, \"a\": 2}", NULL, "invalid JSON" },
	{ "[]", NULL, "top level must be an object" },
	{ "{\"sandboxes\": {}}", "sandboxes", "unknown key" },
	{ "{\"sandbox\": 1}", "sandbox", "must be an object" },
	{ "{\"sandbox\": {\"all\": \"strict\"}}", "sandbox.all", "unknown key" },
	{ "{\"sandbox\": {\"profiles\": []}}", "sandbox.profiles", "must be an object" },
	{ "{\"sandbox\": {\"profiles\": {\"Bad Name\": {}}}}", "sandbox.profiles.Bad Name",
	    "not a valid profile name" },
	{ "{\"sandbox\": {\"profiles\": {\"strict\": {}}}}", "sandbox.profiles.strict",
	    "built-in" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": 3}}}", "sandbox.profiles.c", "must be an object" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"host\": []}}}}", "sandbox.profiles.c.host",
	    "unknown key" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"network\": \"all\"}}}}",
	    "sandbox.profiles.c.network", "\"none\", \"hosts\" (its hosts only), \"registries\" or \"internet\"" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"network\": true}}}}",
	    "sandbox.profiles.c.network", "\"registries\"" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"run_outside\": \"always\"}}}}",
	    "sandbox.profiles.c.run_outside", "\"ask\" or \"never\"" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"hosts\": \"a.example\"}}}}",
	    "sandbox.profiles.c.hosts", "must be an array" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"hosts\": [\"a.example\", 5]}}}}",
	    "sandbox.profiles.c.hosts[1]", "must be a string" },
	{ "{\"sandbox\": {\"profiles\": {\"company\": {\"hosts\": [\"a.example\", \"*.com\"]}}}}",
	    "sandbox.profiles.company.hosts[1]", "bad host pattern \"*.com\"" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"private_hosts\": [\"*.corp.example\"]}}}}",
	    "sandbox.profiles.c.private_hosts[0]", "exact names" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"local_ports\": [0]}}}}",
	    "sandbox.profiles.c.local_ports[0]", "1..65535" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"local_ports\": [\"5432\"]}}}}",
	    "sandbox.profiles.c.local_ports[0]", "1..65535" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"local_ports\": 5432}}}}",
	    "sandbox.profiles.c.local_ports", "array" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"mcp_servers\": [\"\"]}}}}",
	    "sandbox.profiles.c.mcp_servers[0]", "non-empty" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"folders\": []}}}}",
	    "sandbox.profiles.c.folders", "must be an object" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"folders\": {\"write\": []}}}}}",
	    "sandbox.profiles.c.folders.write", "unknown key" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"folders\": {\"deny\": [\"secret\"]}}}}}",
	    "sandbox.profiles.c.folders.deny[0]", "not absolute" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"folders\": {\"read_only\": [\"~bob/x\"]}}}}}",
	    "sandbox.profiles.c.folders.read_only[0]", "~user" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"folders\": {\"read_write\": [\"/a/../etc\"]}}}}}",
	    "sandbox.profiles.c.folders.read_write[0]", "\"..\"" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"env\": [\"NOT-A-NAME\"]}}}}",
	    "sandbox.profiles.c.env[0]", "not a variable name" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"exclude\": [\"\"]}}}}",
	    "sandbox.profiles.c.exclude[0]", "non-empty" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"limits\": {\"cpu\": 1}}}}}",
	    "sandbox.profiles.c.limits.cpu", "unknown key" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"limits\": {\"pids\": 0}}}}}",
	    "sandbox.profiles.c.limits.pids", "integer from 1" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"limits\": {\"memory_mb\": \"1G\"}}}}}",
	    "sandbox.profiles.c.limits.memory_mb", "integer" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"limits\": 5}}}}",
	    "sandbox.profiles.c.limits", "must be an object" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"extends\": 1}}}}",
	    "sandbox.profiles.c.extends", "name of a profile" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"extends\": \"nope\"}}}}",
	    "sandbox.profiles.c.extends", "unknown parent profile \"nope\"" },
	{ "{\"sandbox\": {\"profiles\": {\"a\": {\"extends\": \"b\"}, \"b\": {\"extends\": \"a\"}}}}",
	    "sandbox.profiles.a.extends", "extends cycle: a -> b -> a" },
	{ "{\"sandbox\": {\"profiles\": {\"a\": {\"extends\": \"a\"}}}}",
	    "sandbox.profiles.a.extends", "extends cycle: a -> a" },
	{ "{\"sandbox\": {\"profiles\": {\"a\": {\"extends\": \"none\"}}}}",
	    "sandbox.profiles.a.extends", "cannot extend \"none\"" },
	{ "{\"sandbox\": {\"all_sessions\": \"nope\"}}", "sandbox.all_sessions",
	    "unknown profile \"nope\"" },
	{ "{\"sandbox\": {\"all_sessions\": true}}", "sandbox.all_sessions",
	    "name of a profile" },
	{ "{\"resolve\": []}", "resolve", "must be an object" },
	{ "{\"resolve\": {\"*.x.test\": [\"198.18.0.1\"]}}", "resolve.*.x.test",
	    "plain host name" },
	{ "{\"resolve\": {\"x.test\": []}}", "resolve.x.test", "non-empty array" },
	{ "{\"resolve\": {\"x.test\": [\"198.18.0.256\"]}}", "resolve.x.test[0]",
	    "IPv4 or IPv6" },
	{ "{\"spaces\": []}", "spaces", "must be an object" },
	{ "{\"spaces\": {\"work\": \"strict\"}}", "spaces.work", "must be an object" },
	{ "{\"spaces\": {\"work\": {\"profile\": \"strict\"}}}", "spaces.work.profile",
	    "unknown key" },
	{ "{\"spaces\": {\"work\": {\"sandbox\": \"nope\"}}}", "spaces.work.sandbox",
	    "unknown profile" },
	{ "{\"projects\": {\"code/Lib\": {\"sandbox\": \"strict\"}}}", "projects.code/Lib",
	    "not absolute" },
	{ "{\"projects\": {\"/a/b\": {}, \"/a/b/\": {}}}", "projects./a/b/",
	    "named twice" },
	{ "{\"projects\": {\"/a\": {\"hosts\": []}}}", "projects./a.hosts", "unknown key" },
	{ "{\"providers\": {\"p\": {\"hosts\": [\"bad..host\"]}}}", "providers.p.hosts[0]",
	    "empty label" },
	{ "{\"providers\": {\"p\": {\"hosts\": \"x\"}}}", "providers.p.hosts", "array" },
	{ "{\"providers\": {\"p\": {\"env\": {\"A-B\": \"x\"}}}}", "providers.p.env.A-B",
	    "not a variable name" },
	{ "{\"providers\": {\"p\": {\"env\": {\"K\": 1}}}}", "providers.p.env.K",
	    "must be a string" },
	{ "{\"providers\": {\"p\": {\"env\": [\"K\"]}}}", "providers.p.env", "NAME -> value" },
	{ "{\"providers\": {\"p\": {\"model\": \"x\"}}}", "providers.p.model", "unknown key" },
	{ "{\"models\": {\"m\": {\"sandbox\": 1}}}", "models.m.sandbox", "name of a profile" },
	{ "{\"approvals\": {\"timeout\": 5}}", "approvals.timeout", "unknown key" },
	{ "{\"approvals\": {\"timeout_s\": -1}}", "approvals.timeout_s", "0 (no limit)" },
	{ "{\"approvals\": 5}", "approvals", "must be an object" },
	{ "{\"terminal\": {\"drop_osc\": 1}}", "terminal.drop_osc",
	    "true or false" },
	{ "{\"terminal\": {\"osc\": true}}", "terminal.osc", "unknown key" },
	{ "{\"terminal\": true}", "terminal", "must be an object" },
	{ "{\"approvals\": {\"burst\": 0}}", "approvals.burst", "from 1 to 1000" },
	{ "{\"approvals\": {\"per_minute\": \"5\"}}", "approvals.per_minute", "from 1 to 1000" },
	{ "{\"daemon\": {\"output_mb\": 5}}", "daemon.output_mb", "unknown key" },
	{ "{\"daemon\": {\"output_mb_total\": 0}}", "daemon.output_mb_total",
	    "from 1" },
	{ "{\"daemon\": {\"disk_reserve_mb\": \"64\"}}", "daemon.disk_reserve_mb",
	    "integer" },
	{ "{\"daemon\": []}", "daemon", "must be an object" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"caches\": \"all\"}}}}",
	    "sandbox.profiles.c.caches", "\"project\"" },
	{ "{\"sandbox\": {\"profiles\": {\"c\": {\"limits\": {\"cache_mb\": 0}}}}}",
	    "sandbox.profiles.c.limits.cache_mb", "from 1" },
};

/* The "daemon" object and the caches keys of a profile. */
START_TEST(test_daemon_and_caches)
{
	const struct profile *p;
	struct config *cfg;
	sbox_error err;

	cfg = load("{\"daemon\": {\"output_mb_per_session\": 4, "
	    "\"output_mb_total\": 40, \"disk_reserve_mb\": 0}, \"sandbox\": "
	    "{\"profiles\": {\"c\": {\"extends\": \"workspace\", \"caches\": "
	    "\"profile\", \"limits\": {\"cache_mb\": 100}}}}}", &err);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	ck_assert_uint_eq(config_output_session_bytes(cfg), 4u << 20);
	ck_assert_uint_eq(config_output_total_bytes(cfg), 40u << 20);
	ck_assert_uint_eq(config_disk_reserve_bytes(cfg), 0);
	p = config_find_profile(cfg, "c");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->caches_shared, 1);
	ck_assert_int_eq(p->limits.cache_mb, 100);
	config_free(cfg);
}
END_TEST

/* Every error path gives E_CONFIG with the file, the key and the reason. */
START_TEST(test_errors)
{
	struct config *cfg;
	sbox_error err;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cfg = load(bad[i].json, &err);
		ck_assert_msg(cfg == NULL, "case %zu accepted: %s", i, bad[i].json);
		ck_assert_str_eq(err.name, E_CONFIG);
		ck_assert_msg(strstr(err.message, cfgpath) == err.message,
		    "case %zu: message does not start with the file: %s", i, err.message);
		ck_assert_msg(strstr(err.message, bad[i].why) != NULL,
		    "case %zu: \"%s\" lacks \"%s\"", i, err.message, bad[i].why);
		if (bad[i].field != NULL) {
			ck_assert_msg(strcmp(err.field, bad[i].field) == 0,
			    "case %zu: field \"%s\", want \"%s\"", i, err.field, bad[i].field);
			ck_assert_msg(strstr(err.message, bad[i].field) != NULL,
			    "case %zu: message does not name the key: %s", i, err.message);
		}
	}
}
END_TEST

/* The message for a bad host reads "FILE: KEY: why". */
START_TEST(test_error_format)
{
	char want[512];
	sbox_error err;

	ck_assert_ptr_null(load("{\"sandbox\": {\"profiles\": {\"company\": "
	    "{\"hosts\": [\"ok.example\", \"*\"]}}}}", &err));
	snprintf(want, sizeof want, "%s: sandbox.profiles.company.hosts[1]: bad host "
	    "pattern \"*\": '*' must be followed by '.'", cfgpath);
	ck_assert_msg(strncmp(err.message, want, strlen(want)) == 0, "%s", err.message);
}
END_TEST

/* Not a regular file, and too large. */
START_TEST(test_file_errors)
{
	struct config *cfg;
	sbox_error err;
	FILE *f;
	long i;

	error_clear(&err);
	ck_assert_ptr_null(config_load_home(tmpdir, "/home/me", &err));
	ck_assert_str_eq(err.name, E_CONFIG);
	f = fopen(cfgpath, "w");
	fputs("{\"models\": {", f);
	for (i = 0; i < CONFIG_MAX_BYTES / 16; i++)
		fprintf(f, "\"m%09ld\": {},", i);
	fputs("\"x\": {}}}", f);
	fclose(f);
	error_clear(&err);
	cfg = config_load_home(cfgpath, "/home/me", &err);
	ck_assert_ptr_null(cfg);
	ck_assert_ptr_nonnull(strstr(err.message, "at most"));
}
END_TEST

/* Only a regular file is read (a FIFO is refused at once, never waited
 * on); a reload (config_load_existing) refuses a missing file. */
START_TEST(test_fifo_and_missing_at_reload)
{
	struct config *cfg;
	sbox_error err;

	error_clear(&err);
	ck_assert_ptr_null(config_load_existing(cfgpath, &err));
	ck_assert_str_eq(err.name, E_CONFIG);
	ck_assert_str_eq(err.field, "missing");
	ck_assert_int_eq(mkfifo(cfgpath, 0600), 0);
	error_clear(&err);
	ck_assert_ptr_null(config_load_home(cfgpath, "/home/me", &err));
	ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
	error_clear(&err);
	ck_assert_ptr_null(config_load_existing(cfgpath, &err));
	ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
	unlink(cfgpath);
	error_clear(&err);
	cfg = config_load_home(cfgpath, "/home/me", &err);
	ck_assert_ptr_nonnull(cfg);	/* at start: the empty config */
	config_free(cfg);
}
END_TEST

/* profile_get and profile_list. */
START_TEST(test_profile_get)
{
	struct config *cfg;
	struct profile *p;
	sbox_error err;
	char **names;

	cfg = load(example, &err);
	ck_assert_ptr_nonnull(cfg);
	p = profile_get(cfg, "company-ci", &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->name, "company-ci");
	profile_free(p);
	p = profile_get(cfg, "lab", &err);
	ck_assert_int_eq(p->project_access, 0);
	ck_assert_int_eq(p->network, PROFILE_NET_NONE);
	profile_free(p);
	error_clear(&err);
	ck_assert_ptr_null(profile_get(cfg, "nope", &err));
	ck_assert_str_eq(err.name, E_PROFILE_NOT_FOUND);
	names = profile_list(cfg);
	ck_assert_uint_eq(strv_len(names), 7);
	ck_assert_str_eq(names[4], "company");
	strv_free(names);
	config_free(cfg);
}
END_TEST

/* config_save_host adds to a custom profile, keeps the rest, validates. */
START_TEST(test_save_host)
{
	struct config *cfg;
	const struct profile *c;
	sbox_error err;
	struct stat st;

	write_config(example);
	error_clear(&err);
	ck_assert_int_eq(config_save_host(cfgpath, "company", "New.Example.test", &err), 0);
	cfg = config_load_home(cfgpath, "/home/me", &err);
	ck_assert_ptr_nonnull(cfg);
	c = config_find_profile(cfg, "company");
	ck_assert_uint_eq(strv_len(c->hosts), 4);
	ck_assert(strv_contains(c->hosts, "new.example.test"));
	ck_assert_int_eq(config_approvals_timeout_s(cfg), 120);
	/* inherited by the child profile */
	ck_assert(strv_contains(config_find_profile(cfg, "company-ci")->hosts,
	    "new.example.test"));
	config_free(cfg);
	ck_assert_int_eq(stat(cfgpath, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	/* twice: nothing changes */
	ck_assert_int_eq(config_save_host(cfgpath, "company", "new.example.test.", &err), 0);
	cfg = config_load_home(cfgpath, "/home/me", &err);
	ck_assert_uint_eq(strv_len(config_find_profile(cfg, "company")->hosts), 4);
	config_free(cfg);
	/* a profile without hosts gets the key */
	ck_assert_int_eq(config_save_host(cfgpath, "bare", "b.example.test:443", &err), 0);
	cfg = config_load_home(cfgpath, "/home/me", &err);
	ck_assert_str_eq(config_find_profile(cfg, "bare")->hosts[0], "b.example.test:443");
	config_free(cfg);
	/* errors */
	error_clear(&err);
	ck_assert_int_eq(config_save_host(cfgpath, "workspace", "x.example.test", &err), -1);
	ck_assert_str_eq(err.name, E_CONFIG);
	ck_assert_ptr_nonnull(strstr(err.message, "built-in"));
	error_clear(&err);
	ck_assert_int_eq(config_save_host(cfgpath, "nope", "x.example.test", &err), -1);
	ck_assert_str_eq(err.name, E_PROFILE_NOT_FOUND);
	error_clear(&err);
	ck_assert_int_eq(config_save_host(cfgpath, "company", "*.test", &err), -1);
	ck_assert_str_eq(err.name, E_CONFIG);
	unlink(cfgpath);
	error_clear(&err);
	ck_assert_int_eq(config_save_host(cfgpath, "company", "x.example.test", &err), -1);
	ck_assert_str_eq(err.name, E_PROFILE_NOT_FOUND);
	/* a broken file is refused, not overwritten */
	write_config("{\"sandbox\": {\"profiles\": {\"c\": {\"bogus\": 1}}}}");
	error_clear(&err);
	ck_assert_int_eq(config_save_host(cfgpath, "c", "x.example.test", &err), -1);
	ck_assert_str_eq(err.name, E_CONFIG);
	ck_assert_ptr_nonnull(strstr(err.message, "bogus"));
}
END_TEST

/* A profile round-trips through its stored JSON form. */
START_TEST(test_profile_json)
{
	struct config *cfg;
	struct profile *p, *q;
	json_t *j, *j2;
	sbox_error err;

	cfg = load(example, &err);
	p = profile_get(cfg, "company", &err);
	ck_assert_int_eq(profile_env_set_value(p, "OLLAMA_KEY", "secret-value"), 0);
	p->provenance = strdup("company, from space work");
	j = profile_to_json(p);
	ck_assert_ptr_nonnull(j);
	q = profile_from_json(j, &err);
	ck_assert_msg(q != NULL, "%s", err.message);
	j2 = profile_to_json(q);
	ck_assert(json_equal(j, j2));
	ck_assert_str_eq(q->provenance, "company, from space work");
	ck_assert_str_eq(q->env_values[0], "OLLAMA_KEY=secret-value");
	ck_assert_int_eq(q->limits.nofile, 256);
	json_decref(j2);
	j2 = profile_to_json_public(q);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j2,
	    "env_values"), "OLLAMA_KEY")), "(set)");
	json_decref(j2);
	/* a forged record is refused */
	json_object_set_new(j, "sandboxed", json_false());
	error_clear(&err);
	ck_assert_ptr_null(profile_from_json(j, &err));
	ck_assert_str_eq(err.name, E_CONFIG);
	json_object_set_new(j, "sandboxed", json_true());
	json_object_set_new(j, "hosts", json_pack("[s]", "*"));
	error_clear(&err);
	ck_assert_ptr_null(profile_from_json(j, &err));
	ck_assert_str_eq(err.field, "profile.hosts[0]");
	json_object_del(j, "hosts");
	json_object_set_new(j, "surprise", json_true());
	ck_assert_ptr_null(profile_from_json(j, &err));
	json_object_del(j, "surprise");
	json_object_del(j, "name");
	ck_assert_ptr_null(profile_from_json(j, &err));
	json_decref(j);
	profile_free(p);
	profile_free(q);
	config_free(cfg);
}
END_TEST

/* Suite of config loader tests. */
static Suite *
config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_example);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_error_format);
	tcase_add_test(tc, test_file_errors);
	tcase_add_test(tc, test_fifo_and_missing_at_reload);
	tcase_add_test(tc, test_profile_get);
	tcase_add_test(tc, test_save_host);
	tcase_add_test(tc, test_profile_json);
	tcase_add_test(tc, test_daemon_and_caches);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(config_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
