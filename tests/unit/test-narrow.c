/* test-narrow.c: a child session's profile is never wider than its parent's. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/strv.h"

/* A wide sandboxed parent. */
static struct profile *
parent(void)
{
	struct profile *p = profile_builtin("workspace", NULL);
	static int ports[] = { 5432, 6379 };

	strv_append(&p->hosts, "*.example.test");
	strv_append(&p->hosts, "api.example.org:443");
	strv_append(&p->private_hosts, "mirror.example.test");
	p->local_ports = malloc(sizeof ports);
	memcpy(p->local_ports, ports, sizeof ports);
	p->n_local_ports = 2;
	strv_append(&p->mcp_servers, "docs");
	strv_append(&p->folders_rw, "/home/u/data");
	strv_append(&p->folders_ro, "/home/u/models");
	strv_append(&p->folders_deny, "/home/u/data/secret");
	strv_append(&p->env, "CI");
	strv_append(&p->env, "NPM_CONFIG_*");
	profile_env_set_value(p, "OLLAMA_KEY", "k");
	strv_append(&p->exclude, "docker *");
	p->limits.pids = 100;
	p->limits.timeout_s = 0;
	return p;
}

/* A child identical in shape to the parent but empty. */
static struct profile *
child(void)
{
	struct profile *c = profile_builtin("strict", NULL);

	return c;
}

/* Narrow and expect a violation on axis. */
static void
expect_violation(struct profile *pa, struct profile *c, const char *axis)
{
	sbox_error err;

	error_clear(&err);
	ck_assert_msg(policy_narrow(pa, c, &err) == NULL, "axis %s allowed", axis);
	ck_assert_str_eq(err.name, E_NARROWING);
	ck_assert_str_eq(err.field, axis);
	ck_assert_ptr_nonnull(strstr(err.message, "cannot widen"));
	profile_free(c);
}

/* Narrow and expect success; returns the result. */
static struct profile *
expect_ok(struct profile *pa, struct profile *c)
{
	struct profile *r;
	sbox_error err;

	error_clear(&err);
	r = policy_narrow(pa, c, &err);
	ck_assert_msg(r != NULL, "%s", err.message);
	profile_free(c);
	return r;
}

/* Every axis refuses widening. */
START_TEST(test_every_axis)
{
	struct profile *pa = parent(), *c;

	expect_violation(pa, profile_builtin("none", NULL), "sandbox");
	c = child(); c->network = PROFILE_NET_INTERNET;
	expect_violation(pa, c, "network");
	c = child(); strv_append(&c->hosts, "other.test");
	expect_violation(pa, c, "hosts");
	c = child(); strv_append(&c->hosts, "example.test");	/* apex not in *.example.test */
	expect_violation(pa, c, "hosts");
	c = child(); strv_append(&c->hosts, "api.example.org");	/* any port > :443 */
	expect_violation(pa, c, "hosts");
	c = child(); strv_append(&c->private_hosts, "db.example.test");
	expect_violation(pa, c, "private_hosts");
	c = child(); c->local_ports = malloc(sizeof(int)); c->local_ports[0] = 22; c->n_local_ports = 1;
	expect_violation(pa, c, "local_ports");
	c = child(); strv_append(&c->mcp_servers, "shell");
	expect_violation(pa, c, "mcp_servers");
	c = child(); strv_append(&c->folders_rw, "/home/u/models");
	expect_violation(pa, c, "folders.read_write");
	c = child(); strv_append(&c->folders_rw, "/home/u/database");	/* prefix, not inside */
	expect_violation(pa, c, "folders.read_write");
	c = child(); strv_append(&c->folders_ro, "/etc/ssh");
	expect_violation(pa, c, "folders.read_only");
	c = child(); strv_append(&c->env, "GITHUB_TOKEN");
	expect_violation(pa, c, "env");
	c = child(); strv_append(&c->env, "NPM_*");	/* wider than NPM_CONFIG_* */
	expect_violation(pa, c, "env");
	c = child(); profile_env_set_value(c, "OTHER_KEY", "v");
	expect_violation(pa, c, "env_values");
	c = child(); strv_append(&c->exclude, "make deploy");
	expect_violation(pa, c, "exclude");
	pa->run_outside = PROFILE_RUN_NEVER;
	c = child(); c->run_outside = PROFILE_RUN_ASK;
	expect_violation(pa, c, "run_outside");
	pa->project_access = 0;
	expect_violation(pa, child(), "project_access");
	profile_free(pa);
}
END_TEST

/* Children within the parent pass; denies and limits carry over. */
START_TEST(test_allowed)
{
	struct profile *pa = parent(), *c, *r;

	c = child();
	c->network = PROFILE_NET_REGISTRIES;
	strv_append(&c->hosts, "a.example.test");
	strv_append(&c->hosts, "*.b.example.test:8443");
	strv_append(&c->hosts, "api.example.org:443");
	strv_append(&c->private_hosts, "mirror.example.test");
	c->local_ports = malloc(sizeof(int)); c->local_ports[0] = 6379; c->n_local_ports = 1;
	strv_append(&c->mcp_servers, "docs");
	strv_append(&c->folders_rw, "/home/u/data/sub");
	strv_append(&c->folders_ro, "/home/u/data");
	strv_append(&c->folders_ro, "/home/u/models/big");
	strv_append(&c->env, "CI");
	strv_append(&c->env, "NPM_CONFIG_REGISTRY");
	strv_append(&c->env, "NPM_CONFIG_X*");
	strv_append(&c->env, "OLLAMA_KEY");
	strv_append(&c->exclude, "docker *");
	c->limits.pids = 500;
	c->limits.timeout_s = 30;
	c->provenance = strdup("strict, from session");
	r = expect_ok(pa, c);
	ck_assert(strv_contains(r->folders_deny, "/home/u/data/secret"));
	ck_assert_int_eq(r->limits.pids, 100);
	ck_assert_int_eq(r->limits.timeout_s, 30);
	ck_assert_str_eq(r->provenance, "strict, from session, inside a session sandboxed with workspace");
	profile_free(r);
	/* an internet parent allows any host */
	pa->network = PROFILE_NET_INTERNET;
	c = child();
	strv_append(&c->hosts, "anything.test");
	r = expect_ok(pa, c);
	profile_free(r);
	/* an unsandboxed parent allows anything, and the child may turn sandboxing on */
	profile_free(pa);
	pa = profile_builtin("none", NULL);
	c = parent();
	r = expect_ok(pa, c);
	ck_assert_int_eq(r->sandboxed, 1);
	profile_free(r);
	r = expect_ok(pa, profile_builtin("none", NULL));
	ck_assert_int_eq(r->sandboxed, 0);
	profile_free(r);
	profile_free(pa);
}
END_TEST

/* Suite of narrowing tests. */
static Suite *
narrow_suite(void)
{
	Suite *s = suite_create("narrow");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_every_axis);
	tcase_add_test(tc, test_allowed);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(narrow_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
