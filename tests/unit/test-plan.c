/* test-plan.c: the plan for each built-in profile against golden files, on a
 * fake filesystem, and the rules that explain refusals. Set
 * SBOX_UPDATE_GOLDEN=1 to rewrite the golden files. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/config.h"
#include "policy/guard.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "policy/strv.h"

#define D(mode) (S_IFDIR | (mode))
#define F(mode) (S_IFREG | (mode))

/* The fake host: path, mode, contents. */
static const struct fake_file {
	const char *path;
	mode_t mode;
	const char *data;
} fake[] = {
	{ "/usr", D(0755), NULL }, { "/bin", D(0755), NULL }, { "/lib", D(0755), NULL },
	{ "/lib64", D(0755), NULL }, { "/sbin", D(0755), NULL }, { "/opt", D(0755), NULL },
	{ "/etc", D(0755), NULL }, { "/etc/passwd", F(0644), NULL },
	{ "/etc/shadow", F(0640), NULL }, { "/etc/ssl", D(0755), NULL },
	{ "/etc/ssl/private", D(0700), NULL }, { "/etc/secret.conf", F(0600), NULL },
	{ "/etc/polkit-1", D(0750), NULL }, { "/etc/sudoers", F(0440), NULL },
	{ "/var", D(0755), NULL }, { "/var/tmp", D(01777), NULL }, { "/var/run", D(0755), NULL },
	{ "/var/log", D(0755), NULL }, { "/root", D(0700), NULL }, { "/run", D(0755), NULL },
	{ "/run/user/1000", D(0700), NULL }, { "/tmp", D(01777), NULL },
	{ "/home/u", D(0755), NULL }, { "/home/u/.cargo/bin", D(0755), NULL },
	{ "/home/u/.cargo/registry", D(0755), NULL }, { "/home/u/.rustup", D(0755), NULL },
	{ "/home/u/.local/bin", D(0755), NULL }, { "/home/u/.gitconfig", F(0644), NULL },
	{ "/home/u/.cache", D(0755), NULL }, { "/home/u/.cache/huggingface/token", F(0600), NULL },
	{ "/home/u/.npm", D(0755), NULL }, { "/home/u/.ssh", D(0700), NULL },
	{ "/home/u/.aws", D(0700), NULL }, { "/home/u/.npmrc", F(0600), NULL },
	{ "/home/u/.config/sbox", D(0700), NULL },
	{ "/home/u/.config/sbox/config.json", F(0600), NULL },
	{ "/home/u/proj", D(0755), NULL }, { "/home/u/proj/.git", D(0755), NULL },
	{ "/home/u/proj/.git/config", F(0644), NULL }, { "/home/u/proj/.git/hooks", D(0755), NULL },
	{ "/home/u/proj/.git/modules", D(0755), NULL },
	{ "/home/u/proj/.git/modules/sub", D(0755), NULL },
	{ "/home/u/proj/.git/modules/sub/config", F(0644), NULL },
	{ "/home/u/proj/.vscode", D(0755), NULL }, { "/home/u/proj/.envrc", F(0644), NULL },
	{ "/home/u/proj/.bashrc", F(0644), NULL }, { "/home/u/proj/.ssh", D(0700), NULL },
	{ "/home/u/data", D(0755), NULL }, { "/home/u/data/secret", D(0700), NULL },
	{ "/home/u/wt", D(0755), NULL },
	{ "/home/u/wt/.git", F(0644), "gitdir: ../main/.git/worktrees/wt\n" },
	{ "/home/u/main", D(0755), NULL }, { "/home/u/main/.git", D(0755), NULL },
	{ "/home/u/main/.git/config", F(0644), NULL },
	{ "/home/u/main/.git/hooks", D(0755), NULL },
	{ "/home/u/main/.git/worktrees/wt", D(0755), NULL },
	{ "/home/u/main/.git/worktrees/wt/commondir", F(0644), "../..\n" },
	{ "/home/u/models", D(0755), NULL },
};

/* Fake stat: exact paths of the table (and their parents as folders). */
static int
fake_stat(void *arg, const char *path, struct stat *st)
{
	size_t i, n = strlen(path);

	(void)arg;
	memset(st, 0, sizeof *st);
	for (i = 0; i < sizeof fake / sizeof fake[0]; i++) {
		if (strcmp(fake[i].path, path) == 0) {
			st->st_mode = fake[i].mode;
			return 0;
		}
	}
	for (i = 0; i < sizeof fake / sizeof fake[0]; i++) {
		if (strncmp(fake[i].path, path, n) == 0 && fake[i].path[n] == '/') {
			st->st_mode = D(0755);
			return 0;
		}
	}
	return -1;
}

