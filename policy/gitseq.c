/* gitseq.c: the allow list of git's sequencer state (see gitseq.h). The
 * names and forms are what git (2.3x) writes in builtin/rebase.c,
 * sequencer.c and builtin/am.c; whatever else is found is not safe. */
#include "policy/gitseq.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum gitseq_form {
	F_DATA,      /* messages, patches, lists of commits: never obeyed */
	F_TODO,      /* a rebase's todo list: no exec line */
	F_PICKS,     /* the sequencer's todo list: pick and revert only */
	F_OID,       /* one object name */
	F_NUMBER,    /* a count */
	F_FLAG,      /* only its existence counts */
	F_REFNAME,   /* head-name: a ref or "detached HEAD" */
	F_STRATEGY,  /* one of git's own merge strategies */
	F_XOPTS,     /* the strategy's -X options */
	F_GPG,       /* -S and a key id */
	F_APPLY,     /* options am passes to git apply */
	F_AUTHOR,    /* GIT_AUTHOR_NAME='...' lines (parsed by git, no shell) */
	F_KEEP,      /* am's keep: t, b or f */
	F_OPTS,      /* the sequencer's opts (git config format) */
	F_REFLIST    /* refs-to-update: ref names and object names, a line
	                each (the refs git updates at the end) */
};

/* the chars of a key id, and of a plain option's value */
#define GITSEQ_ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" \
	"0123456789"
#define GITSEQ_KEYID GITSEQ_ALNUM "@._+<>"
#define GITSEQ_WORD  GITSEQ_ALNUM "=_.,/%+-"

#define IN_M (1u << GITSEQ_REBASE_MERGE)
#define IN_A (1u << GITSEQ_REBASE_APPLY)
#define IN_S (1u << GITSEQ_SEQUENCER)

static const struct gitseq_entry {
	const char      *name;
	unsigned         in;
	enum gitseq_form form;
} gitseq_table[] = {
	{ "git-rebase-todo",        IN_M,        F_TODO },
	{ "git-rebase-todo.backup", IN_M,        F_TODO },
	{ "done",                   IN_M,        F_TODO },
	{ "head-name",              IN_M | IN_A, F_REFNAME },
	{ "onto",                   IN_M | IN_A, F_OID },
	{ "orig-head",              IN_M | IN_A, F_OID },
	{ "autostash",              IN_M | IN_A, F_OID },
	{ "amend",                  IN_M,        F_OID },
	{ "stopped-sha",            IN_M,        F_OID },
	{ "squash-onto",            IN_M,        F_OID },
	{ "end",                    IN_M,        F_NUMBER },
	{ "msgnum",                 IN_M,        F_NUMBER },
	{ "strategy",               IN_M,        F_STRATEGY },
	{ "strategy_opts",          IN_M,        F_XOPTS },
	{ "gpg_sign_opt",           IN_M,        F_GPG },
	{ "allow_rerere_autoupdate", IN_M,       F_FLAG },
	{ "signoff",                IN_M,        F_FLAG },
	{ "quiet",                  IN_M | IN_A, F_FLAG },
	{ "verbose",                IN_M | IN_A, F_FLAG },
	{ "interactive",            IN_M,        F_FLAG },
	{ "reschedule-failed-exec", IN_M,        F_FLAG },
	{ "no-reschedule-failed-exec", IN_M,     F_FLAG },
	{ "drop_redundant_commits", IN_M,        F_FLAG },
	{ "keep_redundant_commits", IN_M,        F_FLAG },
	{ "cdate_is_adate",         IN_M,        F_FLAG },
	{ "ignore_date",            IN_M,        F_FLAG },
	{ "author-script",          IN_M | IN_A, F_AUTHOR },
	{ "message",                IN_M,        F_DATA },
	{ "message-squash",         IN_M,        F_DATA },
	{ "message-fixup",          IN_M,        F_DATA },
	{ "current-fixups",         IN_M,        F_DATA },
	{ "patch",                  IN_M | IN_A, F_DATA },
	{ "rewritten-list",         IN_M,        F_DATA },
	{ "rewritten-pending",      IN_M,        F_DATA },
	{ "dropped",                IN_M,        F_DATA },
	{ "refs-to-update",         IN_M,        F_REFLIST },
	{ "next",                   IN_A,        F_NUMBER },
	{ "last",                   IN_A,        F_NUMBER },
	{ "info",                   IN_A,        F_DATA },
	{ "msg",                    IN_A,        F_DATA },
	{ "final-commit",           IN_A,        F_DATA },
	{ "original-commit",        IN_A,        F_OID },
	{ "abort-safety",           IN_A | IN_S, F_OID },
	{ "patch-merge-tmp-index",  IN_A,        F_DATA },
	{ "keep",                   IN_A,        F_KEEP },
	{ "apply-opt",              IN_A,        F_APPLY },
	{ "threeway",               IN_A,        F_FLAG },
	{ "sign",                   IN_A,        F_FLAG },
	{ "utf8",                   IN_A,        F_FLAG },
	{ "messageid",              IN_A,        F_FLAG },
	{ "scissors",               IN_A,        F_FLAG },
	{ "quoted-cr",              IN_A,        F_FLAG },
	{ "rerere-autoupdate",      IN_A,        F_FLAG },
	{ "rebasing",               IN_A,        F_FLAG },
	{ "applying",               IN_A,        F_FLAG },
	{ "dirtyindex",             IN_A,        F_FLAG },
	{ "head",                   IN_S,        F_OID },
	{ "todo",                   IN_S,        F_PICKS },
	{ "opts",                   IN_S,        F_OPTS },
	{ NULL, 0, F_DATA }
};

