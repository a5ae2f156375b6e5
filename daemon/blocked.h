/* blocked.h: naming what the sandbox refused during a command, from the
 * error lines tools print (shell redirection, cp, mv, git, Python, Node). */
#ifndef SBOX_BLOCKED_H
#define SBOX_BLOCKED_H

#include <jansson.h>
#include <stddef.h>

struct plan;

#define BLOCKED_LINE_MAX 4096
#define BLOCKED_MAX_FILES 32

struct blocked {
	json_t *files;                 /* [{path, op, rule, message}], deduplicated */
	char    line[BLOCKED_LINE_MAX];/* the partial line being collected */
	size_t  len;
	int     overlong;              /* current line exceeded the buffer */
};

/* Start with nothing refused. */
void blocked_init(struct blocked *b);
/* Release what was collected. */
void blocked_free(struct blocked *b);
/* Scan a chunk of a command's stderr; cwd is the command's folder inside the
 * sandbox; refusals explained by the plan's path rules are collected. */
void blocked_feed(struct blocked *b, const char *data, size_t n,
    const char *cwd, const struct plan *plan);
/* Scan what is left in the partial line (at the end of the command). */
void blocked_finish(struct blocked *b, const char *cwd, const struct plan *plan);
/* Explain one refused path: "write to .git/config refused: <rule>", or NULL
 * when the plan does not explain it. errnum is the error seen (EROFS, EACCES,
 * ENOENT, EPERM); writing is 1 for a write, 0 for a read, -1 when unknown
 * (then the rule decides). Caller frees. */
char *blocked_explain(const struct plan *plan, const char *path,
    const char *cwd, int errnum, int writing, const char **op,
    const char **rule);

#endif
