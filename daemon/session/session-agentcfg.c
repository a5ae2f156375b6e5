/* session-agentcfg.c: read the agents' settings files on the host and
 * collect what their values name (session-agentcfg.h). */
#include "daemon/session/session-agentcfg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/config.h"
#include "policy/path.h"
#include "policy/strv.h"

#define SESSION_AGENTCFG_FILES_MAX 256

/* The whole settings file at path into *buf (*len bytes); 0 when it is
 * absent (*buf NULL), -1 with err when it is not a readable file. */
static int
session_agentcfg_read(const char *path, char **buf, size_t *len,
    sbox_error *err)
{
	struct stat st;
	ssize_t r = 0;
	size_t got = 0;
	int fd;

	*buf = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) ==
	    -1) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return error_set_errno(err, E_SANDBOX_SETUP, errno, "cannot read "
		    "the agent settings file %s", path);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > AGENTCFG_FILE_MAX) {
		close(fd);
		return error_set(err, E_SANDBOX_SETUP, "the agent settings file "
		    "%s is not a file of at most %d bytes: what it names "
		    "cannot be known", path, AGENTCFG_FILE_MAX);
	}
	if ((*buf = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return error_nomem(err);
	}
	while (got < (size_t)st.st_size && ((r = read(fd, *buf + got,
	    (size_t)st.st_size - got)) > 0 || (r < 0 && errno == EINTR)))
		got += r > 0 ? (size_t)r : 0;
	if (r < 0) {	/* a part unread: what it names cannot be known */
		close(fd);
		free(*buf);
		*buf = NULL;
		return error_set_errno(err, E_SANDBOX_SETUP, errno, "cannot "
		    "read the agent settings file %s", path);
	}
	close(fd);
	(*buf)[got] = '\0';
	*len = got;
	return 0;
}

/* Add a file to watch (once). */
static int
session_agentcfg_watch(struct session_agentcfg *a, const char *path)
{
	struct gitcfg_ident *w;
	size_t i;

	for (i = 0; i < a->n_watch; i++)
		if (strcmp(a->watch[i].path, path) == 0)
			return 1;
	if ((w = realloc(a->watch, (a->n_watch + 1) * sizeof *w)) == NULL)
		return -1;
	a->watch = w;
	memset(&w[a->n_watch], 0, sizeof *w);
	if ((w[a->n_watch].path = strdup(path)) == NULL)
		return -1;
	gitcfg_watch_fill(&w[a->n_watch]);
	a->n_watch++;
	return 0;
}

/* Read one settings file and add what it names. */
static int
session_agentcfg_file(struct session_agentcfg *a, const char *path,
    const char *home, const char *project, char *const *data,
    sbox_error *err)
{
	struct agentcfg_where w = { home, project, path };
	size_t n = strlen(path), len;
	char *buf;
	int rc;

	if ((rc = session_agentcfg_watch(a, path)) != 0)
		return rc < 0 ? error_nomem(err) : 0;
	if (a->n_watch > SESSION_AGENTCFG_FILES_MAX)
		return error_set(err, E_LIMIT, "more than %d agent settings "
		    "files", SESSION_AGENTCFG_FILES_MAX);
	if (session_agentcfg_read(path, &buf, &len, err) < 0)
		return -1;
	if (buf == NULL)
		return 0;
	rc = agentcfg_parse(buf, len, n > 5 && strcmp(path + n - 5, ".toml") ==
	    0, &w, data, &a->named, err);
	free(buf);
	return rc;
}

/* The physical spelling of path: its longest existing leading part
 * resolved (symlinks followed), the rest appended; NULL when it is the
 * same or cannot be known. */
static char *
session_agentcfg_physical(const char *path)
{
	char *dir = strdup(path), *slash, *real, *out = NULL;

	if (dir == NULL)
		return NULL;
	while ((real = realpath(dir, NULL)) == NULL &&
	    (slash = strrchr(dir, '/')) != NULL && slash != dir)
		*slash = '\0';
	if (real != NULL && asprintf(&out, "%s%s", real, path + strlen(dir)) ==
	    -1)
		out = NULL;
	free(real);
	free(dir);
	if (out != NULL && strcmp(out, path) == 0) {
		free(out);
		out = NULL;
	}
	return out;
}

/* Add the physical spelling of every named path (the guard decides on
 * resolved paths; host tools use the named one): both are kept. */
static int
session_agentcfg_physicals(struct session_agentcfg *a, sbox_error *err)
{
	size_t i, n = a->named.n, k;
	char *phys;

	for (i = 0; i < n; i++) {
		if ((phys = session_agentcfg_physical(a->named.paths[i])) == NULL)
			continue;
		for (k = 0; k < a->named.n; k++)
			if (strcmp(a->named.paths[k], phys) == 0)
				break;
		if (k == a->named.n && a->named.n < AGENTCFG_NAMED_MAX &&
		    (strv_append(&a->named.paths, phys) < 0 ||
		    strv_append(&a->named.by, a->named.by[i]) < 0)) {
			free(phys);
			return error_nomem(err);
		}
		if (k == a->named.n && a->named.n < AGENTCFG_NAMED_MAX)
			a->named.n++;
		free(phys);
	}
	return 0;
}

/* Read every provider's settings files. */
int
session_agentcfg_scan(const struct config *cfg, const char *home,
    const char *project, struct session_agentcfg *out, sbox_error *err)
{
	const struct config_binding *b;
	struct stat st;
	char *path;
	size_t i, j;
	int rc = 0;

	memset(out, 0, sizeof *out);
	for (i = 0; rc == 0 && cfg != NULL && i < cfg->n_providers; i++) {
		b = &cfg->providers[i];
		for (j = 0; rc == 0 && b->settings && b->settings[j]; j++) {
			if (strncmp(b->settings[j], "./", 2) == 0) {
				if (project == NULL || project[0] != '/')
					continue;
				if ((path = path_join(project, b->settings[j] +
				    2)) == NULL)
					return error_nomem(err);
			} else if ((path = strdup(b->settings[j])) == NULL)
				return error_nomem(err);
			rc = session_agentcfg_file(out, path, home, project,
			    b->data_keys, err);
			free(path);
		}
	}
	if (rc == 0)
		rc = session_agentcfg_physicals(out, err);
	if (rc == 0 && out->named.n > 0 &&
	    (out->kinds = calloc(out->named.n, 1)) == NULL)
		rc = error_nomem(err);
	for (i = 0; rc == 0 && i < out->named.n; i++)
		if (lstat(out->named.paths[i], &st) == 0)
			out->kinds[i] = S_ISREG(st.st_mode) ? 1 :
			    S_ISDIR(st.st_mode) ? 2 : 3;
	if (rc < 0)
		session_agentcfg_free(out);
	return rc;
}

/* Has one of the files changed since the scan? */
int
session_agentcfg_changed(const struct session_agentcfg *a)
{
	return gitcfg_watch_changed(a->watch, a->n_watch);
}

/* Release what a owns. */
void
session_agentcfg_free(struct session_agentcfg *a)
{
	agentcfg_named_free(&a->named);
	free(a->kinds);
	gitcfg_watch_free(a->watch, a->n_watch);
	memset(a, 0, sizeof *a);
}

/* The named paths as [{path, setting}]. */
json_t *
session_agentcfg_json(const struct session_agentcfg *a)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; arr != NULL && i < a->named.n; i++)
		json_array_append_new(arr, json_pack("{s:s,s:s}", "path",
		    a->named.paths[i], "setting", a->named.by[i]));
	return arr;
}
