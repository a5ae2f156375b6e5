/* gitconfig.c: the paths a git config's values name (see gitconfig.h). */
#include "policy/gitconfig.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy/path.h"
#include "policy/strv.h"

/* The data table: keys whose value is read as a path even without a '/',
 * and keys whose values are ref names only. '*' stands for a subsection
 * (any text, dots included). Every other key is decided on its value. */
static const struct {
	const char         *key;
	enum gitconfig_form form;
} gitconfig_keys[] = {
	{ "include.path",             GITCONFIG_FORM_INCLUDE }, /* read */
	{ "includeif.*.path",         GITCONFIG_FORM_INCLUDE }, /* read */
	{ "core.hookspath",           GITCONFIG_FORM_HOOKS },   /* run */
	{ "init.templatedir",         GITCONFIG_FORM_PATH },    /* hooks copied */
	{ "core.attributesfile",      GITCONFIG_FORM_PATH },    /* picks drivers */
	{ "core.excludesfile",        GITCONFIG_FORM_PATH },    /* read */
	{ "commit.template",          GITCONFIG_FORM_PATH },    /* read */
	{ "blame.ignorerevsfile",     GITCONFIG_FORM_PATH },    /* read */
	{ "gpg.ssh.allowedsignersfile", GITCONFIG_FORM_PATH },  /* read */
	{ "remote.*.fetch",           GITCONFIG_FORM_REF },     /* refspecs */
	{ "remote.*.push",            GITCONFIG_FORM_REF },     /* refspecs */
	{ "branch.*.merge",           GITCONFIG_FORM_REF },     /* a ref */
};

/* The hooks githooks(5) names. */
const char *const gitconfig_hook_names[] = {
	"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit",
	"pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit",
	"pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive",
	"update", "proc-receive", "post-receive", "post-update",
	"reference-transaction", "push-to-checkout", "pre-auto-gc",
	"post-rewrite", "sendemail-validate", "fsmonitor-watchman",
	"p4-changelist", "p4-prepare-changelist", "p4-post-changelist",
	"p4-pre-submit", "post-index-change", NULL
};

/* Does key match pattern (case-insensitive; '*' = one subsection)? */
static int
gitconfig_key_match(const char *pat, const char *key)
{
	const char *star = strchr(pat, '*'), *kdot;
	size_t pre, post, n = strlen(key);

	if (star == NULL)
		return strcasecmp(pat, key) == 0;
	pre = (size_t)(star - pat);
	post = strlen(star + 1);
	if (n < pre + post + 1 || strncasecmp(pat, key, pre) != 0 ||
	    strcasecmp(star + 1, key + n - post) != 0)
		return 0;
	kdot = key + pre;	/* the subsection: at least one byte */
	return kdot < key + n - post;
}

/* The form of a key. */
enum gitconfig_form
gitconfig_key_form(const char *key)
{
	size_t i;

	if (key == NULL)
		return GITCONFIG_FORM_ANY;
	for (i = 0; i < sizeof gitconfig_keys / sizeof gitconfig_keys[0]; i++)
		if (gitconfig_key_match(gitconfig_keys[i].key, key))
			return gitconfig_keys[i].form;
	return GITCONFIG_FORM_ANY;
}

/* The next entry of a listing. */
int
gitconfig_list_next(char *buf, size_t len, size_t *pos,
    struct gitconfig_entry *e)
{
	char *p, *end, *nl;

	if (*pos >= len)
		return 0;
	p = buf + *pos;
	if ((end = memchr(p, '\0', len - *pos)) == NULL)
		return -1;
	e->origin = p;
	p = end + 1;
	if (p >= buf + len || (end = memchr(p, '\0', (size_t)(buf + len -
	    p))) == NULL || end == p)
		return -1;
	e->key = p;
	e->value = NULL;
	if ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		*nl = '\0';
		e->value = nl + 1;
	}
	*pos = (size_t)(end + 1 - buf);
	return 1;
}

