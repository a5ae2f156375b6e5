/* guard.h: the file guard's decision. Whatever a sandbox writes inside a
 * guarded root (a host-backed writable folder: the project, the profile's
 * read_write folders, the home folder when a grant makes it writable) must
 * never be something the host runs later: git metadata at any depth, and
 * the protected names of a data file (policy/protected.default).
 *
 * Pure: no processes, no I/O except through the caller's lstat callback and
 * guard_table_load. Linked into sboxd (to build the spec) and into sbox-init
 * (which asks guard_decide before it performs each notified operation).
 *
 * Rule 0, before the others: inside an agent's account folder
 * (guard_account) only the account's writable patterns may be made,
 * written, renamed, linked, removed or changed; everything else is
 * read-only (settings, hooks, commands, agents, skills, rules, policies,
 * instructions, .env files, the sign-in, and any name the CLI adds
 * later). A folder pattern's own name may only be a folder.
 * The rules, within any guarded root (checked in this order):
 *   1. `.git`: creating (or renaming, linking, symlinking onto) an entry
 *      named .git is refused; writing to an existing one (a gitfile) too.
 *   2. `commondir`: creating one anywhere is refused.
 *   3. `HEAD`, `objects`, `refs`: creating one in a folder that holds the
 *      other two is refused (a bare git folder host git would discover).
 *   4. inside a git folder (a folder named .git, or HEAD and objects+refs,
 *      or HEAD and commondir, on disk) only an ALLOW LIST is writable
 *      (guard_git_allowed: objects/, refs/, logs/, index, HEAD, ...);
 *      below modules/ and worktrees/ only inside a git folder of their own.
 *   5. the protected names (scope root: relative to a guarded root other
 *      than the home folder itself, which only a provider's own home is;
 *      any: at any depth; home: relative to the home folder) and
 *      everything below a protected folder are read-only.
 *   6. a non-folder (a symlink above all) made at a leading part of a
 *      protected name or of a missing protected path is refused.
 * Bad input (a relative parent, an empty name, '.' or '..') is refused.
 * "Read-only" refuses create, write, rename onto or away, link onto or
 * from, remove, chmod, chown, times and removing an attribute. Removing is
 * refused also for a `.git` entry itself, and for HEAD, objects, refs and
 * commondir directly in a git folder (what makes it one: without them
 * host git walks up to another repository), and for a folder that holds
 * a missing protected path. The errno is EROFS when the name exists (as a read-only
 * mount answers) and EPERM for a refused creation.
 *
 * DESIGN notes. A protected name must be protected whichever way its path
 * is spelled. sbox-init resolves every path itself (symlinks read and
 * walked, `..` on held descriptors, /proc/PID/fd links followed by the
 * kernel and named by a path read back and checked to lead to the same
 * file), so the guard always decides on the RESOLVED location; a path it
 * cannot resolve is refused. That alone misses one spelling: a symlink
 * made at a leading part of a protected name (`ln -s evil .cargo`, then
 * `evil/config.toml`) -- the write resolves to evil/, unprotected, but host
 * cargo reads it as .cargo/config.toml. Rule 6 closes it where the name is
 * made rather than where it is used: only a folder may be made at a
 * leading part (a symlink, file, node, socket or hard link there is
 * refused; a folder renamed there is refused when a protected name would
 * land below it). So the literal path host tools use and the resolved
 * path the guard decides on cannot differ below a guarded root through
 * anything the sandbox made. A renamed parent is the rename rule's
 * (folders moved onto or away from protected places). Git folders are an
 * allow list (rule 4) rather than a list of what runs: a file git adds
 * later is read-only until it is named here. */
#ifndef SBOX_GUARD_H
#define SBOX_GUARD_H

#include <jansson.h>
#include <stddef.h>
#include <sys/stat.h>

#include "protocol/error.h"

#define GUARD_NAME_MAX    255   /* bytes in a protected name */
#define GUARD_COMMENT_MAX 160   /* bytes in its comment */
#define GUARD_TABLE_MAX   512   /* protected names in one table */
#define GUARD_ROOTS_MAX   64    /* guarded roots in one spec */
#define GUARD_MISSING_MAX 1024  /* missing protected paths in one spec */
#define GUARD_PATH_MAX    4096  /* bytes in a path */
#define GUARD_RULES_MAX   1024  /* path rules in one spec */
#define GUARD_RULE_MAX    128   /* bytes in a rule's name */
#define GUARD_ACCOUNTS_MAX 16   /* account folders in one spec */
#define GUARD_WRITABLE_MAX 128  /* writable patterns of one account folder */