/* The folder's name in a git folder. */
const char *
gitseq_folder_name(enum gitseq_folder f)
{
	static const char *const names[GITSEQ_FOLDERS] = { "rebase-merge",
	    "rebase-apply", "sequencer" };

	return (unsigned)f < GITSEQ_FOLDERS ? names[f] : NULL;
}

/* The names without which folder f is not a state git leaves. */
const char *const *
gitseq_required(enum gitseq_folder f)
{
	static const char *const m[] = { "head-name", "onto", NULL };
	static const char *const a[] = { "next", "last", NULL };
	static const char *const s[] = { "head", "todo", NULL };

	return f == GITSEQ_REBASE_MERGE ? m : f == GITSEQ_REBASE_APPLY ? a : s;
}

/* The table's entry for name in folder f, or NULL. */
static const struct gitseq_entry *
gitseq_find(enum gitseq_folder f, const char *name)
{
	size_t i;

	for (i = 0; gitseq_table[i].name != NULL; i++)
		if ((gitseq_table[i].in & (1u << f)) &&
		    strcmp(gitseq_table[i].name, name) == 0)
			return &gitseq_table[i];
	return NULL;
}

/* Is name am's numbered patch (0001, 0002, ...: four digits or more)? */
static int
gitseq_patch_number(const char *name)
{
	size_t n = strspn(name, "0123456789");

	return n >= 4 && n <= 9 && name[n] == '\0';
}

/* What a file of folder f is: -1 unknown, 0 data, 1 decided. */
int
gitseq_name(enum gitseq_folder f, const char *name)
{
	const struct gitseq_entry *e;

	if ((unsigned)f >= GITSEQ_FOLDERS || name == NULL)
		return -1;
	if (f == GITSEQ_REBASE_APPLY && gitseq_patch_number(name))
		return 0;
	if ((e = gitseq_find(f, name)) == NULL)
		return -1;
	return e->form == F_DATA ? 0 : 1;
}

/* Fill why and return -1. */
static int
gitseq_no(char *why, size_t whylen, const char *what, const char *detail)
{
	if (why != NULL && whylen > 0)
		snprintf(why, whylen, "%s%s%.80s%s", what, detail ? " (" : "",
		    detail ? detail : "", detail ? ")" : "");
	return -1;
}

/* Copy one line (at most cap - 1 bytes of it) for a reason. */
static const char *
gitseq_line(const char *l, size_t n, char *out, size_t cap)
{
	size_t i, k = 0;

	for (i = 0; i < n && k + 1 < cap; i++)
		out[k++] = isprint((unsigned char)l[i]) ? l[i] : '?';
	out[k] = '\0';
	return out;
}

/* Is the content (a trailing newline aside) made of chars of set only,
 * and at least min bytes long? */
static int
gitseq_only(const char *buf, size_t n, const char *set, size_t min)
{
	size_t i;

	while (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n < min)
		return 0;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0' || strchr(set, buf[i]) == NULL)
			return 0;
	return 1;
}

/* One todo line's command word (after git's own leading blanks): is it
 * one that runs nothing? picks: only pick and revert (the sequencer). */
