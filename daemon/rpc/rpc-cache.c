/* rpc-cache.c: cache.list and cache.clear: sbox's own package caches
 * (policy/caches.h), per profile and project under <state_dir>/caches/:
 * their sizes, and freeing them. Sizes and removal never follow a link a sandbox
 * planted (daemon/container/cachedir.h). A sandbox decides how big a tree is, so the
 * walk runs in a child process and the event loop never waits for it.
 * Host clients only. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon/container/cachedir.h"
#include "daemon/container/child.h"
#include "daemon/container/diskguard.h"
#include "daemon/log.h"
#include "daemon/rpc/rpc.h"
#include "daemon/sboxd.h"
#include "policy/caches.h"
#include "policy/config.h"
#include "policy/profile.h"
#include "policy/strv.h"

#define RPC_CACHE_MAX_REPLY (16 * 1024 * 1024)

/* One walk running in a child: its output and its exit. */
struct rpc_cache_job {
	struct rpc_call *call;
	struct event    *ev;
	char            *buf;
	size_t           len, cap;
	int              fd, io_done, reaped, status;
	int              clear;     /* cache.clear: measure again first */
};

/* qsort order of names. */
static int
rpc_cache_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The profiles to work on: the one asked for, else every folder of the
 * caches folder bfd whose name is a profile name (sorted). NULL with err. */
static char **
rpc_cache_profiles(int bfd, const char *only, sbox_error *err)
{
	char **names = NULL;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if (only != NULL) {
		if (strv_add_unique(&names, only) == -1)
			error_nomem(err);
		return names;
	}
	if ((names = calloc(1, sizeof *names)) == NULL) {
		error_nomem(err);
		return NULL;
	}
	if (bfd < 0 || (fd = dup(bfd)) < 0)
		return names;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return names;
	}
	while ((de = readdir(d)) != NULL) {
		if (!profile_name_valid(de->d_name) || fstatat(bfd, de->d_name,
		    &st, AT_SYMLINK_NOFOLLOW) == -1 || !S_ISDIR(st.st_mode))
			continue;
		if (strv_add_unique(&names, de->d_name) == -1) {
			closedir(d);
			strv_free(names);
			error_nomem(err);
			return NULL;
		}
	}
	closedir(d);
	qsort(names, strv_len(names), sizeof *names, rpc_cache_cmp);
	return names;
}

/* Sizes of the trees of one cache root (pfd may be -1): of a profile
 * (project NULL) or of one project of it. */
static json_t *
rpc_cache_profile_usage(int pfd, const char *profile, const char *project,
    const char *root)
{
	const struct cache_tree *t;
	struct cachedir_usage all = { 0 }, u;
	json_t *trees = json_array(), *o;
	struct stat st;
	dev_t dev = 0;

	if (pfd >= 0 && fstat(pfd, &st) == 0)
		dev = st.st_dev;
	for (t = caches_table; t->name != NULL; t++) {
		memset(&u, 0, sizeof u);
		if (pfd >= 0 && fstatat(pfd, t->name, &st, AT_SYMLINK_NOFOLLOW) ==
		    0 && S_ISDIR(st.st_mode)) {
			cachedir_measure(pfd, t->name, dev, &u);
			if (u.dirs > 0) {	/* what it holds, not itself */
				u.dirs--;
				u.bytes -= (uint64_t)st.st_blocks * 512;
			}
		}
		all.bytes += u.bytes;
		all.files += u.files;
		all.skipped += u.skipped;
		json_array_append_new(trees, json_pack("{s:s, s:s+, s:s, s:I, "
		    "s:I, s:I, s:I}", "name", t->name, "path", "~/", t->rel,
		    "tools", t->tools, "bytes", (json_int_t)u.bytes,
		    "files", (json_int_t)u.files, "links", (json_int_t)u.links,
		    "skipped", (json_int_t)u.skipped));
	}
	o = json_pack("{s:s, s:s?, s:s, s:b, s:I, s:I, s:I, s:o}", "profile",
	    profile, "project", project, "path", root, "exists", pfd >= 0,
	    "bytes", (json_int_t)all.bytes, "files", (json_int_t)all.files,
	    "skipped", (json_int_t)all.skipped, "trees", trees);
	return o;
}

/* Empty the cache root dfd: every tree kept (a live session's mount stays
 * valid) but emptied, the project file kept, the projects folder handled
 * by the caller, anything else removed. */