enum guard_kind { GUARD_KIND_RUNS_LATER, GUARD_KIND_CREDENTIAL };
enum guard_scope { GUARD_SCOPE_ROOT, GUARD_SCOPE_ANY, GUARD_SCOPE_HOME };

/* One protected name. */
struct guard_entry {
	enum guard_kind  kind;
	enum guard_scope scope;
	int              is_dir;   /* written with a trailing '/' */
	char            *name;     /* relative, without the trailing '/' */
	char            *comment;  /* what runs it (or reads it) */
};

/* The protected names. */
struct guard_table {
	struct guard_entry *e;
	size_t              n, cap;
};

/* A plan's path rule as the read reporter sees it (plan_explain's data):
 * the longest matching path decides (a later one wins a tie). */
enum guard_access { GUARD_ACCESS_HIDDEN, GUARD_ACCESS_RO, GUARD_ACCESS_RW };
struct guard_rule {
	char              *path;    /* absolute, normalised */
	enum guard_access  access;
	char              *rule;    /* the PLAN_RULE_* text */
};

/* An agent's account folder: read-only but for what its agent writes
 * while it works. Each pattern is relative to root, may hold fnmatch
 * wildcards within a component ('*', '?', '[...]'; never across a '/'),
 * and ends in '/' for a folder (it and everything below it). */
struct guard_account {
	char  *root;      /* absolute, normalised */
	char **writable;  /* NULL-terminated patterns */
};

/* What sbox-init needs to decide: the guarded roots, home, the names. */
struct guard_spec {
	char             **roots;   /* NULL-terminated absolute folders */
	char              *home;    /* the home folder (absolute) */
	struct guard_table table;
	char             **missing; /* NULL-terminated absolute paths the plan
	                               protects that do not exist (sbox's own
	                               files, credentials, files that run
	                               programs later): uncreatable, as is
	                               anything that would hold them */
	int                supervise; /* 0: no supervisor (benchmarks only) */
	char             **exclude; /* NULL or the profile's `exclude`
	                               patterns: a program started inside
	                               that matches one asks to run outside */
	char             **nosock;  /* NULL-terminated folders where no Unix
	                               socket may be bound (package caches:
	                               other sessions of the project read
	                               them; nothing served there for them) */
	struct guard_rule *rules;   /* the plan's hidden rules and the rules
	                               inside them (a visible folder in a
	                               hidden one): sbox-init reports a read
	                               refused where one of them is hidden */
	size_t             n_rules;
	struct guard_account *accounts; /* the account folders (rule 0) */
	size_t             n_accounts;
	char             **private_dirs; /* NULL-terminated folders of the
	                               session's own (a tmpfs over a part of an
	                               account folder): anything below them is
	                               allowed, nothing there outlives it */
};

/* What an operation does to the name it is decided on. */
enum guard_op {
	GUARD_OP_CREATE,      /* a new file, folder, node or symlink */
	GUARD_OP_WRITE,       /* open for writing or truncate an existing file */
	GUARD_OP_RENAME,      /* rename onto the name */
	GUARD_OP_RENAME_FROM, /* rename the name away */
	GUARD_OP_LINK,        /* hard link onto the name */
	GUARD_OP_LINK_FROM,   /* hard link of the name elsewhere */
	GUARD_OP_CHMOD,       /* change its mode */
	GUARD_OP_RENAME_DIR,  /* rename a folder onto the name: nothing
	                         protected may end up below it either */
	GUARD_OP_RENAME_DIR_FROM, /* rename the folder name away */
	GUARD_OP_MKDIR,       /* a new folder (GUARD_OP_CREATE: anything
	                         else -- a file, node, socket or symlink) */
	GUARD_OP_REMOVE,      /* unlink or rmdir the name */
	GUARD_OP_CHOWN,       /* change its owner or group */
	GUARD_OP_UTIME,       /* change its times */
	GUARD_OP_XATTR,       /* remove one of its extended attributes */
};

/* lstat of a path relative to the decided name's parent folder (it may
 * start with "../"); 0 or -1. */
struct guard_fs {
	int  (*lstat)(void *arg, const char *rel, struct stat *st);
	void  *arg;
};

/* The answer: err 0 = allowed; else EPERM or EROFS, the PLAN_RULE_* text
 * and a one-line reason. */
struct guard_verdict {
	int         err;
	const char *rule;
	char        reason[GUARD_COMMENT_MAX + GUARD_NAME_MAX + 64];
};

/* Add one entry after checking it (kind "runs-later" | "credential", scope
 * "root" | "any" | "home", a relative name without "." or ".." components,
 * a trailing '/' for folders). E_CONFIG on a bad entry. */
