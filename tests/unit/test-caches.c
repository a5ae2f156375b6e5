/* test-caches.c: the table of package-cache trees (policy/caches.c), the
 * plan's cache binds (sbox's own folders, never the host's), and the
 * folders on disk (daemon/container/cachedir.c): made without following links,
 * sized and cleared without following a link or a hard link a sandbox
 * planted. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/container/cachedir.h"
#include "policy/caches.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "policy/profile.h"
#include "policy/render-bwrap.h"
#include "policy/render-sbpl.h"
#include "policy/strv.h"

#define HOME "/home/u"
#define ROOT "/var/lib/sbox/caches/workspace"

/* Fake stat: a home folder holding every cache tree of the host, and the
 * system folders; everything else is missing. */
static int
fake_stat(void *arg, const char *path, struct stat *st)
{
	static const char *const dirs[] = { "/usr", "/etc", HOME, HOME "/proj",
	    HOME "/.cache", HOME "/.npm", HOME "/.cargo/registry", NULL };
	size_t i;

	(void)arg;
	memset(st, 0, sizeof *st);
	for (i = 0; dirs[i] != NULL; i++) {
		if (strcmp(dirs[i], path) == 0 || (strncmp(dirs[i], path,
		    strlen(path)) == 0 && dirs[i][strlen(path)] == '/')) {
			st->st_mode = S_IFDIR | 0755;
			return 0;
		}
	}
	return -1;
}

/* Fake read: nothing. */
static char *
fake_read(void *arg, const char *path, size_t max)
{
	(void)arg; (void)path; (void)max;
	return NULL;
}

/* Fake list: nothing. */
static char **
fake_list(void *arg, const char *dir)
{
	(void)arg; (void)dir;
	return NULL;
}

static const struct plan_fs fs = { fake_stat, fake_read, fake_list, NULL, NULL };
static char *env[] = { "PATH=/usr/bin:/bin", NULL };
static char *no_hosts[] = { NULL };

/* The plan of a built-in profile with cache root root (may be NULL). */
static struct plan *
plan_of(const char *name, const char *root)
{
	struct plan_context ctx = {
		.project = HOME "/proj", .scratch = "/var/lib/sbox-scratch/s1",
		.home = HOME, .user = "u", .uid = 1000, .gid = 1000,
		.env = env, .registry_hosts = no_hosts, .fs = &fs,
		.cache_root = root,
	};
	struct profile *pr = profile_builtin(name, NULL);
	struct plan *p;
	sbox_error err;

	error_clear(&err);
	ck_assert_ptr_nonnull(pr);
	p = policy_plan(pr, &ctx, &err);
	ck_assert_msg(p != NULL, "%s", err.message);
	profile_free(pr);
	return p;
}

/* The mount whose destination is dst, or NULL. */
static const struct plan_mount *
mount_at(const struct plan *p, const char *dst)
{
	size_t i;

	for (i = 0; i < p->n_mounts; i++) {
		if (strcmp(p->mounts[i].dst, dst) == 0)
			return &p->mounts[i];
	}
	return NULL;
}

/* Names and places are unique, plain, relative, and none is inside another;
 * every tree the issue names is there. */
START_TEST(test_table)
{
	static const char *const must[] = { ".cache", ".npm", ".cargo/registry",
	    ".cargo/git", "go/pkg/mod", ".m2/repository", ".gradle/caches",
	    ".nuget/packages", ".yarn/berry/cache", ".pnpm-store",
	    ".bun/install/cache", NULL };
	size_t i, j, n = caches_count();

	ck_assert_uint_ge(n, 11);
	for (i = 0; i < n; i++) {
		const struct cache_tree *t = &caches_table[i];

		ck_assert(t->name[0] != '\0' && t->name[0] != '.');
		ck_assert(strchr(t->name, '/') == NULL);
		ck_assert(t->rel[0] != '/' && strstr(t->rel, "..") == NULL);
		ck_assert(t->rel[strlen(t->rel) - 1] != '/');
		ck_assert(t->tools != NULL && t->tools[0] != '\0');
		ck_assert_ptr_eq(caches_find(t->name), t);
		ck_assert_ptr_eq(caches_find_rel(t->rel), t);
		for (j = 0; j < n; j++) {
			char a[256], b[256];

			if (i == j)
				continue;
			ck_assert_str_ne(t->name, caches_table[j].name);
			snprintf(a, sizeof a, "/%s", t->rel);
			snprintf(b, sizeof b, "/%s", caches_table[j].rel);
			ck_assert_msg(!path_is_under(a, b), "%s is inside %s", a, b);
		}
	}
	for (i = 0; must[i] != NULL; i++)
		ck_assert_msg(caches_find_rel(must[i]) != NULL, "%s", must[i]);
	ck_assert_ptr_null(caches_find("nope"));
	ck_assert_ptr_null(caches_find(NULL));
}
END_TEST

