/* gitconfig.h: what a repository's git config names. Host git runs
 * programs and reads files that its config values name (a hook folder, an
 * included file, a command line: `core.hooksPath = tools/hooks`,
 * `include.path = ../.gitconfig`, `alias.x = !sh scripts/x.sh`,
 * `core.fsmonitor = tools/fsmon --flag`, ...). The keys that do so are
 * many and git adds more, so this module decides on the VALUES: every
 * value that is, or holds a word that is, a path (absolute, `~/...`, or
 * relative with a '/') names that path. A small data table adds what a
 * value alone cannot show: keys whose bare value is a path relative to a
 * known folder (core.hooksPath, include.path, includeIf.*.path, ...), and
 * keys whose values git only ever reads as ref names (never files).
 *
 * Pure: parses the output of `git config --list -z --show-origin
 * --includes` (daemon/session/gitcfg.c runs the host's git) and spells paths; no
 * I/O. */
#ifndef SBOX_GITCONFIG_H
#define SBOX_GITCONFIG_H

#include <stddef.h>

#include "protocol/error.h"

#define GITCONFIG_VALUE_MAX  8192   /* bytes of one value considered */
#define GITCONFIG_WORDS_MAX  256    /* words of one value considered */
#define GITCONFIG_PATHS_MAX  4096   /* paths one listing may name */

/* Where the repository is: relative values resolve against these. */
struct gitconfig_where {
	const char *top;     /* the worktree's top folder, or NULL (bare) */
	const char *gitdir;  /* the git folder (absolute) */
	const char *home;    /* the home folder, for `~/` */
	const char *cwd;     /* the folder git ran in (relative origins) */
};

/* How git reads a key's value (the data table). */
enum gitconfig_form {
	GITCONFIG_FORM_ANY,     /* decide on the value's words alone */
	GITCONFIG_FORM_PATH,    /* the whole value is a path (from top) */
	GITCONFIG_FORM_HOOKS,   /* a folder of hooks (from top, or gitdir) */
	GITCONFIG_FORM_INCLUDE, /* a file, relative to the including file */
	GITCONFIG_FORM_REF,     /* ref names and refspecs: never a file */
};

/* One entry of a `--list -z --show-origin` listing. */
struct gitconfig_entry {
	const char *origin;  /* "file:/path", "command line:", ... */
	const char *key;     /* "section.sub.name" (section and name lower) */
	const char *value;   /* NULL for a key given without '=' */
};

/* The form of a key (section and name in any case). */
enum gitconfig_form gitconfig_key_form(const char *key);

/* The next entry of a listing: buf[*pos..len) (split in place: NULs
 * replace the '\n' between key and value). 1 with *e filled, 0 at the
 * end, -1 when the listing is malformed. */
int gitconfig_list_next(char *buf, size_t len, size_t *pos,
    struct gitconfig_entry *e);

/* The file an origin names ("file:X", X resolved against w->cwd), as a
 * malloc'd path; NULL when the origin is not a file or on ENOMEM. */
char *gitconfig_origin_file(const struct gitconfig_where *w,
    const char *origin);

/* Append (unique) to *out every absolute path the value of key names
 * (lexically normalised; `..` is resolved lexically, the caller also
 * protects the physical spelling). origin_file is the file that set it
 * (includes are relative to its folder), or NULL. 0, or -1 on ENOMEM or
 * when *out would pass GITCONFIG_PATHS_MAX (err says which). */
int gitconfig_value_paths(const struct gitconfig_where *w, const char *key,
    const char *value, const char *origin_file, char ***out,
    sbox_error *err);

/* The names of the hooks githooks(5) lists (NULL-terminated): a hook
 * folder that is a guarded root itself is protected name by name. */
extern const char *const gitconfig_hook_names[];

/* Every path a whole listing names (values, the files read, and the files
 * includes name) appended to *paths; the files the listing came from
 * also to *files, the files include.path/includeIf.*.path name to
 * *includes (each unique). buf is split in place. 0 or -1. */
int gitconfig_list_paths(const struct gitconfig_where *w, char *buf,
    size_t len, char ***paths, char ***files, char ***includes,
    sbox_error *err);

#endif
