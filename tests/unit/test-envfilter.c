/* test-envfilter.c: the clean sandbox environment and secret names. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/envfilter.h"
#include "policy/strv.h"

/* Secret-looking names and harmless ones. */
START_TEST(test_is_secret)
{
	static const char *const secret[] = {
		"OPENAI_API_KEY", "anthropic_api_key", "GITHUB_TOKEN", "NPM_TOKEN",
		"HF_TOKEN", "TOKEN", "CLIENT_SECRET", "AWS_SECRET_ACCESS_KEY",
		"AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AZURE_CLIENT_ID", "DB_PASSWORD",
		"MYSQL_PWD_PASSWORD", "PGPASSWORD", "SMTP_PASS", "FTP_PASSWD",
		"GOOGLE_APPLICATION_CREDENTIALS", "DOCKER_CREDENTIALS", "SSH_AUTH_SOCK",
		"SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
		"STRIPE_KEY", "GITLAB_PAT", "DATABASE_URL", "SENTRY_DSN",
		"KUBECONFIG", "SECRET_SAUCE", "SIGNING_PRIVATE_KEY", "KRB5CCNAME",
		"API_KEY", "GPG_PASSPHRASE", "SESSION_COOKIE", "BASIC_AUTH", NULL
	};
	static const char *const plain[] = {
		"PATH", "HOME", "LANG", "TERM", "CI", "TOKENIZERS_PARALLELISM",
		"KEYBOARD", "EDITOR", "GOPATH", "NODE_ENV", "PYTHONPATH", "LC_ALL",
		"CARGO_HOME", "PASSAGE", NULL
	};
	size_t i;

	for (i = 0; secret[i] != NULL; i++)
		ck_assert_msg(envfilter_is_secret(secret[i]), "%s not secret", secret[i]);
	for (i = 0; plain[i] != NULL; i++)
		ck_assert_msg(!envfilter_is_secret(plain[i]), "%s secret", plain[i]);
}
END_TEST

/* The clean set plus named variables; secrets dropped unless named. */
START_TEST(test_apply)
{
	char *client[] = {
		"PATH=/usr/bin:/bin", "HOME=/elsewhere", "USER=someone", "LANG=C.UTF-8",
		"LC_ALL=C", "TERM=xterm", "TMPDIR=/var/tmp/x", "EDITOR=vi",
		"OPENAI_API_KEY=sk-1", "COMPANY_TOKEN=t-1", "CI=1", "SSH_AUTH_SOCK=/run/a",
		"AWS_SECRET_ACCESS_KEY=a", "NPM_CONFIG_REGISTRY=https://r.example.test/",
		"NOEQUALS", NULL
	};
	struct profile *p = profile_builtin("workspace", NULL);
	char **env;

	strv_append(&p->env, "CI");
	strv_append(&p->env, "COMPANY_TOKEN");
	strv_append(&p->env, "NPM_CONFIG_*");
	profile_env_set_value(p, "OLLAMA_KEY", "k1");
	profile_env_set_value(p, "CI", "provider");
	env = envfilter_apply(client, p, "/home/u", "u", NULL);
	ck_assert_ptr_nonnull(env);
	ck_assert(strv_contains(env, "PATH=/usr/bin:/bin"));
	ck_assert(strv_contains(env, "HOME=/home/u"));
	ck_assert(strv_contains(env, "USER=u"));
	ck_assert(strv_contains(env, "LOGNAME=u"));
	ck_assert(strv_contains(env, "LANG=C.UTF-8"));
	ck_assert(strv_contains(env, "LC_ALL=C"));
	ck_assert(strv_contains(env, "TERM=xterm"));
	ck_assert(strv_contains(env, "TMPDIR=/tmp"));
	ck_assert(strv_contains(env, "COMPANY_TOKEN=t-1"));
	ck_assert(strv_contains(env, "NPM_CONFIG_REGISTRY=https://r.example.test/"));
	ck_assert(strv_contains(env, "OLLAMA_KEY=k1"));
	ck_assert(strv_contains(env, "CI=provider"));	/* provider value wins */
	ck_assert(!strv_contains(env, "CI=1"));
	ck_assert(!strv_contains(env, "OPENAI_API_KEY=sk-1"));
	ck_assert(!strv_contains(env, "SSH_AUTH_SOCK=/run/a"));
	ck_assert(!strv_contains(env, "AWS_SECRET_ACCESS_KEY=a"));
	ck_assert(!strv_contains(env, "EDITOR=vi"));
	ck_assert_uint_eq(strv_len(env), 12);
	strv_free(env);
	/* no PATH from the client: a default one */
	env = envfilter_apply(NULL, p, "/home/u", "u", NULL);
	ck_assert(strv_contains(env, "PATH=/usr/local/bin:/usr/bin:/bin"));
	strv_free(env);
	profile_free(p);
}
END_TEST

/* A per-command environment loses unnamed secrets only. */
START_TEST(test_command)
{
	char *cmd[] = { "FOO=1", "MY_TOKEN=x", "GITHUB_TOKEN=y", "BAR", "FOO=2", NULL };
	struct profile *p = profile_builtin("strict", NULL);
	char **env;

	strv_append(&p->env, "GITHUB_TOKEN");
	env = envfilter_command(cmd, p, NULL);
	ck_assert_uint_eq(strv_len(env), 2);
	ck_assert(strv_contains(env, "FOO=2"));
	ck_assert(strv_contains(env, "GITHUB_TOKEN=y"));
	strv_free(env);
	profile_free(p);
}
END_TEST

/* Names accepted in a profile's env list. */
START_TEST(test_names)
{
	ck_assert(envfilter_name_valid("CI"));
	ck_assert(envfilter_name_valid("_X1"));
	ck_assert(envfilter_name_valid("NPM_CONFIG_*"));
	ck_assert(!envfilter_name_valid("1X"));
	ck_assert(!envfilter_name_valid("A-B"));
	ck_assert(!envfilter_name_valid("A*B"));
	ck_assert(!envfilter_name_valid(""));
	ck_assert(!envfilter_name_valid("*"));
	ck_assert(envfilter_named((char *[]){ "NPM_*", NULL }, "NPM_TOKEN"));
	ck_assert(!envfilter_named((char *[]){ "NPM", NULL }, "NPM_TOKEN"));
}
END_TEST

/* Suite of environment tests. */
static Suite *
envfilter_suite(void)
{
	Suite *s = suite_create("envfilter");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_is_secret);
	tcase_add_test(tc, test_apply);
	tcase_add_test(tc, test_command);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(envfilter_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
