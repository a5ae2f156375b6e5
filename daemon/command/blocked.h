/* blocked.h: what the sandbox refused during a command (the file guard
 * reports each refusal exactly; nothing is guessed from output), and the
 * plan rule that explains a refused path. */
#ifndef SBOX_BLOCKED_H
#define SBOX_BLOCKED_H

#include <jansson.h>
#include <stddef.h>

struct plan;

#define BLOCKED_MAX_FILES 32

struct blocked {
	json_t *files;  /* [{path, op, rule, message, reason, pid, process}],
	                   deduplicated (command_note_file) */
	json_t *unreachable; /* [{host, port, cause}]: allowed hosts the proxy
	                   could not reach (command_note_unreachable) */
};

/* Start with nothing refused. */
void blocked_init(struct blocked *b);
/* Release what was collected. */
void blocked_free(struct blocked *b);
/* Explain one refused path: "write to .git/config refused: <rule>", or NULL
 * when the plan does not explain it. errnum is the error seen (EROFS, EACCES,
 * ENOENT, EPERM); writing is 1 for a write, 0 for a read, -1 when unknown
 * (then the rule decides). Caller frees. */
char *blocked_explain(const struct plan *plan, const char *path,
    const char *cwd, int errnum, int writing, const char **op,
    const char **rule);

#endif
