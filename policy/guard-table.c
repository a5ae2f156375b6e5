/* guard-table.c: the protected names of the file guard: the data file
 * (policy/protected.default, /etc/sbox/protected, $SBOX_PROTECTED_FILE)
 * parsed and bounded, copied, and as JSON; the names of kinds, scopes and
 * operations. */
#include "policy/guard.h"
#include "policy/plan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GUARD_SYSTEM_FILE "/etc/sbox/protected"
#define GUARD_FILE_MAX    (1024 * 1024)

/* "runs-later" / "credential". */
const char *
guard_kind_name(enum guard_kind k)
{
	return k == GUARD_KIND_CREDENTIAL ? "credential" : "runs-later";
}

/* "root" / "any" / "home". */
const char *
guard_scope_name(enum guard_scope s)
{
	return s == GUARD_SCOPE_ANY ? "any" : s == GUARD_SCOPE_HOME ? "home" :
	    "root";
}

/* The public name of an operation. */
const char *
guard_op_name(enum guard_op op)
{
	switch (op) {
	case GUARD_OP_CREATE:
	case GUARD_OP_MKDIR:       return "create";
	case GUARD_OP_WRITE:       return "write";
	case GUARD_OP_RENAME:
	case GUARD_OP_RENAME_FROM:
	case GUARD_OP_RENAME_DIR:
	case GUARD_OP_RENAME_DIR_FROM: return "rename";
	case GUARD_OP_LINK:
	case GUARD_OP_LINK_FROM:   return "link";
	case GUARD_OP_CHMOD:       return "chmod";
	case GUARD_OP_REMOVE:      return "remove";
	case GUARD_OP_CHOWN:       return "chown";
	case GUARD_OP_UTIME:       return "utime";
	case GUARD_OP_XATTR:       return "xattr";
	}
	return "write";
}

/* Is name a valid relative protected name (trailing '/' allowed)? */
static const char *
guard_name_check(const char *name)
{
	size_t n = strlen(name), i, start = 0, len;

	if (n == 0 || n > GUARD_NAME_MAX)
		return "a name is 1 to 255 bytes";
	if (name[0] == '/')
		return "a name is relative (no leading '/')";
	if (name[n - 1] == '/')
		n--;
	for (i = 0; i <= n; i++) {
		if (i < n && name[i] != '/') {
			if ((unsigned char)name[i] < 0x21 ||
			    (unsigned char)name[i] >= 0x7f || name[i] == '#')
				return "a name is printable ASCII without spaces "
				    "or '#'";
			continue;
		}
		len = i - start;
		if (len == 0)
			return "a name has no empty components";
		if ((len == 1 && name[start] == '.') || (len == 2 &&
		    name[start] == '.' && name[start + 1] == '.'))
			return "a name has no '.' or '..' components";
		start = i + 1;
	}
	return NULL;
}

/* Add one entry after checking it. */
int
guard_entry_add(struct guard_table *t, const char *kind, const char *scope,
    const char *name, const char *comment, sbox_error *err)
{
	struct guard_entry e;
	const char *why;
	size_t n, i;
	void *p;

	memset(&e, 0, sizeof e);
	if (strcmp(kind, "runs-later") == 0)
		e.kind = GUARD_KIND_RUNS_LATER;
	else if (strcmp(kind, "credential") == 0)
		e.kind = GUARD_KIND_CREDENTIAL;
	else
		return error_set(err, E_CONFIG, "unknown kind \"%.40s\" (runs-later "
		    "or credential)", kind);
	if (strcmp(scope, "root") == 0)
		e.scope = GUARD_SCOPE_ROOT;
	else if (strcmp(scope, "any") == 0)
		e.scope = GUARD_SCOPE_ANY;
	else if (strcmp(scope, "home") == 0)
		e.scope = GUARD_SCOPE_HOME;
	else
		return error_set(err, E_CONFIG, "unknown scope \"%.40s\" (root, "
		    "any or home)", scope);
	if ((why = guard_name_check(name)) != NULL)
		return error_set(err, E_CONFIG, "\"%.80s\": %s", name, why);
	if (comment == NULL)
		comment = "";
	if (strlen(comment) > GUARD_COMMENT_MAX)
		return error_set(err, E_CONFIG, "\"%.80s\": the comment is over "
		    "%d bytes", name, GUARD_COMMENT_MAX);
	for (i = 0; comment[i] != '\0'; i++)
		if ((unsigned char)comment[i] < 0x20 ||
		    (unsigned char)comment[i] >= 0x7f)
			return error_set(err, E_CONFIG, "\"%.80s\": the comment "
			    "is not plain ASCII text", name);
	if (t->n >= GUARD_TABLE_MAX)
		return error_set(err, E_CONFIG, "more than %d protected names",
		    GUARD_TABLE_MAX);
	n = strlen(name);
	e.is_dir = name[n - 1] == '/';
	/* (strncmp first: it stops at the first difference, where a strlen
	 * of every entry for every entry added cost a table of 200 names
	 * ~0.1 ms; equal over n - is_dir bytes, the entry is that long at
	 * least, and as long when its next byte ends it) */
	for (i = 0; i < t->n; i++)
		if (t->e[i].kind == e.kind && t->e[i].scope == e.scope &&
		    t->e[i].is_dir == e.is_dir &&
		    strncmp(t->e[i].name, name, n - (size_t)e.is_dir) == 0 &&
		    t->e[i].name[n - (size_t)e.is_dir] == '\0')
			return 0; /* already there */
	if (t->n == t->cap) {
		n = t->cap ? t->cap * 2 : 64;
		if ((p = realloc(t->e, n * sizeof *t->e)) == NULL)
			return error_nomem(err);
		t->e = p;
		t->cap = n;
	}
	e.name = strndup(name, strlen(name) - (size_t)e.is_dir);
	e.comment = strdup(comment);
	if (e.name == NULL || e.comment == NULL) {
		free(e.name);
		free(e.comment);
		return error_nomem(err);
	}
	t->e[t->n++] = e;
	return 0;
}

