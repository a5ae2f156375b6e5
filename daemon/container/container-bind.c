/* container-bind.c: every bind of a sandbox is held as a descriptor from the
 * moment sboxd checks it to the moment bwrap mounts it.
 *
 * The renderer (policy/render-bwrap.c) spells binds as `--bind SRC DST`;
 * here each SRC is opened once, walking it component by component:
 * symlinks are refused inside any folder a sandbox can write (it could have
 * planted them), and for anything but system folders and developer tools
 * they are refused everywhere. Then:
 *   - sboxd running as an ordinary user: `--bind-fd N DST` (bwrap mounts
 *     the open folder and checks device and inode after mounting);
 *   - sboxd running as root: the sandbox runs as an unprivileged host uid
 *     that cannot even reach most sources by path, so sboxd clones each
 *     held folder into a detached mount (open_tree), maps the project's
 *     owner to the sandbox's uid on the binds of the person's folders that
 *     the owner owns (project, profile folders, caches: an idmapped mount:
 *     files the sandbox creates belong to the project's owner on disk), and
 *     bwrap's child attaches them under a private /tmp in a mount namespace
 *     of its own before it drops to that uid (container-launch.c). */
#include "daemon/container/container-bind.h"
#include "daemon/container/container-standin.h"
#include "daemon/container/userns.h"
#include "daemon/container/container-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/mount.h>

#include "daemon/container/child.h"
#include "policy/path.h"
#include "policy/plan.h"
#include "policy/strv.h"

#define CONTAINER_BIND_LINKS 40   /* symlinks followed in one path */

/* One cached user namespace that maps a folder owner to the sandbox uid. */
struct container_bind_ns {
	uid_t owner, run;
	gid_t gowner, grun;
	int   fd;
};
static struct container_bind_ns container_bind_nscache[8];
static int container_bind_nsn;

/* True when path lies in one of the folders of roots (NULL-terminated). */
static int
container_bind_in(const char *path, char *const *roots)
{
	size_t i;

	for (i = 0; roots != NULL && roots[i] != NULL; i++)
		if (path_is_under(path, roots[i]))
			return 1;
	return 0;
}

/* Open path as O_PATH walking each component without following symlinks;
 * a symlink is followed only when follow is set and it does not lie in a
 * writable root. -1 with err (errno kept for the caller). */