int guard_entry_add(struct guard_table *t, const char *kind,
    const char *scope, const char *name, const char *comment,
    sbox_error *err);
/* Add the entries of a text: one per line, "KIND SCOPE NAME [# comment]",
 * blank lines and lines starting with '#' skipped; origin names it in
 * errors ("protected:12: ..."). */
int guard_table_parse(struct guard_table *t, const char *text,
    const char *origin, sbox_error *err);
/* Add the entries of a file (at most 1 MiB). */
int guard_table_load(struct guard_table *t, const char *path,
    sbox_error *err);
/* The data file to use: $SBOX_PROTECTED_FILE, else /etc/sbox/protected,
 * else fallback (the shipped one); NULL when none exists. */
const char *guard_table_file(const char *fallback);
/* Copy every entry of src into dst. */
int guard_table_copy(struct guard_table *dst, const struct guard_table *src,
    sbox_error *err);
/* Release the entries. */
void guard_table_free(struct guard_table *t);
/* "runs-later" / "credential"; "root" / "any" / "home". */
const char *guard_kind_name(enum guard_kind k);
const char *guard_scope_name(enum guard_scope s);
/* The entries as [{kind, scope, name, comment}] (names of folders end in
 * '/'). */
json_t *guard_table_to_json(const struct guard_table *t);

/* The spec as {"roots", "home", "protected", "missing", "rules",
 * "supervise"} and back (the latter validates: it parses what sbox-init
 * receives; "missing" and "rules" may be absent). */
json_t *guard_spec_to_json(const struct guard_spec *s);
int guard_spec_from_json(struct guard_spec *s, json_t *j, sbox_error *err);
/* The same, for a message whose "bulk" [n1, n2] says that its protected
 * names and rules are the first n1 + n2 of the len bytes at bulk, which
 * came with it (guard_spec_bulk_out); 0 or -1 with err. */
int guard_spec_from_msg(struct guard_spec *s, json_t *j, const char *bulk,
    size_t len, sbox_error *err);
/* Move a spec JSON's protected names and rules into *buf (malloc'd, *len
 * bytes), leaving "bulk": [n1, n2] in their place: jansson parses long
 * strings slowly, these bytes are copied. 0 or -1 with err. */
int guard_spec_bulk_out(json_t *j, char **buf, size_t *len, sbox_error *err);
/* Append the absolute, normalised paths of the JSON array a to the
 * spec's missing (protected) paths: git's config named them after the
 * spec was made. All are checked before any is added. 0, or -1 with err
 * (not such paths, past GUARD_MISSING_MAX, out of memory). */
int guard_spec_add_missing(struct guard_spec *s, json_t *a, sbox_error *err);
/* Release what the spec owns (not the struct). */
void guard_spec_free(struct guard_spec *s);
/* Add an account folder (absolute, normalised) with its writable
 * patterns (NULL-terminated, relative; see struct guard_account) to the
 * spec. 0, or -1 with err (a bad root or pattern, past the bounds). */
int guard_spec_add_account(struct guard_spec *s, const char *root,
    char *const *writable, sbox_error *err);
/* Is rel (a path below an account folder) one of its writable patterns,
 * or below a folder pattern? 1 or 0. leaf: the name made is not a folder
 * (a folder pattern's own name refuses it). */
int guard_account_writable(const struct guard_account *a, const char *rel,
    int leaf);
/* Append a path rule to the spec; one whose path is not absolute and
 * normalised, or past GUARD_RULES_MAX, is skipped. 0, or -1 out of memory. */
int guard_spec_add_rule(struct guard_spec *s, const char *path,
    enum guard_access access, const char *rule);
/* The rule that decides path (an absolute, normalised path): the longest
 * matching rule path, the later one on a tie; NULL when none. */
const struct guard_rule *guard_spec_explain(const struct guard_spec *s,
    const char *path);

/* Decide op on name in the absolute, normalised folder parent. fs is asked
 * only when a rule's names match. */
/* May a Unix socket be bound in the folder parent (not in a package cache)?
 * 0, or fills v with the refusal and returns its errno. */
int guard_decide_bind(const struct guard_spec *s, const char *parent,
    struct guard_verdict *v);
void guard_decide(const struct guard_spec *s, enum guard_op op,
    const char *parent, const char *name, const struct guard_fs *fs,
    struct guard_verdict *v);
/* The public name of an operation ("create", "write", "rename", "link",
 * "chmod", "remove", "chown", "utime", "xattr"). */
const char *guard_op_name(enum guard_op op);

#endif