/* A profile's cache root is under the state folder; names that are not
 * profile names never make a path. */
START_TEST(test_profile_root)
{
	static const char *const bad[] = { "", "..", "../x", "a/b", "A", ".x",
	    "-x", "x y", NULL };
	sbox_error err;
	char *r;
	size_t i;

	error_clear(&err);
	r = caches_profile_root("/st", "workspace", &err);
	ck_assert_str_eq(r, "/st/caches/workspace");
	free(r);
	r = caches_base("/st");
	ck_assert_str_eq(r, "/st/caches");
	free(r);
	ck_assert_ptr_null(caches_base("rel"));
	for (i = 0; bad[i] != NULL; i++) {
		error_clear(&err);
		ck_assert_ptr_null(caches_profile_root("/st", bad[i], &err));
		ck_assert_str_eq(err.name, E_INVALID_PARAMS);
		ck_assert_str_eq(err.field, "profile");
	}
	error_clear(&err);
	ck_assert_ptr_null(caches_profile_root("st", "workspace", &err));
}
END_TEST

/* workspace and strict bind root/<name> at ~/<rel>, read-write, never
 * optional; no mount anywhere takes a host cache tree as its source. */
START_TEST(test_plan_binds)
{
	static const char *const names[] = { "workspace", "strict" };
	const struct plan_path_rule *r;
	const struct plan_mount *m;
	char dst[512], src[512];
	size_t i, k;

	for (k = 0; k < 2; k++) {
		struct plan *p = plan_of(names[k], ROOT);

		for (i = 0; caches_table[i].name != NULL; i++) {
			snprintf(dst, sizeof dst, HOME "/%s", caches_table[i].rel);
			snprintf(src, sizeof src, ROOT "/%s", caches_table[i].name);
			m = mount_at(p, dst);
			ck_assert_msg(m != NULL, "%s: no mount at %s", names[k], dst);
			ck_assert_int_eq(m->kind, PLAN_MOUNT_RW_BIND);
			ck_assert_str_eq(m->src, src);
			ck_assert_int_eq(m->optional, 0);
			ck_assert_int_eq(m->is_dir, 1);
			ck_assert_str_eq(m->rule, PLAN_RULE_CACHES);
		}
		for (i = 0; i < p->n_mounts; i++) {
			m = &p->mounts[i];
			if (m->src == NULL || m->src[0] != '/')
				continue;
			ck_assert_msg(!path_is_under(m->src, HOME "/.cache") &&
			    !path_is_under(m->src, HOME "/.npm") &&
			    !path_is_under(m->src, HOME "/.cargo/registry"),
			    "the host's cache %s is bound", m->src);
		}
		r = plan_explain(p, HOME "/.npm/_npx/abc/package.json");
		ck_assert_int_eq(r->access, PLAN_ACCESS_RW);
		ck_assert_str_eq(r->rule, PLAN_RULE_CACHES);
		plan_free(p);
	}
}
END_TEST

/* lab has no caches; without a cache root no profile binds any, and the
 * host's never. */
START_TEST(test_plan_no_caches)
{
	static const char *const names[] = { "lab", "workspace" };
	char dst[512];
	size_t i, k;

	for (k = 0; k < 2; k++) {
		struct plan *p = plan_of(names[k], k == 0 ? ROOT : NULL);

		for (i = 0; caches_table[i].name != NULL; i++) {
			snprintf(dst, sizeof dst, HOME "/%s", caches_table[i].rel);
			ck_assert_msg(mount_at(p, dst) == NULL, "%s: %s", names[k],
			    dst);
		}
		plan_free(p);
	}
}
END_TEST