/* The next whitespace-separated token of *s (NUL-terminated in place). */
static char *
guard_token(char **s)
{
	char *p = *s + strspn(*s, " \t"), *e;

	if (*p == '\0' || *p == '#')
		return NULL;
	e = p + strcspn(p, " \t");
	if (*e != '\0')
		*e++ = '\0';
	*s = e;
	return p;
}

/* Add the entries of a text, one per line. */
int
guard_table_parse(struct guard_table *t, const char *text, const char *origin,
    sbox_error *err)
{
	char *buf, *line, *next, *s, *kind, *scope, *name, *hash;
	int lineno = 0, rc = 0;

	if ((buf = strdup(text)) == NULL)
		return error_nomem(err);
	for (line = buf; rc == 0 && line != NULL; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((hash = strchr(line, '#')) != NULL)
			*hash++ = '\0';
		s = line;
		if ((kind = guard_token(&s)) == NULL)
			continue;
		scope = guard_token(&s);
		name = scope ? guard_token(&s) : NULL;
		if (name == NULL || guard_token(&s) != NULL) {
			rc = error_set(err, E_CONFIG, "%s:%d: expected KIND SCOPE "
			    "NAME [# comment]", origin, lineno);
			break;
		}
		if (hash != NULL) {
			hash += strspn(hash, " \t");
			s = hash + strlen(hash);
			while (s > hash && (s[-1] == ' ' || s[-1] == '\t' ||
			    s[-1] == '\r'))
				*--s = '\0';
		}
		if ((rc = guard_entry_add(t, kind, scope, name, hash ? hash : "",
		    err)) < 0)
			error_context(err, "%s:%d", origin, lineno);
	}
	free(buf);
	return rc;
}

/* Add the entries of a file. */
int
guard_table_load(struct guard_table *t, const char *path, sbox_error *err)
{
	char *buf;
	ssize_t n;
	size_t len = 0;
	int fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return error_set_errno(err, E_CONFIG, errno, "%s", path);
	if ((buf = malloc(GUARD_FILE_MAX + 1)) == NULL) {
		close(fd);
		return error_nomem(err);
	}
	while ((n = read(fd, buf + len, GUARD_FILE_MAX + 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (n < 0 || len > GUARD_FILE_MAX || memchr(buf, '\0', len) != NULL) {
		free(buf);
		return error_set(err, E_CONFIG, "%s: unreadable, over 1 MiB or "
		    "not text", path);
	}
	buf[len] = '\0';
	rc = guard_table_parse(t, buf, path, err);
	free(buf);
	return rc;
}

/* The data file to use, or NULL when none exists. */
const char *
guard_table_file(const char *fallback)
{
	const char *env = getenv("SBOX_PROTECTED_FILE");

	if (env != NULL && env[0] != '\0')
		return env;
	if (access(GUARD_SYSTEM_FILE, F_OK) == 0)
		return GUARD_SYSTEM_FILE;
	if (fallback != NULL && access(fallback, F_OK) == 0)
		return fallback;
	return NULL;
}

/* The entry's name as written (a folder with its trailing '/'). */
static void
guard_entry_spelling(const struct guard_entry *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", e->name, e->is_dir ? "/" : "");
}

/* Copy every entry of src into dst. */
int
guard_table_copy(struct guard_table *dst, const struct guard_table *src,
    sbox_error *err)
{
	char name[GUARD_NAME_MAX + 2];
	size_t i;

	if (src != NULL && src->n > 0 && dst->n == 0 && dst->cap == 0) {
		/* into an empty table: src's entries as they are (each passed
		 * guard_entry_add's checks, once each), without checking them
		 * again one by one against all before */
		if ((dst->e = calloc(src->n, sizeof *dst->e)) == NULL)
			return error_nomem(err);
		dst->cap = src->n;
		for (i = 0; i < src->n; i++) {
			dst->e[i] = src->e[i];
			dst->e[i].name = strdup(src->e[i].name);
			dst->e[i].comment = strdup(src->e[i].comment);
			dst->n = i + 1;
			if (dst->e[i].name == NULL || dst->e[i].comment == NULL)
				return error_nomem(err); /* the caller frees dst */
		}
		return 0;
	}
	for (i = 0; src != NULL && i < src->n; i++) {
		guard_entry_spelling(&src->e[i], name, sizeof name);
		if (guard_entry_add(dst, guard_kind_name(src->e[i].kind),
		    guard_scope_name(src->e[i].scope), name, src->e[i].comment,
		    err) < 0)
			return -1;
	}
	return 0;
}

/* Release the entries. */
void
guard_table_free(struct guard_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->e[i].name);
		free(t->e[i].comment);
	}
	free(t->e);
	memset(t, 0, sizeof *t);
}

/* The entries as [{kind, scope, name, comment}]. */
json_t *
guard_table_to_json(const struct guard_table *t)
{
	char name[GUARD_NAME_MAX + 2];
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < t->n; i++) {
		guard_entry_spelling(&t->e[i], name, sizeof name);
		if (json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s}",
		    "kind", guard_kind_name(t->e[i].kind), "scope",
		    guard_scope_name(t->e[i].scope), "name", name, "comment",
		    t->e[i].comment)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}