static int
gitseq_todo_word(const char *w, size_t n, int picks)
{
	static const char *const rebase[] = { "pick", "p", "reword", "r",
	    "edit", "e", "squash", "s", "fixup", "f", "drop", "d", "break",
	    "b", "label", "l", "reset", "t", "merge", "m", "update-ref", "u",
	    "noop", NULL };
	static const char *const seq[] = { "pick", "p", "revert", NULL };
	const char *const *list = picks ? seq : rebase;
	size_t i;

	for (i = 0; list[i] != NULL; i++)
		if (strlen(list[i]) == n && strncmp(w, list[i], n) == 0)
			return 1;
	return 0;
}

/* A todo list: every line a comment, empty, or a command that runs no
 * program (exec/x never; git's word ends at a blank, and the word taken
 * here ends at any of git's blanks or more, so it is never shorter). */
static int
gitseq_todo(const char *buf, size_t n, int picks, char *why, size_t whylen)
{
	const char *l = buf, *e, *end = buf + n, *w;
	char shown[96];
	size_t wn;

	if (memchr(buf, '\0', n) != NULL)
		return gitseq_no(why, whylen, "a todo list holds a NUL byte",
		    NULL);
	for (; l < end; l = e + 1) {
		if ((e = memchr(l, '\n', (size_t)(end - l))) == NULL)
			e = end;
		w = l;
		while (w < e && (*w == ' ' || *w == '\t'))
			w++;
		if (w == e || *w == '#' || *w == '\r')
			continue;
		for (wn = 0; w + wn < e && !isspace((unsigned char)w[wn]); wn++)
			;
		if (!gitseq_todo_word(w, wn, picks))
			return gitseq_no(why, whylen, wn == 4 && strncmp(w,
			    "exec", 4) == 0 ? "an exec line in the todo list" :
			    wn == 1 && *w == 'x' ? "an exec (x) line in the todo "
			    "list" : "a todo line that is not a plain pick",
			    gitseq_line(l, (size_t)(e - l), shown, sizeof shown));
	}
	return 0;
}

/* The strategy: one of git's own (any other is a program git-merge-NAME
 * that host git would look up and run). */
static int
gitseq_strategy(const char *buf, size_t n)
{
	static const char *const own[] = { "ort", "recursive", "resolve",
	    "octopus", "ours", "subtree", NULL };
	size_t i;

	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	for (i = 0; own[i] != NULL; i++)
		if (strlen(own[i]) == n && strncmp(buf, own[i], n) == 0)
			return 1;
	return 0;
}

/* A -S option: -S, or -S and a key id (not an option of its own). */
static int
gitseq_gpg(const char *buf, size_t n)
{
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n < 2 || buf[0] != '-' || buf[1] != 'S')
		return 0;
	if (n == 2)
		return 1;
	return buf[2] != '-' && gitseq_only(buf + 2, n - 2, GITSEQ_KEYID, 1);
}

/* One option am passes to git apply: the harmless few. */
static int
gitseq_apply_word(const char *w, size_t n)
{
	static const char *const plain[] = { "--ignore-space-change",
	    "--ignore-whitespace", "--reject", "--quiet", "-q", NULL };
	static const char *const ws[] = { "nowarn", "warn", "fix", "strip",
	    "error", "error-all", NULL };
	size_t i;

	for (i = 0; plain[i] != NULL; i++)
		if (strlen(plain[i]) == n && strncmp(w, plain[i], n) == 0)
			return 1;
	if (n > 2 && (strncmp(w, "-p", 2) == 0 || strncmp(w, "-C", 2) == 0))
		return strspn(w + 2, "0123456789") == n - 2;
	if (n > 13 && strncmp(w, "--whitespace=", 13) == 0)
		for (i = 0; ws[i] != NULL; i++)
			if (strlen(ws[i]) == n - 13 && strncmp(w + 13, ws[i],
			    n - 13) == 0)
				return 1;
	return 0;
}

/* am's apply-opt: ' 'word'' words (sq-quoted, none holding a quote). */
static int
gitseq_apply(const char *buf, size_t n, char *why, size_t whylen)
{
	const char *p = buf, *end = buf + n, *q;
	char shown[96];

	while (p < end) {
		if (*p == ' ' || *p == '\n') {
			p++;
			continue;
		}
		if (*p != '\'' || (q = memchr(p + 1, '\'', (size_t)(end - p -
		    1))) == NULL || (q + 1 < end && q[1] != ' ' && q[1] !=
		    '\n') || !gitseq_apply_word(p + 1, (size_t)(q - p - 1)))
			return gitseq_no(why, whylen, "options for git apply "
			    "other than whitespace, -p and -C", gitseq_line(buf,
			    n, shown, sizeof shown));
		p = q + 1;
	}
	return 0;
}