/* The renderers: bwrap binds sbox's folder at the tool's place, with no
 * placeholder in a cache; Seatbelt (which cannot remap) grants nothing of
 * the host's cache paths. */
START_TEST(test_renderers)
{
	struct plan *p = plan_of("workspace", ROOT);
	struct render_bwrap_opts o = { .init_path = "/usr/libexec/sbox-init",
	    .ctl_fd = 3, .seccomp_fd = -1 };
	struct render_bwrap_result r;
	sbox_error err;
	char *sbpl;
	size_t i, found = 0;

	error_clear(&err);
	ck_assert_int_eq(render_bwrap(p, &o, &r, &err), 0);
	for (i = 0; i + 2 < r.argc; i++) {
		if (strcmp(r.argv[i], "--bind") == 0 &&
		    strcmp(r.argv[i + 1], ROOT "/npm") == 0 &&
		    strcmp(r.argv[i + 2], HOME "/.npm") == 0)
			found++;
		ck_assert_msg(!(strcmp(r.argv[i], "--bind") == 0 &&
		    strcmp(r.argv[i + 1], HOME "/.npm") == 0), "host ~/.npm bound");
	}
	ck_assert_uint_eq(found, 1);
	render_bwrap_free(&r);
	sbpl = render_sbpl(p, 3128, &err);
	ck_assert_ptr_nonnull(sbpl);
	ck_assert_ptr_null(strstr(sbpl, "\"" HOME "/.npm\""));
	ck_assert_ptr_null(strstr(sbpl, "\"" HOME "/.cache\""));
	free(sbpl);
	plan_free(p);
}
END_TEST

static char tmp[64];

