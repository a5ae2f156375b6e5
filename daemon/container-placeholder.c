/* container-placeholder.c: empty files and folders that stand in, on the
 * host, for protected paths that do not exist, so that bwrap can mount over
 * them read-only (render-bwrap.h explains why). They are made and removed
 * walking from the writable folder's root without following symlinks below
 * it, and only removed while still empty. A daemon-wide registry counts the
 * containers that use each one. */
#include "daemon/container.h"
#include "daemon/container-internal.h"
#include "daemon/container-bind.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct container_ph {
	char                *root;
	char                *path;
	int                  is_dir;
	int                  refs;
	struct container_ph *next;
};

static struct container_ph *container_ph_list;
static const char *container_ph_held_path; /* during container_ph_acquire */
static int container_ph_held_fd = -1;

/* Open the folder holding path's last component, walking from root without
 * following symlinks; *name points at that component. -1 with errno. */
static int
container_ph_parent(const char *root, const char *path, char *buf,
    size_t size, const char **name)
{
	size_t rl = strlen(root);
	char *comp, *slash;
	sbox_error ignored;
	int fd, nfd;

	if (strcmp(root, "/") == 0)
		rl = 0;
	if (strncmp(path, root, rl) != 0 || path[rl] != '/' ||
	    strlen(path + rl) >= size) {
		errno = EINVAL;
		return -1;
	}
	strcpy(buf, path + rl + 1);
	/* the root as it was checked: the held folder, else walked without
	 * following any symlink (a sandbox may have swapped one in) */
	if (container_ph_held_path != NULL &&
	    strcmp(root, container_ph_held_path) == 0)
		fd = fcntl(container_ph_held_fd, F_DUPFD_CLOEXEC, 0);
	else
		fd = container_bind_open(root, 0, NULL, &ignored);
	if (fd < 0)
		return -1;
	for (comp = buf; (slash = strchr(comp, '/')) != NULL;
	    comp = slash + 1) {
		*slash = '\0';
		if (strcmp(comp, "..") == 0 || strcmp(comp, ".") == 0 ||
		    *comp == '\0') {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		nfd = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		close(fd);
		if (nfd < 0)
			return -1;
		fd = nfd;
	}
	if (*comp == '\0' || strcmp(comp, "..") == 0 || strcmp(comp, ".") == 0) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	*name = comp;
	return fd;
}

/* Make one placeholder: 1 made, 0 something is already there, -1 error. */
static int
container_ph_make(const char *root, const char *path, int is_dir)
{
	char buf[4096];
	const char *name;
	struct stat st;
	int dfd, fd, e;

	if ((dfd = container_ph_parent(root, path, buf, sizeof buf, &name)) < 0)
		return -1;
	if (is_dir)
		fd = mkdirat(dfd, name, 0755);
	else if ((fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0644)) >= 0)
		close(fd);
	if (fd >= 0) {
		/* it belongs to whoever owns its folder (a provider's home
		 * folder is the sandbox uid's, not root's) */
		if (geteuid() == 0 && fstat(dfd, &st) == 0)
			(void)fchownat(dfd, name, st.st_uid, st.st_gid,
			    AT_SYMLINK_NOFOLLOW);
		close(dfd);
		return 1;
	}
	e = errno;
	if (e == EEXIST && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISLNK(st.st_mode)) {
		close(dfd);
		return 0;
	}
	close(dfd);
	errno = e == EEXIST ? ELOOP : e;
	return -1;
}

/* Remove one placeholder if it is still an empty file or folder. */
static void
container_ph_unmake(const char *root, const char *path)
{
	char buf[4096];
	const char *name;
	struct stat st;
	int dfd;

	if ((dfd = container_ph_parent(root, path, buf, sizeof buf, &name)) < 0)
		return;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			unlinkat(dfd, name, AT_REMOVEDIR); /* fails if not empty */
		else if (S_ISREG(st.st_mode) && st.st_size == 0)
			unlinkat(dfd, name, 0);
	}
	close(dfd);
}

/* Append e to the held list. */
static int
container_ph_hold(struct container_ph ***held, size_t *n,
    struct container_ph *e)
{
	struct container_ph **nh;

	nh = realloc(*held, (*n + 1) * sizeof *nh);
	if (nh == NULL)
		return -1;
	nh[(*n)++] = e;
	*held = nh;
	e->refs++;
	return 0;
}

/* The registry entry for path, or NULL. */
static struct container_ph *
container_ph_find(const char *path)
{
	struct container_ph *e;

	for (e = container_ph_list; e != NULL; e = e->next)
		if (strcmp(e->path, path) == 0)
			return e;
	return NULL;
}