int
container_bind_open(const char *path, int follow, char *const *writable,
    sbox_error *err)
{
	char cur[PATH_MAX], rest[PATH_MAX], target[PATH_MAX], *comp, *slash;
	int fd, nfd, links = 0, e;
	struct stat st;
	ssize_t n;

	if (path == NULL || path[0] != '/' || strlen(path) >= sizeof rest) {
		errno = EINVAL;
		return error_set(err, E_SANDBOX_SETUP, "bind source %s is not an "
		    "absolute path", path ? path : "(none)");
	}
	snprintf(rest, sizeof rest, "%s", path);
restart:
	if ((fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return error_set_errno(err, E_SANDBOX_SETUP, errno, "/");
	snprintf(cur, sizeof cur, "/");
	comp = rest + 1;
	while (*comp != '\0') {
		if ((slash = strchr(comp, '/')) != NULL)
			*slash = '\0';
		if (*comp == '\0' || strcmp(comp, ".") == 0)
			goto next;
		if (strcmp(comp, "..") == 0) {
			close(fd);
			errno = EINVAL;
			return error_set(err, E_SANDBOX_SETUP, "bind source %s "
			    "has a '..' component", path);
		}
		nfd = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 || fstat(nfd, &st) < 0) {
			e = errno;
			if (nfd >= 0)
				close(nfd);
			close(fd);
			errno = e;
			return error_set_errno(err, E_SANDBOX_SETUP, e, "%s", path);
		}
		if (strlen(cur) + strlen(comp) + 2 >= sizeof cur) {
			close(nfd);
			close(fd);
			errno = ENAMETOOLONG;
			return error_set(err, E_SANDBOX_SETUP, "%s: path too long",
			    path);
		}
		if (strcmp(cur, "/") != 0)
			strcat(cur, "/");
		strcat(cur, comp);
		if (S_ISLNK(st.st_mode)) {
			int bad = !follow || container_bind_in(cur, writable);

			n = bad ? -1 : readlinkat(nfd, "", target, sizeof target - 1);
			close(nfd);
			close(fd);
			if (bad || n <= 0 || ++links > CONTAINER_BIND_LINKS) {
				errno = ELOOP;
				return error_set(err, E_SANDBOX_SETUP, "%s is reached "
				    "through a symlink (%s)%s: name the real folder in "
				    "the config, or remove the link", path, cur, bad &&
				    follow ? ", inside a folder a sandbox can write" :
				    "");
			}
			target[n] = '\0';
			{
				char *dir = strdup(cur), *res, *s2;

				if (dir == NULL)
					return error_nomem(err);
				if ((s2 = strrchr(dir, '/')) != NULL)
					s2[s2 == dir ? 1 : 0] = '\0';
				res = path_resolve(dir, target);
				free(dir);
				if (res == NULL || strlen(res) + (slash ? strlen(slash + 1)
				    : 0) + 2 >= sizeof rest) {
					free(res);
					errno = ENAMETOOLONG;
					return error_set(err, E_SANDBOX_SETUP, "%s: cannot "
					    "follow the symlink %s", path, cur);
				}
				snprintf(target, sizeof target, "%s%s%s", res,
				    slash ? "/" : "", slash ? slash + 1 : "");
				free(res);
			}
			snprintf(rest, sizeof rest, "%s", target);
			goto restart;
		}
		close(fd);
		fd = nfd;
next:
		if (slash == NULL)
			break;
		comp = slash + 1;
	}
	return fd;
}

/* A user namespace mapping owner (and gowner) to the sandbox's run ids,
 * made once per pair (a child process unshares, sboxd writes its maps). */
static int
container_bind_userns(uid_t owner, gid_t gowner, uid_t run, gid_t grun,
    sbox_error *err)
{
	char path[64], map[64];
	int p[2], fd, i, ok = 1;
	pid_t pid;
	char b;

	for (i = 0; i < container_bind_nsn; i++) {
		struct container_bind_ns *c = &container_bind_nscache[i];
		if (c->owner == owner && c->gowner == gowner && c->run == run &&
		    c->grun == grun)
			return c->fd;
	}
	if (pipe2(p, O_CLOEXEC) < 0)
		return error_set_errno(err, E_SANDBOX_SETUP, errno, "pipe");
	if ((pid = fork()) == 0) {
		close(p[1]);
		if (unshare(CLONE_NEWUSER) < 0)
			_exit(1);
		if (read(p[0], &b, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return error_set_errno(err, E_SANDBOX_SETUP, errno, "fork");
	}
	/* wait until the child is in its namespace */
	for (i = 0; i < 2000; i++) {
		char a[64], c2[64];
		ssize_t n1, n2;
		snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
		n1 = readlink(path, a, sizeof a - 1);
		n2 = readlink("/proc/self/ns/user", c2, sizeof c2 - 1);
		if (n1 > 0 && n2 > 0 && (n1 != n2 || memcmp(a, c2, (size_t)n1)))
			break;
		usleep(500);
	}
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)owner, (unsigned)run);
	snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0 ||
	    write(fd, map, strlen(map)) != (ssize_t)strlen(map))
		ok = 0;
	if (fd >= 0)
		close(fd);
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gowner, (unsigned)grun);
	snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
	if (ok && ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0 ||
	    write(fd, map, strlen(map)) != (ssize_t)strlen(map)))
		ok = 0;
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
	fd = ok ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	close(p[1]);
	child_reap_now(pid, 1000);
	if (fd < 0) {
		struct userns_state st;
		char why[900];

		/* refused user namespaces say what refuses them */
		userns_read(&st);
		userns_probe(&st);
		if (!userns_explain(&st, NULL, why, sizeof why))
			return error_set(err, E_SANDBOX_UNAVAILABLE, "the sandbox "
			    "cannot start: %s", why);
		return error_set(err, E_SANDBOX_SETUP, "cannot make the user "
		    "namespace that maps uid %u to the sandbox's uid %u",
		    (unsigned)owner, (unsigned)run);
	}
	{
		/* cache it; a full cache gives up its oldest entry */
		struct container_bind_ns *c;
		int n = (int)(sizeof container_bind_nscache /
		    sizeof container_bind_nscache[0]);

		if (container_bind_nsn == n) {
			close(container_bind_nscache[0].fd);
			memmove(container_bind_nscache, container_bind_nscache + 1,
			    (size_t)(n - 1) * sizeof *c);
			container_bind_nsn--;
		}
		c = &container_bind_nscache[container_bind_nsn++];
		c->owner = owner;
		c->gowner = gowner;
		c->run = run;
		c->grun = grun;
		c->fd = fd;
	}
	return fd;
}

