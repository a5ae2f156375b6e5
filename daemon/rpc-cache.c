/* rpc-cache.c: cache.list and cache.clear: sbox's own package caches
 * (policy/caches.h), per profile under <state_dir>/caches/: their sizes,
 * and freeing them. Sizes and removal never follow a link a sandbox
 * planted (daemon/cachedir.h). Host clients only. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/cachedir.h"
#include "daemon/rpc.h"
#include "daemon/sboxd.h"
#include "policy/caches.h"
#include "policy/profile.h"
#include "policy/strv.h"

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
	if (bfd < 0 || (fd = dup(bfd)) < 0 || (d = fdopendir(fd)) == NULL)
		return names;
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

/* Sizes of the trees of one profile's cache folder (pfd may be -1). */
static json_t *
rpc_cache_profile_usage(int pfd, const char *profile, const char *root)
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
	o = json_pack("{s:s, s:s, s:b, s:I, s:I, s:I, s:o}", "profile", profile,
	    "path", root, "exists", pfd >= 0, "bytes", (json_int_t)all.bytes,
	    "files", (json_int_t)all.files, "skipped", (json_int_t)all.skipped,
	    "trees", trees);
	return o;
}

/* Empty one profile's cache folder: every tree kept (a live session's
 * mount stays valid) but emptied, anything else removed. */
static json_t *
rpc_cache_profile_clear(int pfd, const char *profile)
{
	struct cachedir_usage f = { 0 };
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if (pfd >= 0 && fstat(pfd, &st) == 0 && (fd = dup(pfd)) >= 0 &&
	    (d = fdopendir(fd)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			cachedir_clear(pfd, de->d_name, st.st_dev,
			    caches_find(de->d_name) != NULL, &f);
		}
		closedir(d);
	}
	return json_pack("{s:s, s:I, s:I, s:I}", "profile", profile,
	    "freed_bytes", (json_int_t)f.bytes, "removed",
	    (json_int_t)(f.files + f.dirs), "left", (json_int_t)f.skipped);
}

/* Run list (clear = 0) or clear (1) over the profiles asked for. */
static int
rpc_cache_run(json_t *params, int clear, json_t **result, sbox_error *err)
{
	const char *only = json_string_value(json_object_get(params, "profile"));
	json_t *list, *o;
	json_int_t total = 0;
	char *base, *root;
	char **names;
	size_t i;
	int bfd, pfd;

	if (only != NULL && !profile_name_valid(only))
		return error_set_field(err, E_INVALID_PARAMS, "profile",
		    "\"%s\" is not a profile name", only);
	if ((base = caches_base(sboxd.state_dir)) == NULL)
		return error_nomem(err);
	bfd = cachedir_open(base);
	if (bfd < 0 && errno != ENOENT) {
		error_set_errno(err, E_IO, errno, "cannot open %s", base);
		free(base);
		return -1;
	}
	if ((names = rpc_cache_profiles(bfd, only, err)) == NULL) {
		free(base);
		if (bfd >= 0)
			close(bfd);
		return -1;
	}
	list = json_array();
	for (i = 0; names[i] != NULL; i++) {
		if ((root = caches_profile_root(sboxd.state_dir, names[i],
		    err)) == NULL)
			break;
		pfd = bfd < 0 ? -1 : openat(bfd, names[i], O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		o = clear ? rpc_cache_profile_clear(pfd, names[i]) :
		    rpc_cache_profile_usage(pfd, names[i], root);
		total += json_integer_value(json_object_get(o, clear ?
		    "freed_bytes" : "bytes"));
		json_array_append_new(list, o);
		free(root);
		if (pfd >= 0)
			close(pfd);
	}
	if (bfd >= 0)
		close(bfd);
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

/* cache.list {profile?}: the sizes of sbox's own caches, per profile and
 * tree. */
static int
rpc_cache_list(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	(void)call;
	return rpc_cache_run(params, 0, result, err);
}

/* cache.clear {profile?}: empty sbox's own caches of one profile (or of
 * all); the host's caches are never touched. */
static int
rpc_cache_clear(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	(void)call;
	return rpc_cache_run(params, 1, result, err);
}

static const struct params_field rpc_cache_params[] = {
	{ "profile", PARAMS_STRING, 0, 64 },
	{ NULL, 0, 0, 0 },
};

const struct rpc_method rpc_cache_methods[] = {
	{ "cache.list", rpc_cache_params, rpc_cache_list, RPC_HOST_ONLY,
	  "sbox's own package caches: size per profile and tree" },
	{ "cache.clear", rpc_cache_params, rpc_cache_clear, RPC_HOST_ONLY,
	  "empty sbox's own package caches of a profile (or all)" },
	{ NULL, NULL, NULL, 0, NULL },
};