/* The file an origin names, or NULL. */
char *
gitconfig_origin_file(const struct gitconfig_where *w, const char *origin)
{
	if (origin == NULL || strncmp(origin, "file:", 5) != 0 ||
	    origin[5] == '\0')
		return NULL;
	if (origin[5] == '/')
		return path_resolve("/", origin + 5);
	return w->cwd != NULL && w->cwd[0] == '/' ?
	    path_resolve(w->cwd, origin + 5) : NULL;
}

/* Append the absolute path (normalised) unless there; -1 on ENOMEM or
 * past the bound. */
static int
gitconfig_add(char ***out, const char *path, sbox_error *err)
{
	char *p;

	if (path == NULL || path[0] != '/')
		return 0;
	if ((p = path_resolve("/", path)) == NULL)
		return 0;	/* not spellable: nothing to protect */
	if (strv_contains(*out, p)) {
		free(p);
		return 0;
	}
	if (strv_len(*out) >= GITCONFIG_PATHS_MAX) {
		free(p);
		return error_set(err, E_LIMIT, "the git config names more than "
		    "%d paths", GITCONFIG_PATHS_MAX);
	}
	return strv_push(out, p) < 0 ? error_nomem(err) : 0;
}

/* Add rel resolved against base (rel may be absolute). */
static int
gitconfig_add_at(char ***out, const char *base, const char *rel,
    sbox_error *err)
{
	char *p;
	int rc;

	if (rel[0] != '/' && (base == NULL || base[0] != '/'))
		return 0;
	if ((p = path_resolve(rel[0] == '/' ? "/" : base, rel)) == NULL)
		return 0;
	rc = gitconfig_add(out, p, err);
	free(p);
	return rc;
}

/* A leading `~/`, `$HOME/`, `$GIT_DIR/`, `$GIT_WORK_TREE/` or `$PWD/`
 * spelled out into buf; the value itself when nothing leads; NULL when it
 * names a folder this cannot know (`~user/`, another variable). */
static const char *
gitconfig_expand(const struct gitconfig_where *w, const char *v, char *buf,
    size_t len)
{
	static const char *const vars[] = { "HOME", "GIT_DIR",
	    "GIT_COMMON_DIR", "GIT_WORK_TREE", "PWD", NULL };
	const char *rest = NULL, *dir = NULL;
	size_t i, n;

	if (v[0] == '~') {
		if (v[1] != '\0' && v[1] != '/')
			return NULL;	/* ~user: not this user's */
		dir = w->home;
		rest = v + 1;
	} else if (v[0] == '$') {
		const char *name = v + 1 + (v[1] == '{');
		for (i = 0; vars[i] != NULL; i++) {
			n = strlen(vars[i]);
			if (strncmp(name, vars[i], n) != 0)
				continue;
			if (v[1] == '{' && name[n] != '}')
				continue;
			rest = name + n + (v[1] == '{');
			if (*rest != '\0' && *rest != '/')
				continue;
			dir = i == 0 ? w->home : i <= 2 ? w->gitdir :
			    w->top != NULL ? w->top : w->gitdir;
			break;
		}
		if (vars[i] == NULL)
			return NULL;
	} else
		return v;
	if (dir == NULL || (size_t)snprintf(buf, len, "%s%s", dir, rest) >=
	    len)
		return NULL;
	return buf;
}

/* One candidate word: a path when it is absolute, `~/...`, `$VAR/...` or
 * holds a '/'; URLs other than file:// are not. A relative one is taken
 * from the top, and from cwd too (a `cd` before it) when not NULL. */