/* Append a string (copied) to a growing argv; -1 on ENOMEM. */
static int
container_bind_push(char ***v, size_t *n, size_t *cap, const char *s)
{
	char **nv;

	if (*n + 2 > *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if ((nv = realloc(*v, *cap * sizeof *nv)) == NULL)
			return -1;
		*v = nv;
	}
	if (((*v)[*n] = strdup(s)) == NULL)
		return -1;
	(*v)[++*n] = NULL;
	return 0;
}

/* Remember one held descriptor (a folder fd, or a detached tree as root). */
static int
container_bind_keep(struct container_binds *b, int fd, int is_dir)
{
	int *nf, *nd;

	nf = realloc(b->fds, (b->n + 1) * sizeof *nf);
	if (nf != NULL)
		b->fds = nf;
	nd = realloc(b->is_dir, (b->n + 1) * sizeof *nd);
	if (nd != NULL)
		b->is_dir = nd;
	if (nf == NULL || nd == NULL)
		return -1;
	b->fds[b->n] = fd;
	b->is_dir[b->n] = is_dir;
	b->n++;
	return 0;
}

/* Hold one bind source: the descriptor bwrap gets (user) or the detached,
 * maybe idmapped tree the child attaches (root). -2: a -try bind whose
 * source is missing (skip it). */
static int
container_bind_one(const char *src, const char *dst, int try,
    const struct container_ids *ids, struct container_binds *b,
    sbox_error *err)
{
	int fd, tree, follow;
	struct stat st;

	follow = !container_bind_in(dst, ids->strict_roots);
	if (ids->held_path != NULL && ids->held_fd >= 0 &&
	    strcmp(src, ids->held_path) == 0) {
		if ((fd = fcntl(ids->held_fd, F_DUPFD_CLOEXEC, 0)) < 0)
			return error_set_errno(err, E_SANDBOX_SETUP, errno, "%s",
			    src);
	} else if ((fd = container_bind_open(src, follow, ids->writable_roots,
	    err)) < 0) {
		if (try && errno == ENOENT)
			return -2;
		return error_context(err, "holding a folder of the sandbox");
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return error_set_errno(err, E_SANDBOX_SETUP, errno, "%s", src);
	}
	if (ids->run_uid == (uid_t)-1) {
		if (container_bind_keep(b, fd, S_ISDIR(st.st_mode)) < 0) {
			close(fd);
			return error_nomem(err);
		}
		return 0;
	}
	tree = (int)syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	close(fd);
	if (tree < 0)
		return error_set_errno(err, E_SANDBOX_SETUP, errno, "cannot "
		    "clone the mount of %s", src);
	if (container_bind_in(src, ids->idmap_roots) && st.st_uid == ids->owner &&
	    ids->owner != ids->run_uid) {
		struct mount_attr a;
		int ns = container_bind_userns(ids->owner, ids->gowner,
		    ids->run_uid, ids->run_gid, err);

		memset(&a, 0, sizeof a);
		a.attr_set = MOUNT_ATTR_IDMAP;
		a.userns_fd = (unsigned)ns;
		if (ns < 0 || syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH |
		    AT_RECURSIVE, &a, sizeof a) < 0) {
			int e = errno;
			close(tree);
			if (ns < 0)
				return -1;
			return error_set_errno(err, E_SANDBOX_SETUP, e, "cannot map "
			    "the owner of %s (uid %u) to the sandbox's uid %u "
			    "(idmapped mount): the filesystem may not support it; "
			    "run sboxd as that user instead", src,
			    (unsigned)ids->owner, (unsigned)ids->run_uid);
		}
	}
	if (container_bind_keep(b, tree, S_ISDIR(st.st_mode)) < 0) {
		close(tree);
		return error_nomem(err);
	}
	return 0;
}

