/* test-gitseq.c: the allow list of git's sequencer state
 * (policy/gitseq.c): what host git would run or obey is not safe. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "policy/gitseq.h"

/* Decide text as file name of folder f (0 safe, -1 not). */
static int
file(enum gitseq_folder f, const char *name, const char *text)
{
	char why[GITSEQ_WHY_MAX];
	int rc;

	why[0] = '\0';
	rc = gitseq_file(f, name, text, strlen(text), why, sizeof why);
	if (rc != 0)
		ck_assert_msg(why[0] != '\0', "a refusal says why");
	return rc;
}

START_TEST(test_todo_without_exec)
{
	const enum gitseq_folder m = GITSEQ_REBASE_MERGE;

	ck_assert_int_eq(file(m, "git-rebase-todo", "pick 1234 one\n"
	    "p 5678 two\n  reword abcd three\n# exec in a comment\n\nfixup -C "
	    "ab x\nbreak\nlabel onto\nreset onto\nmerge -C ab l # m\n"
	    "update-ref refs/heads/x\ndrop ab\n"), 0);
	ck_assert_int_eq(file(m, "done", "pick 1 a\nedit 2 b\n"), 0);
	ck_assert_int_eq(file(m, "git-rebase-todo", ""), 0);
}
END_TEST

START_TEST(test_todo_with_exec)
{
	const enum gitseq_folder m = GITSEQ_REBASE_MERGE;

	ck_assert_int_eq(file(m, "git-rebase-todo", "pick 1 a\nexec touch "
	    "/tmp/m\n"), -1);
	ck_assert_int_eq(file(m, "git-rebase-todo", "x touch /tmp/m\n"), -1);
	ck_assert_int_eq(file(m, "git-rebase-todo", " \texec\ttouch m\n"), -1);
	ck_assert_int_eq(file(m, "git-rebase-todo", "exec\n"), -1);
	ck_assert_int_eq(file(m, "done", "pick 1 a\nx make\n"), -1);
	ck_assert_int_eq(file(m, "git-rebase-todo.backup", "x true\n"), -1);
	ck_assert_int_eq(file(m, "git-rebase-todo", "pick 1\n\0exec m\n"), 0);
	{	/* a NUL: git would stop reading there, the check does not */
		static const char nul[] = "pick 1\n\0exec m\n";
		char why[GITSEQ_WHY_MAX];

		ck_assert_int_eq(gitseq_file(m, "git-rebase-todo", nul,
		    sizeof nul - 1, why, sizeof why), -1);
	}
	ck_assert_int_eq(file(m, "git-rebase-todo", "frobnicate 1\n"), -1);
	/* the sequencer's todo: picks and reverts only */
	ck_assert_int_eq(file(GITSEQ_SEQUENCER, "todo", "pick 1 a\nrevert 2 "
	    "b\n"), 0);
	ck_assert_int_eq(file(GITSEQ_SEQUENCER, "todo", "pick 1 a\nbreak\n"),
	    -1);
	ck_assert_int_eq(file(GITSEQ_SEQUENCER, "todo", "exec m\n"), -1);
}
END_TEST