/* author-script: GIT_AUTHOR_NAME/EMAIL/DATE='...' lines only. */
static int
gitseq_author(const char *buf, size_t n)
{
	static const char *const keys[] = { "GIT_AUTHOR_NAME='",
	    "GIT_AUTHOR_EMAIL='", "GIT_AUTHOR_DATE='", NULL };
	const char *l = buf, *e, *end = buf + n;
	size_t i;

	if (memchr(buf, '\0', n) != NULL)
		return 0;
	for (; l < end; l = e + 1) {
		if ((e = memchr(l, '\n', (size_t)(end - l))) == NULL)
			e = end;
		if (e == l)
			continue;
		for (i = 0; keys[i] != NULL; i++)
			if ((size_t)(e - l) > strlen(keys[i]) && strncmp(l,
			    keys[i], strlen(keys[i])) == 0)
				break;
		if (keys[i] == NULL)
			return 0;
	}
	return 1;
}

/* The sequencer's opts: an [options] section of known keys, values of
 * plain words (strategy and gpg-sign as above). */
static int
gitseq_opts(const char *buf, size_t n, char *why, size_t whylen)
{
	static const char *const keys[] = { "no-commit", "edit",
	    "allow-empty", "allow-empty-message", "keep-redundant-commits",
	    "drop-redundant-commits", "signoff", "record-origin", "allow-ff",
	    "mainline", "strategy", "strategy-option", "gpg-sign",
	    "allow-rerere-auto", "default-msg-cleanup", "committer-date-is-"
	    "author-date", "ignore-date", NULL };
	const char *l = buf, *e, *end = buf + n, *k, *v, *ke;
	char shown[96], val[128];
	size_t i, vn;

	if (memchr(buf, '\0', n) != NULL)
		return gitseq_no(why, whylen, "the options hold a NUL byte",
		    NULL);
	for (; l < end; l = e + 1) {
		if ((e = memchr(l, '\n', (size_t)(end - l))) == NULL)
			e = end;
		for (k = l; k < e && (*k == ' ' || *k == '\t'); k++)
			;
		if (k == e)
			continue;
		if ((size_t)(e - k) == 9 && strncmp(k, "[options]", 9) == 0)
			continue;
		for (ke = k; ke < e && (isalnum((unsigned char)*ke) ||
		    *ke == '-'); ke++)
			;
		for (v = ke; v < e && (*v == ' ' || *v == '\t'); v++)
			;
		for (i = 0; keys[i] != NULL; i++)
			if (strlen(keys[i]) == (size_t)(ke - k) &&
			    strncmp(k, keys[i], (size_t)(ke - k)) == 0)
				break;
		if (keys[i] == NULL || v == e || *v != '=')
			return gitseq_no(why, whylen, "a sequencer option that "
			    "is not one of cherry-pick's own", gitseq_line(l,
			    (size_t)(e - l), shown, sizeof shown));
		for (v++; v < e && (*v == ' ' || *v == '\t'); v++)
			;
		vn = (size_t)(e - v);
		while (vn > 0 && (v[vn - 1] == ' ' || v[vn - 1] == '\r'))
			vn--;
		if (vn >= sizeof val)
			return gitseq_no(why, whylen, "a sequencer option's "
			    "value is too long", NULL);
		memcpy(val, v, vn);
		val[vn] = '\0';
		if (strcmp(keys[i], "strategy") == 0 ? !gitseq_strategy(val,
		    vn) : strcmp(keys[i], "gpg-sign") == 0 ? vn > 0 &&
		    (val[0] == '-' || !gitseq_only(val, vn, GITSEQ_KEYID, 1)) :
		    !gitseq_only(val, vn, GITSEQ_WORD, 0))
			return gitseq_no(why, whylen, strcmp(keys[i],
			    "strategy") == 0 ? "a merge strategy that is not "
			    "one of git's own (host git would run "
			    "git-merge-NAME)" : "a sequencer option of an "
			    "unexpected form", gitseq_line(l, (size_t)(e - l),
			    shown, sizeof shown));
	}
	return 0;
}