/* True for bwrap's bind options; *ro and *try say which. */
static int
container_bind_is_bind(const char *opt, int *ro, int *try)
{
	static const char *const names[] = { "--bind", "--ro-bind",
	    "--bind-try", "--ro-bind-try", NULL };
	int i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(opt, names[i]) == 0) {
			*ro = i == 1 || i == 3;
			*try = i >= 2;
			return 1;
		}
	return 0;
}

/* Rewrite bwrap's arguments so that every bind names a held descriptor. */
int
container_bind_hold(char ***argv, size_t *argc, const struct container_ids *ids,
    struct container_binds *b, sbox_error *err)
{
	char **in = *argv, **out = NULL, num[32];
	size_t i, n = 0, cap = 0;
	int ro, try, rc;

	memset(b, 0, sizeof *b);
	b->base_fd = ids->fd_base;
	for (i = 0; i < *argc; i++) {
		if (!container_bind_is_bind(in[i], &ro, &try) || i + 2 >= *argc ||
		    container_standin_is_stage(in[i + 1])) {
			/* not a bind, or one of the stage the launcher mounts
			 * (container-standin.c): bwrap binds it by its path */
			if (container_bind_push(&out, &n, &cap, in[i]) < 0)
				goto nomem;
			continue;
		}
		rc = container_bind_one(in[i + 1], in[i + 2], try, ids, b, err);
		if (rc == -2) {
			i += 2;
			continue;
		}
		if (rc < 0)
			goto fail;
		if (ids->run_uid == (uid_t)-1) {
			snprintf(num, sizeof num, "%d", ids->fd_base + (int)b->n - 1);
			if (container_bind_push(&out, &n, &cap, ro ? "--ro-bind-fd" :
			    "--bind-fd") < 0)
				goto nomem;
		} else {
			snprintf(num, sizeof num, "/tmp/%zu", b->n - 1);
			if (container_bind_push(&out, &n, &cap, ro ? "--ro-bind" :
			    "--bind") < 0)
				goto nomem;
		}
		if (container_bind_push(&out, &n, &cap, num) < 0 ||
		    container_bind_push(&out, &n, &cap, in[i + 2]) < 0)
			goto nomem;
		i += 2;
	}
	for (i = 0; i < *argc; i++)
		free(in[i]);
	free(in);
	*argv = out;
	*argc = n;
	b->staged = ids->run_uid != (uid_t)-1;
	b->run_uid = ids->run_uid;
	b->run_gid = ids->run_gid;
	return 0;
nomem:
	error_nomem(err);
fail:
	for (i = 0; i < n; i++)
		free(out[i]);
	free(out);
	container_bind_free(b);
	return -1;
}