static int
gitconfig_candidate(const struct gitconfig_where *w, const char *c,
    const char *cwd, char ***out, sbox_error *err)
{
	char buf[GITCONFIG_VALUE_MAX + 4096];
	const char *p;

	if (strncmp(c, "ext::", 5) == 0)
		c += 5;
	if (strncasecmp(c, "file://", 7) == 0)
		c += 7;
	else {
		for (p = c; isalnum((unsigned char)*p) || *p == '+' || *p == '-' ||
		    *p == '.'; p++)
			;
		if (p > c && strncmp(p, "://", 3) == 0)
			return 0;	/* a URL: not a file here */
	}
	if (c[0] == '\0' || (strchr(c, '/') == NULL && c[0] != '~'))
		return 0;
	if ((c = gitconfig_expand(w, c, buf, sizeof buf)) == NULL)
		return 0;
	if (c[0] == '/')
		return gitconfig_add(out, c, err);
	/* relative: git runs commands from the worktree's top (a bare
	 * repository's: its git folder) */
	if (cwd != NULL && gitconfig_add_at(out, cwd, c, err) < 0)
		return -1;
	return gitconfig_add_at(out, w->top != NULL ? w->top : w->gitdir, c,
	    err);
}

/* Programs whose first argument that is not an option is a script they
 * run, a file of any name (`!sh run.sh`: run.sh holds no '/'). */
static const char *const gitconfig_interpreters[] = {
	"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh",
	"busybox", "python", "python2", "python3", "perl", "ruby", "node",
	"nodejs", "deno", "bun", "php", "lua", "tclsh", "Rscript", "pwsh",
	"awk", "gawk", "source", ".", "exec", NULL
};

/* Split v into shell-like words in buf (NUL-separated): blanks and
 * ; | & ( ) < > ` separate, quotes group, a backslash escapes. cmd[i] is
 * set when word i starts a command (first, or after ; | & ( ` or a
 * newline). */
static size_t
gitconfig_words(const char *v, char *buf, size_t cap, const char **words,
    unsigned char *cmd, size_t max)
{
	size_t n = 0, o = 0;
	int inword = 0, next_cmd = 1;
	char q = 0;

	for (; *v != '\0' && o + 2 < cap; v++) {
		if (q == 0 && strchr(" \t\r\n;|&()<>`", *v) != NULL) {
			if (inword) {
				buf[o++] = '\0';
				inword = 0;
			}
			if (strchr("\n;|&(`", *v) != NULL)
				next_cmd = 1;
			continue;
		}
		if (!inword) {
			if (n == max)
				break;
			cmd[n] = (unsigned char)next_cmd;
			next_cmd = 0;
			words[n++] = buf + o;
			inword = 1;
		}
		if (q == 0 && (*v == '\'' || *v == '"'))
			q = *v;
		else if (q != 0 && *v == q)
			q = 0;
		else if (*v == '\\' && q != '\'' && v[1] != '\0')
			buf[o++] = *++v;
		else
			buf[o++] = *v;
	}
	buf[o] = '\0';
	return n;
}

/* Is word (a command word) an interpreter (by its last component)? */
static int
gitconfig_interpreter(const char *word)
{
	const char *base = strrchr(word, '/');
	size_t i;

	base = base != NULL ? base + 1 : word;
	for (i = 0; gitconfig_interpreters[i] != NULL; i++)
		if (strcmp(base, gitconfig_interpreters[i]) == 0)
			return 1;
	return 0;
}

/* Decide on the words of a value (a command line): each word, each part
 * after a '=', the script an interpreter runs; a quoted word holding a
 * command line (`sh -c '...'`) is decided the same way (depth: how deep
 * in quotes); after `cd DIR`, relative words are taken from DIR too. */
