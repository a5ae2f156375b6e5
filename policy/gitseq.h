/* gitseq.h: is git's sequencer state safe for host git (gitseq.c)? The
 * state folders rebase-merge/, rebase-apply/ and sequencer/ of a root's own
 * .git are writable inside a session (rebase, am, cherry-pick, revert of
 * several commits); what host git obeys in them later (`git rebase
 * --continue`, `git am --continue`, `git cherry-pick --continue`) is
 * decided here, by an allow list: every file must be a known name of a
 * known form, and nothing in it may make git run a program (an exec line,
 * a merge strategy that is not git's own, options passed to git apply
 * beyond a few harmless ones, a config with other keys). Pure: sboxd reads
 * the files (daemon/session/session-sequencer.c). */
#ifndef SBOX_GITSEQ_H
#define SBOX_GITSEQ_H

#include <stddef.h>

enum gitseq_folder {
	GITSEQ_REBASE_MERGE,  /* git rebase (the merge backend, -i) */
	GITSEQ_REBASE_APPLY,  /* git am, git rebase --apply */
	GITSEQ_SEQUENCER,     /* git cherry-pick / revert of several */
	GITSEQ_FOLDERS
};

#define GITSEQ_ENTRIES_MAX 20000            /* names in one folder */
#define GITSEQ_READ_MAX    (4 * 1024 * 1024) /* bytes of a file decided */
#define GITSEQ_WHY_MAX     256

/* The folder's name in a git folder ("rebase-merge", ...). */
const char *gitseq_folder_name(enum gitseq_folder f);
/* What a file of folder f is: -1 an unknown name (the state is not safe),
 * 0 data git never obeys (only its type is checked), 1 a file whose
 * content gitseq_file decides. */
int gitseq_name(enum gitseq_folder f, const char *name);
/* Decide the content of a file gitseq_name said 1 for: 0 safe, -1 with
 * why (at most GITSEQ_WHY_MAX bytes) saying what in it would make host git
 * run or obey something. */
int gitseq_file(enum gitseq_folder f, const char *name, const char *buf,
    size_t n, char *why, size_t whylen);
/* The names without which folder f is not a state git itself leaves
 * (NULL-terminated): a folder lacking one is not safe either. */
const char *const *gitseq_required(enum gitseq_folder f);

#endif