/* Fill the root lists of ids from a plan: the folders it lets a sandbox
 * write, the destinations whose sources may hold no symlink (all but
 * system folders and tools), and those idmapped as root (the project and
 * the profile's folders, with everything bound inside them). */
int
container_bind_roots(const struct plan *p, struct container_ids *ids,
    sbox_error *err)
{
	const struct plan_mount *m;
	int ok = 1, user;
	size_t i;

	ids->writable_roots = ids->strict_roots = ids->idmap_roots = NULL;
	for (i = 0; i < p->n_mounts; i++) {
		m = &p->mounts[i];
		if (m->kind != PLAN_MOUNT_RO_BIND && m->kind != PLAN_MOUNT_RW_BIND)
			continue;
		if (m->kind == PLAN_MOUNT_RW_BIND && strv_add_unique(
		    (char ***)&ids->writable_roots, m->dst) < 0)
			ok = 0;
		if (m->rule != NULL && strcmp(m->rule, PLAN_RULE_SYSTEM) != 0 &&
		    strcmp(m->rule, PLAN_RULE_TOOLS) != 0 && strv_add_unique(
		    (char ***)&ids->strict_roots, m->dst) < 0)
			ok = 0;
		user = m->rule != NULL && (strcmp(m->rule, PLAN_RULE_PROJECT) == 0 ||
		    strcmp(m->rule, PLAN_RULE_PROFILE_RW) == 0 ||
		    strcmp(m->rule, PLAN_RULE_PROFILE_RO) == 0 ||
		    strcmp(m->rule, PLAN_RULE_CACHES) == 0 ||
		    strcmp(m->rule, PLAN_RULE_GITDIR) == 0);
		if (user && strv_add_unique((char ***)&ids->idmap_roots,
		    m->dst) < 0)
			ok = 0;
	}
	if (!ok) {
		container_bind_roots_free(ids);
		return error_nomem(err);
	}
	return 0;
}

/* Free the lists container_bind_roots filled. */
void
container_bind_roots_free(struct container_ids *ids)
{
	strv_free((char **)ids->writable_roots);
	strv_free((char **)ids->strict_roots);
	strv_free((char **)ids->idmap_roots);
	ids->writable_roots = ids->strict_roots = ids->idmap_roots = NULL;
}

/* The first id of name's range in a subordinate-id file, or -1. */
static long
container_bind_subid(const char *file, const char *name)
{
	char line[256], *c1, *c2;
	long v = -1;
	FILE *f;

	if ((f = fopen(file, "re")) == NULL)
		return -1;
	while (v < 0 && fgets(line, sizeof line, f) != NULL) {
		if ((c1 = strchr(line, ':')) == NULL ||
		    (c2 = strchr(c1 + 1, ':')) == NULL)
			continue;
		*c1 = '\0';
		if (strcmp(line, name) == 0) {
			v = strtol(c1 + 1, NULL, 10);
			if (v <= 0 || v >= 0x7fffffffL)
				v = -1;
		}
	}
	fclose(f);
	return v;
}

/* The host uid and gid a root sboxd runs sandboxes as: the first of the
 * subordinate range of the user "sbox" (/etc/subuid, /etc/subgid), else
 * CONTAINER_BIND_UID, a uid that owns nothing on the host. */
void
container_bind_sandbox_ids(uid_t *uid, gid_t *gid)
{
	long u = container_bind_subid("/etc/subuid", "sbox");
	long g = container_bind_subid("/etc/subgid", "sbox");

	*uid = u > 0 ? (uid_t)u : CONTAINER_BIND_UID;
	*gid = g > 0 ? (gid_t)g : (u > 0 ? (gid_t)u : CONTAINER_BIND_UID);
}

/* Close every held descriptor. */
void
container_bind_free(struct container_binds *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (b->fds[i] >= 0)
			close(b->fds[i]);
	free(b->fds);
	free(b->is_dir);
	memset(b, 0, sizeof *b);
}