static int
gitconfig_value_words(const struct gitconfig_where *w, const char *v,
    const char *cwd0, int depth, char ***out, sbox_error *err)
{
	char buf[GITCONFIG_VALUE_MAX + 2], exp[GITCONFIG_VALUE_MAX + 4096];
	const char *words[GITCONFIG_WORDS_MAX], *eq, *d;
	const char *base = w->top != NULL ? w->top : w->gitdir;
	unsigned char cmd[GITCONFIG_WORDS_MAX];
	char *cwd = cwd0 != NULL ? strdup(cwd0) : NULL, *nc;
	size_t n, i;
	int script = 0, cd = 0, rc = -1;

	if (cwd0 != NULL && cwd == NULL)
		return error_nomem(err);
	n = gitconfig_words(v, buf, sizeof buf, words, cmd,
	    GITCONFIG_WORDS_MAX);
	for (i = 0; i < n; i++) {
		if (cmd[i])
			script = cd = 0;
		if (gitconfig_candidate(w, words[i], cwd, out, err) < 0)
			goto out;
		/* NAME=path, --flag=path */
		for (eq = strchr(words[i], '='); eq != NULL;
		    eq = strchr(eq + 1, '='))
			if (gitconfig_candidate(w, eq + 1, cwd, out, err) < 0)
				goto out;
		/* a command line in quotes */
		if (depth < 3 && strpbrk(words[i], " \t\n;|&") != NULL &&
		    gitconfig_value_words(w, words[i], cwd, depth + 1, out,
		    err) < 0)
			goto out;
		if (cmd[i] && (strcmp(words[i], "env") == 0 ||
		    strchr(words[i], '=') != NULL)) {
			/* env, NAME=value: the command comes next */
			if (i + 1 < n)
				cmd[i + 1] = 1;
			continue;
		}
		if (cmd[i]) {
			script = gitconfig_interpreter(words[i]);
			cd = strcmp(words[i], "cd") == 0 ||
			    strcmp(words[i], "pushd") == 0;
			continue;
		}
		if (cd && words[i][0] != '-') {
			cd = 0;
			if ((d = gitconfig_expand(w, words[i], exp, sizeof exp)) ==
			    NULL)
				continue;	/* a folder this cannot know */
			nc = path_resolve(d[0] == '/' ? "/" : cwd != NULL ? cwd :
			    base, d);
			if (nc == NULL && base != NULL && base[0] == '/')
				goto nomem;
			free(cwd);
			cwd = nc;
		} else if (script && words[i][0] != '-') {
			/* the script an interpreter runs, whatever its name */
			script = 0;
			if (strchr(words[i], '/') != NULL || words[i][0] == '$' ||
			    words[i][0] == '~')
				continue;
			if ((cwd != NULL && gitconfig_add_at(out, cwd, words[i],
			    err) < 0) || gitconfig_add_at(out, base, words[i],
			    err) < 0)
				goto out;
		} else if (script && (strcmp(words[i], "-c") == 0 ||
		    strcmp(words[i], "-e") == 0 || strcmp(words[i], "-m") == 0))
			script = 0;	/* code or a module follows, not a file */
	}
	rc = 0;
out:
	free(cwd);
	return rc;
nomem:
	free(cwd);
	return error_nomem(err);
}

/* Add a folder (or file) value read from top (a bare repository's: its
 * git folder); hooks also name by name, from the git folder too. */
static int
gitconfig_value_dir(const struct gitconfig_where *w, const char *v,
    int hooks, char ***out, sbox_error *err)
{
	const char *bases[2] = { w->top != NULL ? w->top : w->gitdir,
	    hooks && w->top != NULL ? w->gitdir : NULL };
	char buf[GITCONFIG_VALUE_MAX + 4096], *dir;
	size_t b, i;

	if ((v = gitconfig_expand(w, v, buf, sizeof buf)) == NULL ||
	    v[0] == '\0')
		return 0;
	for (b = 0; b < 2; b++) {
		if (bases[b] == NULL && v[0] != '/')
			continue;
		if (gitconfig_add_at(out, bases[b], v, err) < 0)
			return -1;
		if (!hooks || (v[0] != '/' && bases[b] == NULL))
			continue;
		dir = path_resolve(v[0] == '/' ? "/" : bases[b], v);
		for (i = 0; dir != NULL && gitconfig_hook_names[i] != NULL; i++)
			if (gitconfig_add_at(out, dir, gitconfig_hook_names[i],
			    err) < 0) {
				free(dir);
				return -1;
			}
		free(dir);
		if (v[0] == '/')
			break;
	}
	return 0;
}