/* Fake read. */
static char *
fake_read(void *arg, const char *path, size_t max)
{
	size_t i;

	(void)arg;
	(void)max;
	for (i = 0; i < sizeof fake / sizeof fake[0]; i++) {
		if (strcmp(fake[i].path, path) == 0 && fake[i].data != NULL)
			return strdup(fake[i].data);
	}
	return NULL;
}

/* Fake list: the table's entries directly inside dir. */
static char **
fake_list(void *arg, const char *dir)
{
	char **out = NULL, name[256];
	size_t i, n = strlen(dir);
	const char *rest;

	(void)arg;
	for (i = 0; i < sizeof fake / sizeof fake[0]; i++) {
		if (strncmp(fake[i].path, dir, n) != 0 || fake[i].path[n] != '/')
			continue;
		rest = fake[i].path + n + 1;
		snprintf(name, sizeof name, "%.*s", (int)strcspn(rest, "/"), rest);
		strv_add_unique(&out, name);
	}
	return out;
}

static const struct plan_fs fs = { fake_stat, fake_read, fake_list, NULL, NULL };
static const char *const sbox_paths[] = {
	"/home/u/.config/sbox/config.json", "/home/u/.local/state/sbox",
	"/run/user/1000/sbox", NULL
};
static char *client_env[] = {
	"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/u", "USER=u", "LANG=C.UTF-8",
	"TERM=xterm-256color", "OPENAI_API_KEY=sk-test", "SSH_AUTH_SOCK=/run/user/1000/ssh",
	"CI=1", NULL
};
static char *registry_hosts[] = { "registry.example.test", "*.pkgs.example.test", NULL };

/* The shipped protected names (policy/protected.default). */
static const struct guard_table *
protected_names(void)
{
	static struct guard_table t;
	static int loaded;
	char path[512];
	const char *dir = __FILE__;
	sbox_error err;

	if (!loaded) {
		snprintf(path, sizeof path, "%.*s../../policy/protected.default",
		    (int)(strrchr(dir, '/') ? strrchr(dir, '/') - dir + 1 : 0),
		    dir);
		ck_assert_msg(guard_table_load(&t, path, &err) == 0, "%s",
		    err.message);
		loaded = 1;
	}
	return &t;
}

/* The fixed fake context. */
static struct plan_context
context(void)
{
	struct plan_context ctx = {
		.protected = protected_names(),
		.project = "/home/u/proj",
		.scratch = "/home/u/.local/state/sbox/scratch/s1",
		.home = "/home/u", .user = "u", .uid = 1000, .gid = 1000,
		.sbox_paths = sbox_paths, .xdg_runtime_dir = "/run/user/1000",
		.env = client_env, .registry_hosts = registry_hosts, .fs = &fs,
		.cache_root = "/home/u/.local/state/sbox/caches/p",
	};
	return ctx;
}

/* Compare the dump of plan with tests/unit/golden/plan-NAME.txt. */
static void
golden(const struct plan *p, const char *name)
{
	char path[512], *got = NULL, *want;
	size_t len = 0;
	long wlen;
	FILE *f;
	const char *dir = __FILE__;

	snprintf(path, sizeof path, "%.*sgolden/plan-%s.txt",
	    (int)(strrchr(dir, '/') ? strrchr(dir, '/') - dir + 1 : 0), dir, name);
	f = open_memstream(&got, &len);
	plan_dump(p, f);
	fclose(f);
	if (getenv("SBOX_UPDATE_GOLDEN") != NULL) {
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fputs(got, f);
		fclose(f);
	}
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "missing golden file %s", path);
	fseek(f, 0, SEEK_END);
	wlen = ftell(f);
	rewind(f);
	want = calloc(1, (size_t)wlen + 1);
	ck_assert_uint_eq(fread(want, 1, (size_t)wlen, f), (size_t)wlen);
	fclose(f);
	ck_assert_msg(strcmp(got, want) == 0,
	    "plan for %s differs from %s; got:\n%s", name, path, got);
	free(got);
	free(want);
}

