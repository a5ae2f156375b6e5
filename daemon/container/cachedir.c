/* cachedir.c: sbox's own package-cache folders on disk: making them for a
 * session, sizing and clearing them. Everything walks from held
 * descriptors (openat, fstatat with AT_SYMLINK_NOFOLLOW, unlinkat) and
 * never follows a link a sandbox planted. See cachedir.h. */
#include "daemon/container/cachedir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/log.h"
#include "policy/caches.h"
#include "policy/plan.h"
#include "policy/profile.h"

#define CACHEDIR_OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Open the folder path: sboxd's own (its state folder, the caches folder),
 * which no sandbox can write, so links on the way are the administrator's
 * and followed. Below it every walk refuses links. */
int
cachedir_open(const char *path)
{
	if (path == NULL || path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Make (or take) the folder name in dfd: mode, owner; its descriptor, or
 * -1 with err. */
static int
cachedir_mkdir(int dfd, const char *name, mode_t mode, uid_t uid, gid_t gid,
    int chown_it, sbox_error *err)
{
	struct stat st;
	int fd;

	if (mkdirat(dfd, name, mode) == -1 && errno != EEXIST) {
		error_set_errno(err, E_IO, errno, "cannot create the cache folder "
		    "%s", name);
		return -1;
	}
	if ((fd = openat(dfd, name, CACHEDIR_OPEN_DIR)) < 0) {
		error_set_errno(err, E_IO, errno, "cannot open the cache folder "
		    "%s (a link or a file is in the way)", name);
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISDIR(st.st_mode) ||
	    (chown_it && (st.st_uid != uid || st.st_gid != gid) &&
	    fchown(fd, uid, gid) == -1) ||
	    ((st.st_mode & 07777) != mode && fchmod(fd, mode) == -1)) {
		error_set_errno(err, E_IO, errno, "cannot set the owner and "
		    "mode of the cache folder %s", name);
		close(fd);
		return -1;
	}
	return fd;
}

/* Make <state_dir>/caches/<profile>/<tree> for every tree of the table. */
int
cachedir_prepare(const char *state_dir, const char *profile, uid_t uid,
    gid_t gid, sbox_error *err)
{
	const struct cache_tree *t;
	int sfd, bfd, pfd, tfd;
	char *root;

	if ((root = caches_profile_root(state_dir, profile, err)) == NULL)
		return -1;
	free(root);
	if ((sfd = cachedir_open(state_dir)) < 0)
		return error_set_errno(err, E_IO, errno, "cannot open the state "
		    "folder %s", state_dir);
	bfd = cachedir_mkdir(sfd, "caches", 0711, 0, 0, 0, err);
	close(sfd);
	if (bfd < 0)
		return error_context(err, "sbox's package caches");
	pfd = cachedir_mkdir(bfd, profile, 0700, uid, gid, 1, err);
	close(bfd);
	if (pfd < 0)
		return error_context(err, "package caches of profile %s", profile);
	for (t = caches_table; t->name != NULL; t++) {
		if ((tfd = cachedir_mkdir(pfd, t->name, 0700, uid, gid, 1,
		    err)) < 0) {
			close(pfd);
			return error_context(err, "package caches of profile %s",
			    profile);
		}
		close(tfd);
	}
	close(pfd);
	return 0;
}

/* Read the project file of the folder dfd into buf; 0, or -1 with errno
 * (ENOENT: none). */
static int
cachedir_read_project(int dfd, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	if ((fd = openat(dfd, CACHES_PROJECT_FILE, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC | O_NONBLOCK)) < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Take the folder of project in the projects folder dfd: <key>, or
 * <key>-N when <key> names another project; made with its project file
 * (sboxd's, 0644) when new. Its name in out; its descriptor, or -1. */
static int
cachedir_project_dir(int dfd, const char *project, char *out, size_t size,
    sbox_error *err)
{
	char key[17], have[PATH_MAX + 2];
	size_t len = strlen(project);
	int n, fd, pf;

	caches_project_key(project, key);
	for (n = 0; n < 16; n++) {
		if (n == 0)
			snprintf(out, size, "%s", key);
		else
			snprintf(out, size, "%s-%d", key, n);
		if ((fd = cachedir_mkdir(dfd, out, 0711, 0, 0, 0, err)) < 0)
			return -1;
		if (cachedir_read_project(fd, have, sizeof have) == 0) {
			if (strcmp(have, project) == 0)
				return fd;
			close(fd);
			continue;	/* another project with the same key */
		}
		if (errno != ENOENT || (pf = openat(fd, CACHES_PROJECT_FILE,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0644)) < 0) {
			error_set_errno(err, E_IO, errno, "cannot record the "
			    "project of the cache folder %s", out);
			close(fd);
			return -1;
		}
		if (write(pf, project, len) != (ssize_t)len ||
		    write(pf, "\n", 1) != 1) {
			error_set_errno(err, E_IO, errno, "cannot record the "
			    "project of the cache folder %s", out);
			close(pf);
			unlinkat(fd, CACHES_PROJECT_FILE, 0);
			close(fd);
			return -1;
		}
		close(pf);
		return fd;
	}
	error_set(err, E_IO, "too many projects share the cache key %s", key);
	return -1;
}

/* Make the cache root of project under profile's:
 * <state_dir>/caches/<profile>/projects/<key>/<tree>...; *root its path. */
static int
cachedir_prepare_project(const char *state_dir, const char *profile,
    const char *project, uid_t uid, gid_t gid, char **root, sbox_error *err)
{
	const struct cache_tree *t;
	int sfd, bfd, pfd, jfd, kfd, tfd;
	char name[40], *proot;

	*root = NULL;
	if (project == NULL || project[0] != '/' || strlen(project) > PATH_MAX)
		return error_set(err, E_INTERNAL, "caches: no project folder");
	if ((proot = caches_profile_root(state_dir, profile, err)) == NULL)
		return -1;
	if ((sfd = cachedir_open(state_dir)) < 0) {
		free(proot);
		return error_set_errno(err, E_IO, errno, "cannot open the state "
		    "folder %s", state_dir);
	}
	bfd = cachedir_mkdir(sfd, "caches", 0711, 0, 0, 0, err);
	close(sfd);
	pfd = bfd < 0 ? -1 : cachedir_mkdir(bfd, profile, 0700, uid, gid, 1,
	    err);
	if (bfd >= 0)
		close(bfd);
	jfd = pfd < 0 ? -1 : cachedir_mkdir(pfd, CACHES_PROJECTS, 0711, 0, 0, 0,
	    err);
	if (pfd >= 0)
		close(pfd);
	kfd = jfd < 0 ? -1 : cachedir_project_dir(jfd, project, name,
	    sizeof name, err);
	if (jfd >= 0)
		close(jfd);
	if (kfd < 0) {
		free(proot);
		return error_context(err, "package caches of profile %s for %s",
		    profile, project);
	}
	for (t = caches_table; t->name != NULL; t++) {
		if ((tfd = cachedir_mkdir(kfd, t->name, 0700, uid, gid, 1,
		    err)) < 0) {
			close(kfd);
			free(proot);
			return error_context(err, "package caches of profile %s "
			    "for %s", profile, project);
		}
		close(tfd);
	}
	close(kfd);
	if (asprintf(root, "%s/%s/%s", proot, CACHES_PROJECTS, name) == -1) {
		*root = NULL;
		free(proot);
		return error_nomem(err);
	}
	free(proot);
	return 0;
}

static void cachedir_measure_at(int, const char *, dev_t, int,
    struct cachedir_usage *);
static void cachedir_clear_at(int, const char *, dev_t, int, int,
    struct cachedir_usage *);

/* The cache root a new session of profile p binds (made, owned by uid/gid);
 * a session made from inside a sandbox gets its parent's; *root NULL for
 * none. */
int
cachedir_session_root(const char *state_dir, const struct profile *p,
    const char *project, const struct plan *parent, uid_t uid, gid_t gid,
    char **root, sbox_error *err)
{
	const struct plan_mount *m;
	char *slash;
	size_t i;

	*root = NULL;
	if (!p->sandboxed || !p->project_access)
		return 0;
	if (parent != NULL && parent->sandboxed) {
		/* narrow on plans: at most the caches its parent writes */
		for (i = 0; i < parent->n_mounts; i++) {
			m = &parent->mounts[i];
			if (m->kind != PLAN_MOUNT_RW_BIND || m->rule == NULL ||
			    strcmp(m->rule, PLAN_RULE_CACHES) != 0 ||
			    m->src == NULL || strcmp(m->src, m->dst) == 0)
				continue;
			if ((*root = strdup(m->src)) == NULL)
				return error_nomem(err);
			if ((slash = strrchr(*root, '/')) != NULL && slash != *root)
				*slash = '\0';
			return 0;
		}
		return 0;
	}
	if (!p->caches_shared)
		return cachedir_prepare_project(state_dir, p->name, project, uid,
		    gid, root, err);
	if (cachedir_prepare(state_dir, p->name, uid, gid, err) == -1)
		return -1;
	if ((*root = caches_profile_root(state_dir, p->name, err)) == NULL)
		return -1;
	return 0;
}

/* What a profile's sessions see of package caches (sandbox.show): each
 * tree, where its writes go (host paths only for a host client). */
json_t *
cachedir_describe(const char *state_dir, const struct profile *p, int inside)
{
	const struct cache_tree *t;
	json_t *trees, *o;
	char *root, *proot;
	int n;

	if (!p->sandboxed || !p->project_access)
		return json_pack("{s:[], s:s}", "trees", "note", p->sandboxed ?
		    "no package caches" : "not sandboxed: the host's own caches");
	if ((root = caches_profile_root(state_dir, p->name, NULL)) == NULL)
		return NULL;
	if (!p->caches_shared) {	/* one folder per project below */
		proot = root;
		n = asprintf(&root, "%s/%s/<project>", proot, CACHES_PROJECTS);
		free(proot);
		if (n == -1)
			return NULL;
	}
	trees = json_array();
	for (t = caches_table; t->name != NULL; t++)
		json_array_append_new(trees, inside ? json_pack("{s:s+, s:s}",
		    "path", "~/", t->rel, "tools", t->tools) :
		    json_pack("{s:s+, s:s, s:s++}", "path", "~/", t->rel, "tools",
		    t->tools, "writes_to", root, "/", t->name));
	o = json_pack("{s:o, s:s, s:s, s:s, s:s, s:I}", "trees", trees,
	    "shared_with", p->name, "scope", p->caches_shared ? "profile" :
	    "project", "sharing", p->caches_shared ? "every project of the "
	    "profile (\"caches\": \"profile\")" : "sessions of the same "
	    "project and profile", "host_caches", "never visible; nothing "
	    "written here is read by the host", "limit_bytes",
	    (json_int_t)caches_limit_bytes(p));
	if (o != NULL && !inside)
		json_object_set_new(o, "root", json_string(root));
	free(root);
	return o;
}

/* Size of the folder fd (not itself), depth levels below the tree. */
static void
cachedir_measure_dir(int fd, dev_t dev, int depth, struct cachedir_usage *u)
{
	struct dirent *de;
	DIR *d;

	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		u->skipped++;
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (depth >= CACHEDIR_MAX_DEPTH) {
			u->skipped++;
			continue;
		}
		cachedir_measure_at(dirfd(d), de->d_name, dev, depth, u);
	}
	closedir(d);
}

/* Add what entry name of dfd (depth levels down) holds to u. */
static void
cachedir_measure_at(int dfd, const char *name, dev_t dev, int depth,
    struct cachedir_usage *u)
{
	struct stat st;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    st.st_dev != dev) {
		u->skipped++;
		return;
	}
	u->bytes += (uint64_t)st.st_blocks * 512;
	if (!S_ISDIR(st.st_mode)) {
		u->files++;
		u->links += S_ISLNK(st.st_mode);
		return;
	}
	u->dirs++;
	if ((fd = openat(dfd, name, CACHEDIR_OPEN_DIR)) < 0) {
		u->skipped++;
		return;
	}
	cachedir_measure_dir(fd, dev, depth + 1, u);
}

/* Add what entry name of dfd holds to u. */
void
cachedir_measure(int dfd, const char *name, dev_t dev, struct cachedir_usage *u)
{
	cachedir_measure_at(dfd, name, dev, 0, u);
}

/* Make the folder name of dfd readable, writable and searchable by its
 * owner when it is not (Go marks its module cache read-only); never
 * through a link. */
static void
cachedir_unlock(int dfd, const char *name, const struct stat *st)
{
	if ((st->st_mode & 0700) != 0700)
		fchmodat(dfd, name, (st->st_mode & 07777) | 0700,
		    AT_SYMLINK_NOFOLLOW);
}

/* Remove the contents of the folder fd (closed here). Entries removed
 * while reading a folder may hide others from readdir: a pass that removed
 * everything it saw is followed by one more (only then, so that a nest of
 * folders that cannot all go is never walked again). */
static void
cachedir_clear_dir(int fd, dev_t dev, int depth, struct cachedir_usage *f)
{
	struct cachedir_usage pass;
	struct dirent *de;
	int passes = 0;
	DIR *d;

	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		f->skipped++;
		return;
	}
	do {
		memset(&pass, 0, sizeof pass);
		rewinddir(d);
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			if (depth >= CACHEDIR_MAX_DEPTH) {
				pass.skipped++;
				continue;
			}
			cachedir_clear_at(dirfd(d), de->d_name, dev, depth, 0, &pass);
		}
		f->bytes += pass.bytes;
		f->files += pass.files;
		f->dirs += pass.dirs;
		f->links += pass.links;
	} while (pass.skipped == 0 && pass.files + pass.dirs > 0 &&
	    ++passes < 2);
	f->skipped += pass.skipped;
	closedir(d);
}

/* Remove what folder (or file) name of dfd (depth levels down) holds; the
 * folder itself too unless keep. */
static void
cachedir_clear_at(int dfd, const char *name, dev_t dev, int depth, int keep,
    struct cachedir_usage *freed)
{
	struct stat st;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    st.st_dev != dev) {
		freed->skipped++;
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		/* a link, a hard link's name, a socket: the name goes, never
		 * what it leads to */
		if (unlinkat(dfd, name, 0) == -1) {
			freed->skipped++;
			return;
		}
		freed->bytes += (uint64_t)st.st_blocks * 512;
		freed->files++;
		freed->links += S_ISLNK(st.st_mode);
		return;
	}
	cachedir_unlock(dfd, name, &st);
	if ((fd = openat(dfd, name, CACHEDIR_OPEN_DIR)) < 0) {
		freed->skipped++;
		return;
	}
	cachedir_clear_dir(fd, dev, depth + 1, freed);
	if (keep)
		return;
	if (unlinkat(dfd, name, AT_REMOVEDIR) == -1) {
		if (errno != ENOTEMPTY)
			log_warn("cache: cannot remove %s: %s", name,
			    strerror(errno));
		freed->skipped++;
		return;
	}
	freed->bytes += (uint64_t)st.st_blocks * 512;
	freed->dirs++;
}

/* Remove what name of dfd holds (the folder itself too unless keep). */
void
cachedir_clear(int dfd, const char *name, dev_t dev, int keep,
    struct cachedir_usage *freed)
{
	cachedir_clear_at(dfd, name, dev, 0, keep, freed);
}
