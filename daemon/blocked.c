/* blocked.c: finding the files a command was refused in its error output,
 * and naming the plan rule that refused each one. */
#include "daemon/blocked.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/plan.h"
#include "policy/policy.h"

/* Error texts tools print, and the errno each one stands for. */
static const struct {
	const char *text;
	int errnum;
} blocked_errors[] = {
	{ "Read-only file system", EROFS },
	{ "read-only file system", EROFS },
	{ "EROFS", EROFS },
	{ "Errno 30", EROFS },
	{ "Permission denied", EACCES },
	{ "permission denied", EACCES },
	{ "EACCES", EACCES },
	{ "Errno 13", EACCES },
	{ "Operation not permitted", EPERM },
	{ "EPERM", EPERM },
	{ "No such file or directory", ENOENT },
	{ "ENOENT", ENOENT },
	{ "Errno 2]", ENOENT },
	{ "Device or resource busy", EBUSY },
	{ "EBUSY", EBUSY },
};

/* Start with nothing refused. */
void
blocked_init(struct blocked *b)
{
	memset(b, 0, sizeof *b);
	b->files = json_array();
}

/* Release what was collected. */
void
blocked_free(struct blocked *b)
{
	json_decref(b->files);
	b->files = NULL;
}

/* Make path absolute against cwd and fold ".", ".." and "//". */
static char *
blocked_normalise(const char *path, const char *cwd)
{
	char *joined, *out, *seg, *save;
	size_t n;

	if (path[0] == '/')
		joined = strdup(path);
	else if (asprintf(&joined, "%s/%s", cwd ? cwd : "/", path) == -1)
		joined = NULL;
	if (joined == NULL)
		return NULL;
	if ((out = calloc(1, strlen(joined) + 2)) == NULL) {
		free(joined);
		return NULL;
	}
	for (seg = strtok_r(joined, "/", &save); seg != NULL;
	    seg = strtok_r(NULL, "/", &save)) {
		if (strcmp(seg, ".") == 0)
			continue;
		if (strcmp(seg, "..") == 0) {
			char *slash = strrchr(out, '/');
			if (slash != NULL)
				*slash = '\0';
			continue;
		}
		n = strlen(out);
		out[n] = '/';
		strcpy(out + n + 1, seg);
	}
	if (out[0] == '\0')
		strcpy(out, "/");
	free(joined);
	return out;
}

/* Explain one refused path, or NULL when the plan does not explain it. */
char *
blocked_explain(const struct plan *plan, const char *path, const char *cwd,
    int errnum, int writing, const char **op, const char **rule)
{
	const struct plan_path_rule *r;
	char *abs, *msg = NULL;
	const char *shown, *verb;
	size_t plen;

	if (plan == NULL || (abs = blocked_normalise(path, cwd)) == NULL)
		return NULL;
	r = plan_explain(plan, abs);
	if (r == NULL || r->access == PLAN_ACCESS_RW) {
		free(abs);
		return NULL;
	}
	/* A hidden path answers "not found" or "denied"; a read-only one
	 * answers "read-only" (or "busy" for a renamed mount) to a write and
	 * never refuses a read: in a tool's output "denied" there is the
	 * file's own permissions (e.g. /etc/shadow), not the sandbox. */
	if (r->access == PLAN_ACCESS_HIDDEN && errnum == EROFS) {
		free(abs);
		return NULL;
	}
	if (r->access == PLAN_ACCESS_RO && (errnum == ENOENT || writing == 0 ||
	    (writing < 0 && errnum != EROFS && errnum != EBUSY))) {
		free(abs);
		return NULL;
	}
	if (writing < 0)
		verb = r->access == PLAN_ACCESS_HIDDEN ? "read" : "write";
	else
		verb = writing ? "write" : "read";
	shown = abs;
	plen = plan->project ? strlen(plan->project) : 0;
	if (plen > 0 && strncmp(abs, plan->project, plen) == 0 && abs[plen] == '/')
		shown = abs + plen + 1;
	if (asprintf(&msg, "%s %s refused: %s", strcmp(verb, "read") == 0 ?
	    "read of" : "write to", shown, r->rule) == -1)
		msg = NULL;
	if (op)
		*op = verb;
	if (rule)
		*rule = r->rule;
	free(abs);
	return msg;
}

