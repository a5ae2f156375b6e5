/* blocked.c: what the sandbox refused during a command (blocked.files,
 * filled from the file guard's exact reports: command_note_file), and
 * naming the plan rule that explains a refused path. */
#include "daemon/command/blocked.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/plan.h"
#include "policy/policy.h"

/* Start with nothing refused. */
void
blocked_init(struct blocked *b)
{
	memset(b, 0, sizeof *b);
	b->files = json_array();
	b->unreachable = json_array();
}

/* Release what was collected. */
void
blocked_free(struct blocked *b)
{
	json_decref(b->files);
	b->files = NULL;
	json_decref(b->unreachable);
	b->unreachable = NULL;
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