/* A fresh temporary folder in tmp. */
static void
setup(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/sbox-test-caches-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

/* Remove tmp (with a shell: it is the test's own folder). */
static void
teardown(void)
{
	char cmd[1024];

	snprintf(cmd, sizeof cmd, "chmod -R u+rwx %s 2>/dev/null; rm -rf %s",
	    tmp, tmp);
	ck_assert_int_eq(system(cmd), 0);
}

/* Write text to path. */
static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* tmp/rel as a path in buf. */
static const char *
at(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", tmp, rel);
	return buf;
}

/* prepare makes every tree 0700; a link in the way is refused, not
 * followed. */
START_TEST(test_prepare)
{
	char a[512], b[512];
	sbox_error err;
	struct stat st;
	size_t i;

	mkdir(at(a, sizeof a, "state"), 0700);
	error_clear(&err);
	ck_assert_int_eq(cachedir_prepare(at(a, sizeof a, "state"), "workspace",
	    getuid(), getgid(), &err), 0);
	for (i = 0; caches_table[i].name != NULL; i++) {
		snprintf(b, sizeof b, "%s/state/caches/workspace/%s", tmp,
		    caches_table[i].name);
		ck_assert_int_eq(lstat(b, &st), 0);
		ck_assert(S_ISDIR(st.st_mode));
		ck_assert_uint_eq(st.st_mode & 07777, 0700);
	}
	/* a planted link where a tree belongs: an error, nothing outside made */
	mkdir(at(a, sizeof a, "outside"), 0755);
	mkdir(at(a, sizeof a, "state/caches/other"), 0700);
	ck_assert_int_eq(symlink(at(a, sizeof a, "outside"),
	    at(b, sizeof b, "state/caches/other/npm")), 0);
	error_clear(&err);
	ck_assert_int_eq(cachedir_prepare(at(a, sizeof a, "state"), "other",
	    getuid(), getgid(), &err), -1);
	ck_assert_str_eq(err.name, E_IO);
	ck_assert_int_eq(lstat(at(a, sizeof a, "outside"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
	/* links above the state folder are the administrator's: followed */
	ck_assert_int_eq(symlink(at(a, sizeof a, "state"),
	    at(b, sizeof b, "statelink")), 0);
	error_clear(&err);
	ck_assert_int_eq(cachedir_prepare(b, "viasym", getuid(), getgid(), &err),
	    0);
	ck_assert_int_eq(lstat(at(a, sizeof a, "state/caches/viasym/npm"), &st),
	    0);
	error_clear(&err);
	ck_assert_int_eq(cachedir_prepare(at(a, sizeof a, "state"), "../x",
	    getuid(), getgid(), &err), -1);
	ck_assert_int_eq(cachedir_open("relative"), -1);
}
END_TEST

/* Sizing and clearing never follow a symlink or a hard link planted in a
 * tree: the files outside keep their contents; read-only folders (as Go
 * leaves them) and sockets are cleared. */
START_TEST(test_measure_clear)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct cachedir_usage u = { 0 }, f = { 0 };
	char a[512], b[512];
	struct stat st;
	int fd, s;

	mkdir(at(a, sizeof a, "outside"), 0755);
	put(at(a, sizeof a, "outside/keep"), "host file\n");
	mkdir(at(a, sizeof a, "tree"), 0700);
	mkdir(at(a, sizeof a, "tree/pkg"), 0755);
	put(at(a, sizeof a, "tree/pkg/big"), "0123456789");
	ck_assert_int_eq(symlink(at(a, sizeof a, "outside"),
	    at(b, sizeof b, "tree/dirlink")), 0);
	ck_assert_int_eq(symlink(at(a, sizeof a, "outside/keep"),
	    at(b, sizeof b, "tree/pkg/filelink")), 0);
	ck_assert_int_eq(link(at(a, sizeof a, "outside/keep"),
	    at(b, sizeof b, "tree/hard")), 0);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s/tree/sock", tmp);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
	close(s);
	mkdir(at(a, sizeof a, "tree/mod"), 0755);
	put(at(a, sizeof a, "tree/mod/go.mod"), "module x\n");
	chmod(at(a, sizeof a, "tree/mod/go.mod"), 0444);
	chmod(at(a, sizeof a, "tree/mod"), 0555);

	ck_assert_int_ge(fd = cachedir_open(tmp), 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	cachedir_measure(fd, "tree", st.st_dev, &u);
	ck_assert_uint_eq(u.dirs, 3);
	ck_assert_uint_eq(u.files, 6);
	ck_assert_uint_eq(u.links, 2);
	ck_assert_uint_eq(u.skipped, 0);
	ck_assert_uint_gt(u.bytes, 0);
	/* a link as the thing to clear is never followed */
	cachedir_clear(fd, "dirlink-none", st.st_dev, 1, &f);
	ck_assert_uint_eq(f.skipped, 1);
	memset(&f, 0, sizeof f);
	cachedir_clear(fd, "tree", st.st_dev, 1, &f);
	ck_assert_uint_eq(f.skipped, 0);
	ck_assert_uint_eq(f.files, 6);
	ck_assert_uint_eq(f.dirs, 2);
	/* the tree is kept, empty; what was outside is untouched */
	ck_assert_int_eq(lstat(at(a, sizeof a, "tree"), &st), 0);
	ck_assert_int_eq(rmdir(at(a, sizeof a, "tree")), 0);
	ck_assert_int_eq(lstat(at(a, sizeof a, "outside/keep"), &st), 0);
	ck_assert_uint_eq(st.st_size, 10);
	ck_assert_uint_eq(st.st_nlink, 1);
	close(fd);
}
END_TEST

/* A nest deeper than CACHEDIR_MAX_DEPTH is left, counted as skipped,
 * without crashing or following anything. */
START_TEST(test_deep)
{
	struct cachedir_usage u = { 0 }, f = { 0 };
	char a[512];
	struct stat st;
	int fd, dfd, i;

	mkdir(at(a, sizeof a, "deep"), 0700);
	dfd = open(a, O_RDONLY | O_DIRECTORY);
	for (i = 0; i < CACHEDIR_MAX_DEPTH + 5; i++) {
		ck_assert_int_eq(mkdirat(dfd, "d", 0700), 0);
		fd = openat(dfd, "d", O_RDONLY | O_DIRECTORY);
		close(dfd);
		dfd = fd;
	}
	close(dfd);
	fd = cachedir_open(tmp);
	ck_assert_int_eq(fstat(fd, &st), 0);
	cachedir_measure(fd, "deep", st.st_dev, &u);
	ck_assert_uint_gt(u.skipped, 0);
	ck_assert_uint_eq(u.dirs, CACHEDIR_MAX_DEPTH);
	cachedir_clear(fd, "deep", st.st_dev, 1, &f);
	ck_assert_uint_gt(f.skipped, 0);
	close(fd);
}
END_TEST

/* A folder of thousands of entries is emptied completely. */
START_TEST(test_many)
{
	struct cachedir_usage f = { 0 };
	char a[512], name[32];
	struct stat st;
	int fd, dfd, i;

	mkdir(at(a, sizeof a, "many"), 0700);
	dfd = open(a, O_RDONLY | O_DIRECTORY);
	for (i = 0; i < 1500; i++) {
		snprintf(name, sizeof name, "entry-%d", i);
		if (i % 3 == 0)
			ck_assert_int_eq(mkdirat(dfd, name, 0500), 0);
		else
			close(openat(dfd, name, O_CREAT | O_WRONLY, 0400));
	}
	close(dfd);
	fd = cachedir_open(tmp);
	ck_assert_int_eq(fstat(fd, &st), 0);
	cachedir_clear(fd, "many", st.st_dev, 1, &f);
	ck_assert_uint_eq(f.files, 1000);
	ck_assert_uint_eq(f.dirs, 500);
	ck_assert_uint_eq(f.skipped, 0);
	ck_assert_int_eq(rmdir(at(a, sizeof a, "many")), 0);
	close(fd);
}
END_TEST

/* A session's cache root: its project's (made, with the project file),
 * its profile's with "caches": "profile", none for lab, and for a session
 * made from inside a sandbox its parent's, never its own. */
START_TEST(test_session_root)
{
	struct profile *strict = profile_builtin("strict", NULL);
	struct profile *lab = profile_builtin("lab", NULL);
	struct plan *ws = plan_of("workspace", ROOT), *lp = plan_of("lab", ROOT);
	char a[512], b[512], want[600], key[17], *root, *root2;
	sbox_error err;
	struct stat st;
	FILE *f;

	mkdir(at(a, sizeof a, "state"), 0700);
	error_clear(&err);
	/* by default: the project's own */
	ck_assert_int_eq(cachedir_session_root(a, strict, "/src/proj-a", NULL,
	    getuid(), getgid(), &root, &err), 0);
	caches_project_key("/src/proj-a", key);
	snprintf(want, sizeof want, "%s/caches/strict/projects/%s", a, key);
	ck_assert_str_eq(root, want);
	snprintf(want, sizeof want, "%s/npm", root);
	ck_assert_int_eq(lstat(want, &st), 0);
	ck_assert(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700);
	snprintf(want, sizeof want, "%s/project", root);
	ck_assert_ptr_nonnull(f = fopen(want, "r"));
	ck_assert_ptr_nonnull(fgets(b, sizeof b, f));
	fclose(f);
	ck_assert_str_eq(b, "/src/proj-a\n");
	/* the same project again: the same root; another: another */
	ck_assert_int_eq(cachedir_session_root(a, strict, "/src/proj-a", NULL,
	    getuid(), getgid(), &root2, &err), 0);
	ck_assert_str_eq(root, root2);
	free(root2);
	ck_assert_int_eq(cachedir_session_root(a, strict, "/src/proj-b", NULL,
	    getuid(), getgid(), &root2, &err), 0);
	ck_assert_str_ne(root, root2);
	free(root2);
	/* a folder of the key naming another project (a collision) is not
	 * taken: the next one is */
	snprintf(want, sizeof want, "%s/project", root);
	ck_assert_ptr_nonnull(f = fopen(want, "w"));
	fputs("/src/other\n", f);
	fclose(f);
	ck_assert_int_eq(cachedir_session_root(a, strict, "/src/proj-a", NULL,
	    getuid(), getgid(), &root2, &err), 0);
	snprintf(want, sizeof want, "%s-1", root);
	ck_assert_str_eq(root2, want);
	free(root2);
	free(root);
	/* "caches": "profile": one set for every project */
	strict->caches_shared = 1;
	ck_assert_int_eq(cachedir_session_root(a, strict, "/src/proj-a", NULL,
	    getuid(), getgid(), &root, &err), 0);
	ck_assert_str_eq(root, at(b, sizeof b, "state/caches/strict"));
	ck_assert_int_eq(lstat(at(b, sizeof b, "state/caches/strict/cache"),
	    &st), 0);
	free(root);
	strict->caches_shared = 0;
	ck_assert_int_eq(cachedir_session_root(a, lab, "/src/proj-a", NULL,
	    getuid(), getgid(), &root, &err), 0);
	ck_assert_ptr_null(root);
	rmdir(at(b, sizeof b, "state/caches/strict/cache"));
	ck_assert_int_eq(cachedir_session_root(a, strict, "/src/proj-a", ws,
	    getuid(), getgid(), &root, &err), 0);
	ck_assert_str_eq(root, ROOT);
	free(root);
	ck_assert_int_eq(lstat(at(b, sizeof b, "state/caches/strict/cache"),
	    &st), -1);
	ck_assert_int_eq(cachedir_session_root(a, strict, "/src/proj-a", lp,
	    getuid(), getgid(), &root, &err), 0);
	ck_assert_ptr_null(root);
	plan_free(ws);
	plan_free(lp);
	profile_free(strict);
	profile_free(lab);
}
END_TEST

/* The project key: 16 hex digits, stable, different for other paths; the
 * profile key "caches". */
START_TEST(test_project_key)
{
	struct profile *p = profile_new("x", NULL);
	json_t *v[3] = { json_string("profile"), json_string("project"),
	    json_string("all") };
	sbox_error err;
	char k1[17], k2[17];

	caches_project_key("/home/me/a", k1);
	caches_project_key("/home/me/a", k2);
	ck_assert_str_eq(k1, k2);
	ck_assert_uint_eq(strlen(k1), 16);
	ck_assert_uint_eq(strspn(k1, "0123456789abcdef"), 16);
	caches_project_key("/home/me/b", k2);
	ck_assert_str_ne(k1, k2);
	/* FNV-1a of "" is its offset basis */
	caches_project_key("", k1);
	ck_assert_str_eq(k1, "cbf29ce484222325");
	ck_assert_int_eq(p->caches_shared, 0);
	ck_assert_int_eq(caches_profile_apply(p, v[0], "c", &err), 0);
	ck_assert_int_eq(p->caches_shared, 1);
	ck_assert_int_eq(caches_profile_apply(p, v[1], "c", &err), 0);
	ck_assert_int_eq(p->caches_shared, 0);
	ck_assert_int_eq(caches_profile_apply(p, v[2], "c", &err), -1);
	json_decref(v[0]);
	json_decref(v[1]);
	json_decref(v[2]);
	ck_assert_str_eq(err.field, "c");
	ck_assert_uint_eq(caches_limit_bytes(p),
	    (uint64_t)CACHES_LIMIT_MB_DEFAULT << 20);
	p->limits.cache_mb = 10;
	ck_assert_uint_eq(caches_limit_bytes(p), 10u << 20);
	profile_free(p);
}
END_TEST

/* Suite of cache tests. */
static Suite *
caches_suite(void)
{
	Suite *s = suite_create("caches");
	TCase *tc = tcase_create("table");
	TCase *disk = tcase_create("disk");

	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_profile_root);
	tcase_add_test(tc, test_project_key);
	tcase_add_test(tc, test_plan_binds);
	tcase_add_test(tc, test_plan_no_caches);
	tcase_add_test(tc, test_renderers);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(disk, setup, teardown);
	tcase_set_timeout(disk, 60);	/* a loaded disk, a sanitizer build */
	tcase_add_test(disk, test_prepare);
	tcase_add_test(disk, test_measure_clear);
	tcase_add_test(disk, test_deep);
	tcase_add_test(disk, test_many);
	tcase_add_test(disk, test_session_root);
	suite_add_tcase(s, disk);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(caches_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