/* refs-to-update: each line a ref below refs/ or an object name. */
static int
gitseq_reflist(const char *buf, size_t n, char *why, size_t whylen)
{
	const char *l = buf, *e, *end = buf + n;
	char shown[96];
	size_t k;

	if (memchr(buf, '\0', n) != NULL)
		return gitseq_no(why, whylen, "refs-to-update holds a NUL byte",
		    NULL);
	for (; l < end; l = e + 1) {
		if ((e = memchr(l, '\n', (size_t)(end - l))) == NULL)
			e = end;
		k = (size_t)(e - l);
		if (k == 0 || (k >= 4 && strspn(l, "0123456789abcdef") == k) ||
		    (k > 5 && strncmp(l, "refs/", 5) == 0 && strspn(l,
		    GITSEQ_ALNUM "/._-+@") == k))
			continue;
		return gitseq_no(why, whylen, "refs-to-update names something "
		    "that is not a ref below refs/", gitseq_line(l, k, shown,
		    sizeof shown));
	}
	return 0;
}

/* Decide the content of a file gitseq_name said 1 for. */
int
gitseq_file(enum gitseq_folder f, const char *name, const char *buf,
    size_t n, char *why, size_t whylen)
{
	static const char hex[] = "0123456789abcdef";
	const struct gitseq_entry *e = gitseq_find(f, name);
	char shown[96];

	if (e == NULL)
		return gitseq_no(why, whylen, "a name git does not write there",
		    name);
	switch (e->form) {
	case F_DATA:
		return 0;
	case F_TODO:
	case F_PICKS:
		return gitseq_todo(buf, n, e->form == F_PICKS, why, whylen);
	case F_OID:
		if (gitseq_only(buf, n, hex, 4))
			return 0;
		return gitseq_no(why, whylen, "not an object name", name);
	case F_NUMBER:
		if (gitseq_only(buf, n, "0123456789", 1))
			return 0;
		return gitseq_no(why, whylen, "not a number", name);
	case F_FLAG:
		if (n <= 64 && memchr(buf, '\0', n) == NULL)
			return 0;
		return gitseq_no(why, whylen, "a flag file of an unexpected "
		    "size", name);
	case F_REFNAME:
		if (strncmp(buf, "detached HEAD", n > 13 ? 13 : n) == 0 &&
		    (n == 13 || (n == 14 && buf[13] == '\n')))
			return 0;
		if (n > 5 && strncmp(buf, "refs/", 5) == 0 && gitseq_only(buf,
		    n, GITSEQ_ALNUM "/._-+@", 6))
			return 0;
		return gitseq_no(why, whylen, "not a branch name", gitseq_line(
		    buf, n, shown, sizeof shown));
	case F_STRATEGY:
		if (gitseq_strategy(buf, n))
			return 0;
		return gitseq_no(why, whylen, "a merge strategy that is not one "
		    "of git's own (host git would run git-merge-NAME)",
		    gitseq_line(buf, n, shown, sizeof shown));
	case F_XOPTS:
		if (gitseq_only(buf, n, GITSEQ_WORD "' ", 0))
			return 0;
		return gitseq_no(why, whylen, "merge strategy options of an "
		    "unexpected form", gitseq_line(buf, n, shown, sizeof shown));
	case F_GPG:
		if (gitseq_gpg(buf, n))
			return 0;
		return gitseq_no(why, whylen, "a signing option that is not -S "
		    "and a key id", gitseq_line(buf, n, shown, sizeof shown));
	case F_APPLY:
		return gitseq_apply(buf, n, why, whylen);
	case F_AUTHOR:
		if (gitseq_author(buf, n))
			return 0;
		return gitseq_no(why, whylen, "an author-script that is not "
		    "GIT_AUTHOR_ lines", NULL);
	case F_KEEP:
		if (gitseq_only(buf, n, "tbf", 1) && (n == 1 || (n == 2 &&
		    buf[1] == '\n')))
			return 0;
		return gitseq_no(why, whylen, "am's keep of an unexpected form",
		    NULL);
	case F_OPTS:
		return gitseq_opts(buf, n, why, whylen);
	case F_REFLIST:
		return gitseq_reflist(buf, n, why, whylen);
	}
	return gitseq_no(why, whylen, "a file of an unknown form", name);
}
