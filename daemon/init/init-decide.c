/* init-decide.c: the file guard's one question, below its operations:
 * may the caller do op on a name held by a folder's descriptor? A refusal
 * is reported to sboxd. */
#include "daemon/init/init-decide.h"
#include "daemon/init/init-state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* guard_fs: lstat relative to the decided name's folder. */
static int
init_decide_lstat(void *arg, const char *rel, struct stat *st)
{
	return fstatat(*(int *)arg, rel, st, AT_SYMLINK_NOFOLLOW);
}

/* Ask the guard about op on (dir, name) held by fd; report a refusal. */
int
init_decide(struct init_walk_caller *t, enum guard_op op, int fd,
    const char *dir,
    const char *name, char *why, size_t whylen)
{
	const struct guard_spec *s = init_state_spec();
	struct guard_fs fs = { init_decide_lstat, &fd };
	struct guard_verdict v;
	char full[PATH_MAX + NAME_MAX + 2];

	if (s == NULL)
		return EPERM;
	guard_decide(s, op, dir, name, &fs, &v);
	if (v.err == 0)
		return 0;
	snprintf(full, sizeof full, "%s/%s", strcmp(dir, "/") ? dir : "", name);
	if (why != NULL)
		snprintf(why, whylen, "%s refused: %s (%s)", full, v.rule,
		    v.reason);
	if (t->call != NULL)
		init_state_report(t->call->id, t->tid, guard_op_name(op),
		    full, v.err, v.rule, v.reason);
	return v.err;
}