START_TEST(test_options_files)
{
	const enum gitseq_folder m = GITSEQ_REBASE_MERGE;
	const enum gitseq_folder a = GITSEQ_REBASE_APPLY;

	ck_assert_int_eq(file(m, "strategy", "ort\n"), 0);
	ck_assert_int_eq(file(m, "strategy", "evil\n"), -1);
	ck_assert_int_eq(file(m, "strategy", "../../tmp/x\n"), -1);
	ck_assert_int_eq(file(m, "strategy_opts", " --'theirs'\n"), 0);
	ck_assert_int_eq(file(m, "strategy_opts", "--x;touch m\n"), -1);
	ck_assert_int_eq(file(m, "gpg_sign_opt", "-S"), 0);
	ck_assert_int_eq(file(m, "gpg_sign_opt", "-SABCDEF12"), 0);
	ck_assert_int_eq(file(m, "gpg_sign_opt", "-S--exec=x"), -1);
	ck_assert_int_eq(file(m, "head-name", "refs/heads/topic\n"), 0);
	ck_assert_int_eq(file(m, "head-name", "detached HEAD\n"), 0);
	ck_assert_int_eq(file(m, "head-name", "refs/heads/$(touch m)\n"), -1);
	ck_assert_int_eq(file(m, "onto", "0123abcd\n"), 0);
	ck_assert_int_eq(file(m, "onto", "HEAD~1\n"), -1);
	ck_assert_int_eq(file(m, "author-script", "GIT_AUTHOR_NAME='a'\n"
	    "GIT_AUTHOR_EMAIL='a@b'\nGIT_AUTHOR_DATE='@1 +0000'\n"), 0);
	ck_assert_int_eq(file(m, "author-script", "touch /tmp/m\n"), -1);
	ck_assert_int_eq(file(a, "apply-opt", ""), 0);
	ck_assert_int_eq(file(a, "apply-opt", " '--whitespace=fix' '-p2' "
	    "'-C1'\n"), 0);
	ck_assert_int_eq(file(a, "apply-opt", " '--unsafe-paths' "
	    "'--directory=../..'\n"), -1);
	ck_assert_int_eq(file(a, "apply-opt", " --reject\n"), -1);
	ck_assert_int_eq(file(a, "keep", "t\n"), 0);
	ck_assert_int_eq(file(a, "keep", "tt\n"), -1);
	ck_assert_int_eq(file(m, "refs-to-update", "refs/heads/x\n0123abcd\n"
	    "4567abcd\n"), 0);
	ck_assert_int_eq(file(m, "refs-to-update", "config\n0123abcd\n"), -1);
	ck_assert_int_eq(file(a, "next", "1\n"), 0);
	ck_assert_int_eq(file(a, "next", "x\n"), -1);
}
END_TEST

START_TEST(test_sequencer_opts)
{
	const enum gitseq_folder s = GITSEQ_SEQUENCER;

	ck_assert_int_eq(file(s, "opts", "[options]\n\tsignoff = true\n"
	    "\tstrategy = ort\n\tstrategy-option = theirs\n\tmainline = 1\n"),
	    0);
	ck_assert_int_eq(file(s, "opts", "[options]\n\tstrategy = evil\n"),
	    -1);
	ck_assert_int_eq(file(s, "opts", "[include]\n\tpath = /tmp/x\n"), -1);
	ck_assert_int_eq(file(s, "opts", "[core]\n\teditor = touch m\n"), -1);
	ck_assert_int_eq(file(s, "opts", "[options]\n\tgpg-sign = --x\n"), -1);
	ck_assert_int_eq(file(s, "opts", "[options]\n\tedit = \"a;b\"\n"), -1);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_int_eq(gitseq_name(GITSEQ_REBASE_MERGE, "message"), 0);
	ck_assert_int_eq(gitseq_name(GITSEQ_REBASE_MERGE, "git-rebase-todo"),
	    1);
	ck_assert_int_eq(gitseq_name(GITSEQ_REBASE_MERGE, "hooks"), -1);
	ck_assert_int_eq(gitseq_name(GITSEQ_REBASE_MERGE, "todo"), -1);
	ck_assert_int_eq(gitseq_name(GITSEQ_REBASE_APPLY, "0001"), 0);
	ck_assert_int_eq(gitseq_name(GITSEQ_REBASE_APPLY, "0001.lock"), -1);
	ck_assert_int_eq(gitseq_name(GITSEQ_REBASE_APPLY, "001"), -1);
	ck_assert_int_eq(gitseq_name(GITSEQ_SEQUENCER, "opts"), 1);
	ck_assert_int_eq(gitseq_name(GITSEQ_SEQUENCER, "git-rebase-todo"), -1);
	ck_assert_str_eq(gitseq_folder_name(GITSEQ_REBASE_APPLY),
	    "rebase-apply");
	ck_assert_str_eq(gitseq_required(GITSEQ_SEQUENCER)[0], "head");
}
END_TEST

/* Suite of the sequencer state's allow list. */
static Suite *
gitseq_suite(void)
{
	Suite *s = suite_create("gitseq");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_todo_without_exec);
	tcase_add_test(tc, test_todo_with_exec);
	tcase_add_test(tc, test_options_files);
	tcase_add_test(tc, test_sequencer_opts);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(gitseq_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