/* Build the plan of a built-in profile in the fake context. */
static struct plan *
builtin_plan(const char *name, const struct plan_context *ctx)
{
	struct profile *pr = profile_builtin(name, NULL);
	struct plan *p;
	sbox_error err;

	error_clear(&err);
	p = policy_plan(pr, ctx, &err);
	ck_assert_msg(p != NULL, "%s", err.message);
	profile_free(pr);
	return p;
}

/* Index of the first mount with kind and dst, or -1. */
static long
find_mount(const struct plan *p, enum plan_mount_kind kind, const char *dst)
{
	size_t i;

	for (i = 0; i < p->n_mounts; i++) {
		if (p->mounts[i].kind == kind && strcmp(p->mounts[i].dst, dst) == 0)
			return (long)i;
	}
	return -1;
}

/* Golden plans of the four built-in profiles. */
START_TEST(test_golden_builtins)
{
	static const char *const names[] = { "workspace", "strict", "lab", "none" };
	struct plan_context ctx = context();
	struct plan *p;
	size_t i;

	for (i = 0; i < 4; i++) {
		p = builtin_plan(names[i], &ctx);
		golden(p, names[i]);
		plan_free(p);
	}
}
END_TEST

/* The workspace plan keeps its promises. */
START_TEST(test_workspace_rules)
{
	struct plan_context ctx = context();
	struct plan *p = builtin_plan("workspace", &ctx);
	const struct plan_path_rule *r;
	long git, cfg, hooks, ssh, home, proj;

	ck_assert_int_eq(p->sandboxed, 1);
	ck_assert_str_eq(p->cwd, "/home/u/proj");
	ck_assert_uint_eq(p->syscalls, 0x1ff);
	ck_assert_uint_eq(p->limits.pids, 512);
	ck_assert_uint_eq(p->limits.tmp_bytes, 1024ULL * 1024 * 1024);
	ck_assert_int_eq(p->net.mode, PLAN_NET_REGISTRIES);
	ck_assert(strv_contains(p->net.hosts, "registry.example.test"));
	ck_assert(strv_contains(p->env, "HOME=/home/u"));
	ck_assert(strv_contains(p->env, "TMPDIR=/tmp"));
	ck_assert(!strv_contains(p->env, "OPENAI_API_KEY=sk-test"));
	ck_assert(!strv_contains(p->env, "CI=1"));
	/* .git is its own mount point before its config and hooks go read-only */
	proj = find_mount(p, PLAN_MOUNT_RW_BIND, "/home/u/proj");
	git = find_mount(p, PLAN_MOUNT_RW_BIND, "/home/u/proj/.git");
	cfg = find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/proj/.git/config");
	hooks = find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/proj/.git/hooks");
	ck_assert(proj >= 0 && git > proj && cfg > git && hooks > git);
	ck_assert(find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/proj/.git/modules/sub/config") > git);
	/* missing protected names get no placeholder (the file guard refuses
	 * their creation) but a rule; existing ones are read-only binds */
	ck_assert_int_eq(find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/proj/.idea"), -1);
	ck_assert_int_eq(find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/proj/.mcp.json"), -1);
	ck_assert_str_eq(plan_explain(p, "/home/u/proj/.idea/workspace.xml")->rule,
	    PLAN_RULE_RUNS_LATER);
	ck_assert(!p->mounts[find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/proj/.envrc")].missing);
	/* the guard: the project is its root, not home, /tmp or the caches */
	ck_assert_ptr_nonnull(p->guard);
	ck_assert_str_eq(p->guard->roots[0], "/home/u/proj");
	for (size_t r = 0; p->guard->roots[r] != NULL; r++)
		ck_assert_msg(path_is_under(p->guard->roots[r], "/home/u/proj"),
		    "%s", p->guard->roots[r]);
	ck_assert_str_eq(p->guard->home, "/home/u");
	ck_assert_uint_eq(p->guard->table.n, protected_names()->n);
	ck_assert(p->mounts[find_mount(p, PLAN_MOUNT_RO_BIND,
	    "/home/u/proj/.git/modules/sub/hooks")].missing);
	/* credentials inside a granted folder are hidden after the grants */
	home = find_mount(p, PLAN_MOUNT_TMPFS, "/home/u");
	ck_assert(home >= 0 && home < proj);
	/* the host's ~/.cache is not there: nothing of it to hide */
	ck_assert_int_eq(find_mount(p, PLAN_MOUNT_HIDE_FILE,
	    "/home/u/.cache/huggingface/token"), -1);
	ssh = find_mount(p, PLAN_MOUNT_HIDE_DIR, "/home/u/.ssh");
	ck_assert_int_eq(ssh, -1);	/* not reachable: home is an empty tmpfs */
	ck_assert(find_mount(p, PLAN_MOUNT_RW_BIND, "/home/u/.cache") > home);
	ck_assert_str_eq(p->mounts[find_mount(p, PLAN_MOUNT_RW_BIND,
	    "/home/u/.cache")].src, "/home/u/.local/state/sbox/caches/p/cache");
	ck_assert(find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/.cargo/bin") > home);
	/* no host socket */
	ck_assert(find_mount(p, PLAN_MOUNT_TMPFS, "/run") >= 0);
	ck_assert(find_mount(p, PLAN_MOUNT_HIDE_DIR, "/var/run") >= 0);
	ck_assert(find_mount(p, PLAN_MOUNT_TMPFS, "/tmp") >= 0);
	/* explanations */
	r = plan_explain(p, "/home/u/proj/.git/hooks/pre-commit");
	ck_assert_int_eq(r->access, PLAN_ACCESS_RO);
	ck_assert_str_eq(r->rule, PLAN_RULE_RUNS_LATER);
	r = plan_explain(p, "/home/u/proj/.git/objects/ab");
	ck_assert_int_eq(r->access, PLAN_ACCESS_RW);
	r = plan_explain(p, "/home/u/proj/src/main.c");
	ck_assert_str_eq(r->rule, PLAN_RULE_PROJECT);
	r = plan_explain(p, "/home/u/.ssh/id_ed25519");
	ck_assert_int_eq(r->access, PLAN_ACCESS_HIDDEN);
	ck_assert_str_eq(r->rule, PLAN_RULE_CREDENTIALS);
	r = plan_explain(p, "/home/u/Documents/letter.txt");
	ck_assert_str_eq(r->rule, PLAN_RULE_HOME);
	r = plan_explain(p, "/home/u/.config/sbox/config.json");
	ck_assert_str_eq(r->rule, PLAN_RULE_SBOX);
	r = plan_explain(p, "/run/user/1000/bus");
	ck_assert_str_eq(r->rule, PLAN_RULE_SOCKETS);
	r = plan_explain(p, "/usr/bin/cc");
	ck_assert_str_eq(r->rule, PLAN_RULE_SYSTEM);
	ck_assert_ptr_null(plan_explain(p, "/srv/data"));
	ck_assert_ptr_null(plan_explain(p, "/home/u2/x") ? NULL :
	    plan_explain(p, "/home/u2/x"));
	/* the guard's path rules (the read reporter's) say hidden exactly
	 * where plan_explain does, with the same rule */
	{
		static const char *const paths[] = {
			"/home/u/.ssh/id_ed25519", "/home/u/Documents/letter.txt",
			"/home/u/.config/sbox/config.json", "/run/user/1000/bus",
			"/home/u/proj/src/main.c", "/home/u/proj/.git/config",
			"/home/u/.cache/pip/x", "/home/u/.cargo/bin/tool",
			"/home/u", "/usr/bin/cc", "/srv/data", "/var/run/x",
			"/tmp/x", NULL };
		const struct guard_rule *g;
		size_t k;

		ck_assert_uint_gt(p->guard->n_rules, 0);
		for (k = 0; paths[k] != NULL; k++) {
			r = plan_explain(p, paths[k]);
			g = guard_spec_explain(p->guard, paths[k]);
			if (r == NULL || r->access != PLAN_ACCESS_HIDDEN) {
				ck_assert_msg(g == NULL || g->access !=
				    GUARD_ACCESS_HIDDEN, "%s", paths[k]);
				continue;
			}
			ck_assert_msg(g != NULL && g->access ==
			    GUARD_ACCESS_HIDDEN, "%s", paths[k]);
			ck_assert_str_eq(g->rule, r->rule);
		}
		/* only hidden rules and the rules inside them are sent */
		for (k = 0; k < p->guard->n_rules; k++) {
			size_t h;

			for (h = 0; h < p->guard->n_rules; h++)
				if (p->guard->rules[h].access ==
				    GUARD_ACCESS_HIDDEN && path_is_under(
				    p->guard->rules[k].path,
				    p->guard->rules[h].path))
					break;
			ck_assert_msg(h < p->guard->n_rules, "%s",
			    p->guard->rules[k].path);
		}
		ck_assert_ptr_null(guard_spec_explain(p->guard, "/usr/bin/cc"));
	}
	plan_free(p);
}
END_TEST

/* A custom profile with folders, a worktree, denies, and sboxd as root. */
START_TEST(test_custom_root)
{
	static const char conf[] =
	    "{\"sandbox\": {\"profiles\": {\"company\": {\"extends\": \"workspace\","
	    " \"hosts\": [\"git.example.test:443\"], \"private_hosts\": [\"mirror.example.test\"],"
	    " \"local_ports\": [5432], \"env\": [\"CI\"],"
	    " \"folders\": {\"read_write\": [\"~/data\", \"~/wt\", \"~/main\", \"~/gone\"],"
	    "  \"read_only\": [\"~/models\"], \"deny\": [\"~/proj/.vscode\", \"~/data/secret\","
	    "  \"~/data/new\"]},"
	    " \"limits\": {\"pids\": 64, \"tmp_mb\": 16, \"timeout_s\": 60}}}},"
	    " \"resolve\": {\"mirror.example.test\": [\"10.1.2.3\"]}}";
	struct resolve_request req = { .sandbox = "company" };
	struct plan_context ctx = context();
	struct config *cfg;
	struct profile *pr;
	struct plan *p;
	sbox_error err;
	json_t *root;
	long deny, last;

	root = json_loads(conf, 0, NULL);
	cfg = config_parse(root, "t.json", "/home/u", &err);
	json_decref(root);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	pr = policy_resolve(cfg, &req, &err);
	ck_assert_ptr_nonnull(pr);
	ctx.is_root = 1;
	p = policy_plan(pr, &ctx, &err);
	ck_assert_msg(p != NULL, "%s", err.message);
	golden(p, "company-root");
	ck_assert(strv_contains(p->env, "CI=1"));
	ck_assert_uint_eq(p->limits.pids, 64);
	ck_assert_uint_eq(p->limits.timeout_ms, 60000);
	ck_assert_uint_eq(p->net.n_local_ports, 1);
	ck_assert_uint_eq(p->net.n_resolve, 1);
	/* the worktree's .git file is read-only, the real git folders protected */
	ck_assert(find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/wt/.git") >= 0);
	ck_assert(find_mount(p, PLAN_MOUNT_RW_BIND, "/home/u/main/.git/worktrees/wt") >= 0);
	ck_assert(find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/main/.git/worktrees/wt/config") >= 0);
	ck_assert(find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/main/.git/hooks") >= 0);
	/* the common git folder is bound before the worktree's, which stays protected */
	ck_assert(find_mount(p, PLAN_MOUNT_RW_BIND, "/home/u/main/.git") <
	    find_mount(p, PLAN_MOUNT_RW_BIND, "/home/u/main/.git/worktrees/wt"));
	ck_assert(find_mount(p, PLAN_MOUNT_RW_BIND, "/home/u/main/.git/worktrees/wt") <
	    find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/main/.git/worktrees/wt/config"));
	/* a denied protected path is hidden: deny wins */
	ck_assert(find_mount(p, PLAN_MOUNT_HIDE_DIR, "/home/u/proj/.vscode") >
	    find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/proj/.vscode"));
	/* a missing .git in a writable folder cannot be created */
	ck_assert(p->mounts[find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/data/.git")].missing);
	/* root-only files, including the /etc scan */
	ck_assert(find_mount(p, PLAN_MOUNT_HIDE_FILE, "/etc/shadow") >= 0);
	ck_assert(find_mount(p, PLAN_MOUNT_HIDE_FILE, "/etc/secret.conf") >= 0);
	ck_assert(find_mount(p, PLAN_MOUNT_HIDE_DIR, "/etc/polkit-1") >= 0);
	ck_assert(find_mount(p, PLAN_MOUNT_HIDE_DIR, "/etc/ssl/private") >= 0);
	ck_assert(find_mount(p, PLAN_MOUNT_HIDE_DIR, "/var/log") >= 0);
	ck_assert_int_eq(find_mount(p, PLAN_MOUNT_HIDE_FILE, "/etc/passwd"), -1);
	ck_assert_str_eq(plan_explain(p, "/etc/shadow")->rule, PLAN_RULE_ROOT_ONLY);
	/* deny comes last, a missing denied folder in a writable one too */
	deny = find_mount(p, PLAN_MOUNT_HIDE_DIR, "/home/u/data/secret");
	last = (long)p->n_mounts - 1;
	ck_assert(deny >= 0 && deny >= last - 1);
	ck_assert(p->mounts[last].missing);
	ck_assert_str_eq(p->mounts[last].dst, "/home/u/data/new");
	ck_assert_str_eq(plan_explain(p, "/home/u/data/secret/x")->rule, PLAN_RULE_PROFILE_DENY);
	plan_free(p);
	profile_free(pr);
	config_free(cfg);
}
END_TEST

/* Home is not a project: a read-write grant of the home folder (or a folder
 * above it) is refused; a read-only one hides credentials and sbox's own
 * files inside it. */
START_TEST(test_home_granted)
{
	struct plan_context ctx = context();
	struct profile *pr = profile_builtin("workspace", NULL);
	struct plan *p;
	sbox_error err;
	long grant;

	strv_append(&pr->folders_rw, "/home/u");
	ck_assert_ptr_null(policy_plan(pr, &ctx, &err));
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	ck_assert_ptr_nonnull(strstr(err.message, "home folder"));
	strv_free(pr->folders_rw);
	pr->folders_rw = NULL;
	strv_append(&pr->folders_rw, "/home");
	ck_assert_ptr_null(policy_plan(pr, &ctx, &err));
	strv_free(pr->folders_rw);
	pr->folders_rw = NULL;
	ctx.project = "/home/u";
	ck_assert_ptr_null(policy_plan(pr, &ctx, &err));
	ck_assert_str_eq(err.field, "project");
	ctx = context();
	strv_append(&pr->folders_ro, "/home/u");
	p = policy_plan(pr, &ctx, &err);
	ck_assert_ptr_nonnull(p);
	/* sbox's caches have no mount point in the host's /home/u: the grant
	 * is made sbox's own tmpfs with /home/u's entries bound again one by
	 * one (plan-explode.c), read-only again at the end */
	grant = find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u/.ssh");
	ck_assert_int_eq(find_mount(p, PLAN_MOUNT_RO_BIND, "/home/u"), -1);
	ck_assert(grant > find_mount(p, PLAN_MOUNT_TMPFS, "/home/u"));
	ck_assert(find_mount(p, PLAN_MOUNT_RW_BIND, "/home/u/.npm") > grant);
	ck_assert(find_mount(p, PLAN_MOUNT_REMOUNT_RO, "/home/u") >
	    find_mount(p, PLAN_MOUNT_HIDE_FILE, "/home/u/.npmrc"));
	ck_assert(find_mount(p, PLAN_MOUNT_HIDE_DIR, "/home/u/.ssh") > grant);
	ck_assert(find_mount(p, PLAN_MOUNT_HIDE_DIR, "/home/u/.aws") > grant);
	ck_assert(find_mount(p, PLAN_MOUNT_HIDE_FILE, "/home/u/.npmrc") > grant);
	ck_assert(find_mount(p, PLAN_MOUNT_HIDE_FILE, "/home/u/.config/sbox/config.json") > grant);
	plan_free(p);
	profile_free(pr);
}
END_TEST

/* Bad contexts are refused, and a project path is needed unless lab. */
START_TEST(test_context_errors)
{
	struct plan_context ctx = context();
	struct profile *pr = profile_builtin("workspace", NULL);
	struct plan *p;
	sbox_error err;

	ctx.project = "proj";
	error_clear(&err);
	ck_assert_ptr_null(policy_plan(pr, &ctx, &err));
	ck_assert_str_eq(err.field, "project");
	ctx.project = "/home/u/proj";
	ctx.scratch = NULL;
	error_clear(&err);
	ck_assert_ptr_null(policy_plan(pr, &ctx, &err));
	ck_assert_str_eq(err.field, "scratch");
	profile_free(pr);
	pr = profile_builtin("lab", NULL);
	ctx = context();
	ctx.project = NULL;
	p = policy_plan(pr, &ctx, &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->cwd, ctx.scratch);
	ck_assert_ptr_null(p->project);
	plan_free(p);
	profile_free(pr);
}
END_TEST

/* Suite of plan tests. */
static Suite *
plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_golden_builtins);
	tcase_add_test(tc, test_workspace_rules);
	tcase_add_test(tc, test_custom_root);
	tcase_add_test(tc, test_home_granted);
	tcase_add_test(tc, test_context_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(plan_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