/* Add one explained refusal unless it is there already. */
static void
blocked_add(struct blocked *b, const char *path, const char *cwd,
    const struct plan *plan, int errnum)
{
	const char *op = NULL, *rule = NULL;
	char *msg, *abs;
	size_t i;
	json_t *f;

	if (json_array_size(b->files) >= BLOCKED_MAX_FILES)
		return;
	if ((msg = blocked_explain(plan, path, cwd, errnum, -1, &op,
	    &rule)) == NULL)
		return;
	if (strcmp(op, "read") != 0) {
		/* writes are reported exactly by the file guard, never
		 * guessed from a program's words */
		free(msg);
		return;
	}
	json_array_foreach(b->files, i, f) {
		if (strcmp(json_string_value(json_object_get(f, "message")),
		    msg) == 0) {
			free(msg);
			return;
		}
	}
	/* the path as every answer gives it: absolute (the message shows it
	 * relative to the project) */
	abs = blocked_normalise(path, cwd);
	json_array_append_new(b->files, json_pack("{s:s, s:s, s:s, s:s}",
	    "path", abs ? abs : path, "op", op, "rule", rule, "message", msg));
	free(abs);
	free(msg);
}

/* Try each path-looking token of an error line. */
static void
blocked_scan_line(struct blocked *b, char *line, const char *cwd,
    const struct plan *plan)
{
	char *p, *end, *tok;
	size_t i;
	int errnum = 0;

	for (i = 0; i < sizeof blocked_errors / sizeof blocked_errors[0]; i++) {
		if (strstr(line, blocked_errors[i].text) != NULL) {
			errnum = blocked_errors[i].errnum;
			break;
		}
	}
	if (errnum == 0)
		return;
	/* Quoted paths: '...', "...", `...' */
	for (p = line; *p != '\0'; p++) {
		char close;
		if (*p == '\'' || *p == '"')
			close = *p;
		else if (*p == '`')
			close = '\'';
		else
			continue;
		end = strchr(p + 1, close);
		if (end == NULL)
			break;
		*end = '\0';
		if (end > p + 1 && strchr(p + 1, ' ') == NULL)
			blocked_add(b, p + 1, cwd, plan, errnum);
		*end = close;
		p = end;
	}
	/* Unquoted paths: "bash: PATH: Read-only file system", "open 'x'",
	 * "lock config file .git/config: ..." */
	for (tok = line; *tok != '\0'; tok = end) {
		while (*tok == ' ' || *tok == '\t' || *tok == ',')
			tok++;
		end = tok + strcspn(tok, " \t,");
		if (end == tok)
			break;
		char save = *end;
		*end = '\0';
		size_t n = strlen(tok);
		while (n > 0 && (tok[n - 1] == ':' || tok[n - 1] == '\'' ||
		    tok[n - 1] == '"'))
			tok[--n] = '\0';
		if (n > 0 && (strchr(tok, '/') != NULL || tok[0] == '.') &&
		    tok[0] != '\'' && tok[0] != '"' && tok[0] != '`' &&
		    tok[0] != '[')
			blocked_add(b, tok, cwd, plan, errnum);
		*end = save;
	}
}

/* Scan a chunk of a command's stderr. */
void
blocked_feed(struct blocked *b, const char *data, size_t n, const char *cwd,
    const struct plan *plan)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (data[i] == '\n') {
			if (!b->overlong) {
				b->line[b->len] = '\0';
				blocked_scan_line(b, b->line, cwd, plan);
			}
			b->len = 0;
			b->overlong = 0;
			continue;
		}
		if (b->len + 1 >= sizeof b->line) {
			b->overlong = 1;
			continue;
		}
		b->line[b->len++] = data[i];
	}
}

/* Scan what is left in the partial line. */
void
blocked_finish(struct blocked *b, const char *cwd, const struct plan *plan)
{
	if (b->len > 0 && !b->overlong) {
		b->line[b->len] = '\0';
		blocked_scan_line(b, b->line, cwd, plan);
	}
	b->len = 0;
	b->overlong = 0;
}