static void
rpc_cache_root_clear(int dfd, int project_root, struct cachedir_usage *f)
{
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;
	int fd;

	if (dfd >= 0 && fstat(dfd, &st) == 0 && (fd = dup(dfd)) >= 0 &&
	    (d = fdopendir(fd)) == NULL)
		close(fd);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    (project_root && strcmp(de->d_name, CACHES_PROJECT_FILE) ==
		    0) || (!project_root && strcmp(de->d_name, CACHES_PROJECTS) ==
		    0))
			continue;
		cachedir_clear(dfd, de->d_name, st.st_dev,
		    caches_find(de->d_name) != NULL, f);
	}
	closedir(d);
}

/* The project of the cache root kfd (its project file), in buf; NULL when
 * it has none. */
static const char *
rpc_cache_project_of(int kfd, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	if ((fd = openat(kfd, CACHES_PROJECT_FILE, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC | O_NONBLOCK)) < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] == '/' ? buf : NULL;
}

/* List (clear = 0) or clear one profile's caches into list: its shared
 * root (unless only is set) and the root of each project (only: just that
 * one). Returns the bytes counted or freed. */
static json_int_t
rpc_cache_profile(int bfd, const char *profile, const char *root,
    const char *only, int clear, json_t *list)
{
	struct cachedir_usage f;
	char proj[PATH_MAX + 2], *path;
	const char *pj;
	struct dirent *de;
	json_int_t total = 0;
	json_t *o;
	DIR *d = NULL;
	int pfd, jfd, kfd;

	pfd = bfd < 0 ? -1 : openat(bfd, profile, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (only == NULL) {
		memset(&f, 0, sizeof f);
		if (clear)
			rpc_cache_root_clear(pfd, 0, &f);
		o = clear ? json_pack("{s:s, s:n, s:I, s:I, s:I}", "profile",
		    profile, "project", "freed_bytes", (json_int_t)f.bytes,
		    "removed", (json_int_t)(f.files + f.dirs), "left",
		    (json_int_t)f.skipped) :
		    rpc_cache_profile_usage(pfd, profile, NULL, root);
		total += json_integer_value(json_object_get(o, clear ?
		    "freed_bytes" : "bytes"));
		json_array_append_new(list, o);
	}
	jfd = pfd < 0 ? -1 : openat(pfd, CACHES_PROJECTS, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (jfd >= 0 && (d = fdopendir(jfd)) == NULL)
		close(jfd);
	while (d != NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || (kfd = openat(dirfd(d), de->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;
		pj = rpc_cache_project_of(kfd, proj, sizeof proj);
		if (pj == NULL || (only != NULL && strcmp(pj, only) != 0) ||
		    asprintf(&path, "%s/%s/%s", root, CACHES_PROJECTS,
		    de->d_name) == -1) {
			close(kfd);
			continue;
		}
		memset(&f, 0, sizeof f);
		if (clear)
			rpc_cache_root_clear(kfd, 1, &f);
		o = clear ? json_pack("{s:s, s:s, s:I, s:I, s:I}", "profile",
		    profile, "project", pj, "freed_bytes", (json_int_t)f.bytes,
		    "removed", (json_int_t)(f.files + f.dirs), "left",
		    (json_int_t)f.skipped) :
		    rpc_cache_profile_usage(kfd, profile, pj, path);
		total += json_integer_value(json_object_get(o, clear ?
		    "freed_bytes" : "bytes"));
		json_array_append_new(list, o);
		free(path);
		close(kfd);
	}
	if (d != NULL)
		closedir(d);
	if (pfd >= 0)
		close(pfd);
	return total;
}

/* Run list (clear = 0) or clear (1) over the profiles (and projects)
 * asked for. */
static int
rpc_cache_run(json_t *params, int clear, json_t **result, sbox_error *err)
{
	const char *only = json_string_value(json_object_get(params, "profile"));
	const char *pq = json_string_value(json_object_get(params, "project"));
	json_t *list;
	json_int_t total = 0;
	char *base, *root, *project = NULL;
	char **names;
	size_t i;
	int bfd;

	if (pq != NULL && (pq[0] != '/' || (project = realpath(pq, NULL)) ==
	    NULL))
		return error_set_errno(err, E_INVALID_PARAMS, pq[0] == '/' ?
		    errno : EINVAL, "project %s", pq);
	if ((base = caches_base(sboxd.state_dir)) == NULL) {
		free(project);
		return error_nomem(err);
	}
	bfd = cachedir_open(base);
	if (bfd < 0 && errno != ENOENT) {
		error_set_errno(err, E_IO, errno, "cannot open %s", base);
		free(base);
		free(project);
		return -1;
	}
	if ((names = rpc_cache_profiles(bfd, only, err)) == NULL) {
		free(base);
		free(project);
		if (bfd >= 0)
			close(bfd);
		return -1;
	}
	list = json_array();
	for (i = 0; names[i] != NULL; i++) {
		if ((root = caches_profile_root(sboxd.state_dir, names[i],
		    err)) == NULL)
			break;
		total += rpc_cache_profile(bfd, names[i], root, project, clear,
		    list);
		free(root);
	}
	if (bfd >= 0)
		close(bfd);
	free(project);
	if (names[i] != NULL) {		/* stopped by an error */
		strv_free(names);
		free(base);
		json_decref(list);
		return -1;
	}
	strv_free(names);
	*result = json_pack("{s:s, s:o, s:I}", "root", base, "profiles", list,
	    clear ? "freed_bytes" : "bytes", total);
	free(base);
	return *result ? 0 : error_nomem(err);
}

static void rpc_cache_job_finish(struct rpc_cache_job *j);

/* The disk guard's measure after a clear is in: answer. */
static void
rpc_cache_job_measured(void *arg)
{
	rpc_cache_job_finish(arg);
}

/* Reply once the child's output has ended and the child is reaped. */
static void
rpc_cache_job_finish(struct rpc_cache_job *j)
{
	json_t *msg, *e;
	sbox_error err;

	if (!j->io_done || !j->reaped)
		return;
	if (j->clear == 1) {	/* the disk guard measures what was cleared
				 * before the answer: a session refused for
				 * full caches works once it comes */
		j->clear = 2;
		diskguard_freed(rpc_cache_job_measured, j);
		return;
	}
	error_clear(&err);
	msg = j->buf && WIFEXITED(j->status) && WEXITSTATUS(j->status) == 0 ?
	    json_loadb(j->buf, j->len, 0, NULL) : NULL;
	if (msg != NULL && json_is_object(json_object_get(msg, "result")))
		rpc_call_reply(j->call, json_incref(json_object_get(msg,
		    "result")));
	else {
		e = json_object_get(msg, "error");
		if (e != NULL)
			error_set_field(&err, json_string_value(json_object_get(e,
			    "name")), json_string_value(json_object_get(e,
			    "field")), "%s", json_string_value(json_object_get(e,
			    "message")));
		else
			error_set(&err, E_INTERNAL, "the cache walk ended without "
			    "an answer (status %d)", j->status);
		rpc_call_fail(j->call, &err);
	}
	json_decref(msg);
	free(j->buf);
	free(j);
}

/* The child's output: collect it (bounded) until EOF. */
static void
rpc_cache_job_read(evutil_socket_t fd, short what, void *arg)
{
	struct rpc_cache_job *j = arg;
	ssize_t n;
	char *nb;

	(void)what;
	if (j->cap - j->len < 65536 && j->cap < RPC_CACHE_MAX_REPLY) {
		if ((nb = realloc(j->buf, j->cap + 65536)) != NULL) {
			j->buf = nb;
			j->cap += 65536;
		}
	}
	n = j->cap > j->len ? read(fd, j->buf + j->len, j->cap - j->len) : 0;
	if (n > 0) {
		j->len += (size_t)n;
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	event_free(j->ev);
	close(j->fd);
	j->io_done = 1;
	rpc_cache_job_finish(j);
}

/* The child has exited. */
static void
rpc_cache_job_exited(pid_t pid, int status, void *arg)
{
	struct rpc_cache_job *j = arg;

	(void)pid;
	j->status = status;
	j->reaped = 1;
	rpc_cache_job_finish(j);
}

/* In the child: walk, write {"result": ...} or {"error": ...} on fd,
 * exit. Every other descriptor of sboxd (clients, containers' control
 * sockets) is closed first, so that none of them outlives sboxd's own
 * close of it while the walk goes on. */
static void
rpc_cache_child(json_t *params, int clear, int fd)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD };
	json_t *r = NULL, *msg;
	sbox_error err;
	size_t i;
	int n;

	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
	if (fd != 3 && (dup2(fd, 3) == -1 || close(fd) == -1))
		_exit(1);
	fd = 3;
	if (syscall(SYS_close_range, 4u, ~0u, 0u) < 0)
		for (n = 4; n < 65536; n++)
			close(n);
	error_clear(&err);
	if (rpc_cache_run(params, clear, &r, &err) == -1)
		msg = json_pack("{s:{s:s, s:s, s:s}}", "error", "name", err.name,
		    "field", err.field, "message", err.message);
	else
		msg = json_pack("{s:o}", "result", r);
	_exit(msg != NULL && json_dumpfd(msg, fd, JSON_COMPACT) == 0 ? 0 : 1);
}

/* Is only a name neither the config knows nor sbox's caches hold (a
 * profile removed from the config keeps its caches until cleared)? Then
 * err is sbox.ProfileNotFound (with the closest name). */
static int
rpc_cache_unknown(const char *only, sbox_error *err)
{
	struct profile *p;
	struct stat st;
	char *base, *dir = NULL;
	int held;

	if ((p = profile_get(sboxd.config, only, err)) != NULL) {
		profile_free(p);
		return 0;
	}
	if (strcmp(err->name, E_PROFILE_NOT_FOUND) != 0)
		return 1;
	base = caches_base(sboxd.state_dir);
	held = base != NULL && asprintf(&dir, "%s/%s", base, only) != -1 &&
	    lstat(dir, &st) == 0 && S_ISDIR(st.st_mode);
	free(base);
	free(dir);
	if (held)
		error_clear(err);
	return !held;
}

/* Start list (clear = 0) or clear (1) in a child; the call ends later. */
static int
rpc_cache_start(struct rpc_call *call, json_t *params, int clear,
    sbox_error *err)
{
	const char *only = json_string_value(json_object_get(params, "profile"));
	struct rpc_cache_job *j;
	int p[2];
	pid_t pid;

	if (only != NULL && !profile_name_valid(only))
		return error_set_field(err, E_INVALID_PARAMS, "profile",
		    "\"%s\" is not a profile name", only);
	if (only != NULL && rpc_cache_unknown(only, err))
		return -1;
	if ((j = calloc(1, sizeof *j)) == NULL)
		return error_nomem(err);
	if (pipe2(p, O_CLOEXEC) == -1) {
		free(j);
		return error_set_errno(err, E_INTERNAL, errno, "pipe");
	}
	if ((pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		free(j);
		return error_set_errno(err, E_INTERNAL, errno, "fork");
	}
	if (pid == 0) {
		close(p[0]);
		rpc_cache_child(params, clear, p[1]);
	}
	close(p[1]);
	j->call = call;
	j->clear = clear;
	j->fd = p[0];
	evutil_make_socket_nonblocking(j->fd);
	if ((j->ev = event_new(sboxd.base, j->fd, EV_READ | EV_PERSIST,
	    rpc_cache_job_read, j)) == NULL || event_add(j->ev, NULL) == -1 ||
	    child_watch(pid, rpc_cache_job_exited, j, err) == -1) {
		log_error("cache: cannot follow the walk (pid %d)", (int)pid);
		if (j->ev != NULL)
			event_free(j->ev);
		close(j->fd);
		free(j);
		child_reap_now(pid, 0);
		return err->name[0] ? -1 : error_nomem(err);
	}
	return RPC_LATER;
}

/* cache.list {profile?, project?}: the sizes of sbox's own caches, per
 * profile, project and tree. */
static int
rpc_cache_list(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	(void)result;
	return rpc_cache_start(call, params, 0, err);
}

/* cache.clear {profile?, project?}: empty sbox's own caches of one
 * profile (or of all), of one project (or of all); the host's caches are
 * never touched. */
static int
rpc_cache_clear(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	(void)result;
	return rpc_cache_start(call, params, 1, err);
}

static const struct params_field rpc_cache_params[] = {
	{ "profile", PARAMS_STRING, 0, 64 },
	{ "project", PARAMS_STRING, 0, 4096 },
	{ NULL, 0, 0, 0 },
};

const struct rpc_method rpc_cache_methods[] = {
	{ "cache.list", rpc_cache_params, rpc_cache_list, RPC_HOST_ONLY,
	  "sbox's own package caches: size per profile, project and tree" },
	{ "cache.clear", rpc_cache_params, rpc_cache_clear, RPC_HOST_ONLY,
	  "empty sbox's own package caches of a profile or project (or all)" },
	{ NULL, NULL, NULL, 0, NULL },
};