/* The paths the value of key names. */
int
gitconfig_value_paths(const struct gitconfig_where *w, const char *key,
    const char *value, const char *origin_file, char ***out,
    sbox_error *err)
{
	enum gitconfig_form form = gitconfig_key_form(key);
	char v[GITCONFIG_VALUE_MAX + 1], buf[GITCONFIG_VALUE_MAX + 4096];
	char *dir, *slash;
	const char *p;
	size_t n;
	int rc;

	if (value == NULL || form == GITCONFIG_FORM_REF)
		return 0;
	n = strlen(value);
	if (n > GITCONFIG_VALUE_MAX)
		n = GITCONFIG_VALUE_MAX;
	memcpy(v, value, n);
	v[n] = '\0';
	switch (form) {
	case GITCONFIG_FORM_INCLUDE:
		p = v;
		if (strncmp(p, ":(optional)", 11) == 0)
			p += 11;
		if ((p = gitconfig_expand(w, p, buf, sizeof buf)) == NULL ||
		    p[0] == '\0')
			return 0;
		if (p[0] == '/')
			return gitconfig_add(out, p, err);
		if (origin_file == NULL || (dir = strdup(origin_file)) == NULL)
			return origin_file == NULL ? 0 : error_nomem(err);
		if ((slash = strrchr(dir, '/')) != NULL)
			*(slash == dir ? slash + 1 : slash) = '\0';
		rc = gitconfig_add_at(out, dir, p, err);
		free(dir);
		return rc;
	case GITCONFIG_FORM_HOOKS:
	case GITCONFIG_FORM_PATH:
		return gitconfig_value_dir(w, v, form == GITCONFIG_FORM_HOOKS,
		    out, err);
	default:
		break;
	}
	/* the whole value (a path with blanks), then each word */
	if (v[0] != '!' && strpbrk(v, " \t") != NULL &&
	    gitconfig_candidate(w, v, NULL, out, err) < 0)
		return -1;
	return gitconfig_value_words(w, v[0] == '!' ? v + 1 : v, NULL, 0, out,
	    err);
}

/* Every path a listing names. */
int
gitconfig_list_paths(const struct gitconfig_where *w, char *buf, size_t len,
    char ***paths, char ***files, char ***includes, sbox_error *err)
{
	struct gitconfig_entry e;
	char **inc = NULL;
	char *file;
	size_t pos = 0, i;
	int rc;

	while ((rc = gitconfig_list_next(buf, len, &pos, &e)) == 1) {
		file = gitconfig_origin_file(w, e.origin);
		if (file != NULL && ((files != NULL &&
		    strv_add_unique(files, file) < 0) ||
		    gitconfig_add(paths, file, err) < 0)) {
			free(file);
			strv_free(inc);
			return error_isset(err) ? -1 : error_nomem(err);
		}
		if (gitconfig_key_form(e.key) == GITCONFIG_FORM_INCLUDE &&
		    includes != NULL) {
			strv_free(inc);
			inc = NULL;
			if (gitconfig_value_paths(w, e.key, e.value, file, &inc,
			    err) < 0) {
				free(file);
				return -1;
			}
			for (i = 0; inc != NULL && inc[i] != NULL; i++)
				if (strv_add_unique(includes, inc[i]) < 0) {
					free(file);
					strv_free(inc);
					return error_nomem(err);
				}
		}
		rc = gitconfig_value_paths(w, e.key, e.value, file, paths, err);
		free(file);
		if (rc < 0) {
			strv_free(inc);
			return -1;
		}
	}
	strv_free(inc);
	if (rc < 0)
		return error_set(err, E_CONFIG, "git config's listing is "
		    "malformed");
	return 0;
}