/* True when e is already in held[0..n). */
static int
container_ph_held(struct container_ph **held, size_t n,
    const struct container_ph *e)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (held[i] == e)
			return 1;
	return 0;
}

static int container_ph_acquire_all(const struct render_bwrap_result *r,
    struct container_ph ***held, size_t *nheld, sbox_error *err);

/* Create (or reference) the placeholders r needs; below held_path they are
 * made relative to held_fd, the folder that was checked. */
int
container_ph_acquire(const struct render_bwrap_result *r,
    const char *held_path, int held_fd, struct container_ph ***held,
    size_t *nheld, sbox_error *err)
{
	int rc;

	*held = NULL;
	*nheld = 0;
	container_ph_held_path = held_path;
	container_ph_held_fd = held_fd;
	rc = container_ph_acquire_all(r, held, nheld, err);
	container_ph_held_path = NULL;
	container_ph_held_fd = -1;
	return rc;
}

/* container_ph_acquire's work, with the held root set. */
static int
container_ph_acquire_all(const struct render_bwrap_result *r,
    struct container_ph ***held, size_t *nheld, sbox_error *err)
{
	const struct render_bwrap_placeholder *p;
	struct container_ph *e;
	size_t i;
	int rc;

	for (i = 0; i < r->n_placeholders; i++) {
		p = &r->placeholders[i];
		if ((e = container_ph_find(p->path)) != NULL) {
			if (!container_ph_held(*held, *nheld, e) &&
			    container_ph_hold(held, nheld, e) < 0)
				goto oom;
			continue;
		}
		rc = container_ph_make(p->root, p->path, p->is_dir);
		if (rc < 0) {
			error_set_errno(err, E_SANDBOX_SETUP, errno,
			    "cannot make the placeholder %s that keeps a "
			    "protected path from being created%s", p->path,
			    errno == ELOOP ? " (a symlink is in the way)" : "");
			container_ph_release(*held, *nheld);
			*held = NULL;
			*nheld = 0;
			return -1;
		}
		if (rc == 0)
			continue; /* not ours: leave it alone */
		if ((e = calloc(1, sizeof *e)) == NULL ||
		    (e->root = strdup(p->root)) == NULL ||
		    (e->path = strdup(p->path)) == NULL) {
			if (e)
				free(e->root);
			free(e);
			container_ph_unmake(p->root, p->path);
			goto oom;
		}
		e->is_dir = p->is_dir;
		e->next = container_ph_list;
		container_ph_list = e;
		if (container_ph_hold(held, nheld, e) < 0)
			goto oom;
	}
	/* Placeholders made for other sessions that this one binds too. */
	for (e = container_ph_list; e != NULL; e = e->next) {
		if (container_ph_held(*held, *nheld, e))
			continue;
		for (i = 0; i < r->argc; i++)
			if (strcmp(r->argv[i], e->path) == 0)
				break;
		if (i < r->argc && container_ph_hold(held, nheld, e) < 0)
			goto oom;
	}
	return 0;
oom:
	container_ph_release(*held, *nheld);
	*held = NULL;
	*nheld = 0;
	return error_nomem(err);
}

/* Drop references; the last one removes the placeholder if still empty. */
void
container_ph_release(struct container_ph **held, size_t nheld)
{
	struct container_ph **pp, *e;
	size_t i;

	for (i = nheld; i-- > 0;) {
		e = held[i];
		if (--e->refs > 0)
			continue;
		container_ph_unmake(e->root, e->path);
		for (pp = &container_ph_list; *pp != NULL; pp = &(*pp)->next)
			if (*pp == e) {
				*pp = e->next;
				break;
			}
		free(e->root);
		free(e->path);
		free(e);
	}
	free(held);
}

/* Append {root, path, dir} of the held placeholders to a JSON array. */
void
container_ph_describe(struct container_ph **held, size_t nheld, json_t *out)
{
	size_t i;

	for (i = 0; i < nheld; i++)
		json_array_append_new(out, json_pack("{s:s,s:s,s:b}", "root",
		    held[i]->root, "path", held[i]->path, "dir",
		    held[i]->is_dir));
}

/* Remove placeholders listed by container_placeholders() (crash recovery). */
void
container_placeholders_remove(json_t *list)
{
	const char *root, *path;
	size_t i;

	if (!json_is_array(list))
		return;
	for (i = json_array_size(list); i-- > 0;) {
		root = json_string_value(json_object_get(json_array_get(list, i),
		    "root"));
		path = json_string_value(json_object_get(json_array_get(list, i),
		    "path"));
		if (root != NULL && path != NULL && root[0] == '/')
			container_ph_unmake(root, path);
	}
}
