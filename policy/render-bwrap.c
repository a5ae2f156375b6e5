/* render-bwrap.c: a plan as bubblewrap arguments.
 *
 * Namespaces and process options first, then the plan's mounts in order
 * (later ones cover earlier ones, as bwrap applies them); sbox-init is the
 * command, kept apart (bwrap reads only options from --args). See
 * render-bwrap.h for how protected paths that are missing on the host are
 * handled (by the file guard, not here), and why folders above a protected
 * path inside a writable bind are bound over themselves. No I/O here. */
#include "policy/render-bwrap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing argument vector. */
struct render_bwrap_argv {
	char  **v;
	size_t  n, cap;
	int     oom;
};

/* Append a copy of s (remembers allocation failure). */
static void
render_bwrap_add(struct render_bwrap_argv *a, const char *s)
{
	char **nv, *c;

	if (a->oom)
		return;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		nv = realloc(a->v, cap * sizeof *nv);
		if (nv == NULL) {
			a->oom = 1;
			return;
		}
		a->v = nv;
		a->cap = cap;
	}
	if ((c = strdup(s)) == NULL) {
		a->oom = 1;
		return;
	}
	a->v[a->n++] = c;
	a->v[a->n] = NULL;
}

/* Append an option with one argument. */
static void
render_bwrap_add2(struct render_bwrap_argv *a, const char *opt, const char *x)
{
	render_bwrap_add(a, opt);
	render_bwrap_add(a, x);
}

/* Append an option with two arguments. */
static void
render_bwrap_add3(struct render_bwrap_argv *a, const char *opt, const char *x,
    const char *y)
{
	render_bwrap_add(a, opt);
	render_bwrap_add(a, x);
	render_bwrap_add(a, y);
}

/* Append an option with a number. */
static void
render_bwrap_addn(struct render_bwrap_argv *a, const char *opt,
    unsigned long long n, int octal)
{
	char buf[32];

	snprintf(buf, sizeof buf, octal ? "0%llo" : "%llu", n);
	render_bwrap_add2(a, opt, buf);
}

/* True when path equals dir or lies below it, by whole components. */
static int
render_bwrap_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' ||
	    path[n] == '/');
}

/* True when dir is a strict ancestor of path. */
static int
render_bwrap_strictly_under(const char *path, const char *dir)
{
	return strcmp(path, dir) != 0 && render_bwrap_under(path, dir);
}

/* True for the kinds that put a mount (a folder) others can lie inside. */
static int
render_bwrap_is_area(enum plan_mount_kind k)
{
	return k == PLAN_MOUNT_RO_BIND || k == PLAN_MOUNT_RW_BIND ||
	    k == PLAN_MOUNT_TMPFS || k == PLAN_MOUNT_HIDE_DIR ||
	    k == PLAN_MOUNT_PROC || k == PLAN_MOUNT_DEV;
}

/* True for the kinds that protect a path (read-only or hidden). */
static int
render_bwrap_is_protect(enum plan_mount_kind k)
{
	return k == PLAN_MOUNT_RO_BIND || k == PLAN_MOUNT_HIDE_FILE ||
	    k == PLAN_MOUNT_HIDE_DIR;
}

/* A git folder bound onto itself (so that renaming it fails): the folders
 * between it and its writable parent mount must not be renamable either. */
static int
render_bwrap_is_pinned_gitdir(const struct plan_mount *m)
{
	return m->kind == PLAN_MOUNT_RW_BIND && m->rule != NULL &&
	    strcmp(m->rule, PLAN_RULE_RUNS_LATER) == 0 && m->src != NULL &&
	    m->dst != NULL && strcmp(m->src, m->dst) == 0;
}

enum render_bwrap_area { AREA_ROOT, AREA_RW, AREA_RO, AREA_TMP };

/* What kind of place mount i's dst lies in: the last earlier mount that
 * covers its parent folder (*enc gets its index, or -1 for bwrap's root). */
static enum render_bwrap_area
render_bwrap_area(const struct plan *p, size_t i, long *enc)
{
	const struct plan_mount *m = &p->mounts[i], *e;
	size_t j, k;

	*enc = -1;
	for (j = i; j-- > 0;) {
		e = &p->mounts[j];
		if (!render_bwrap_is_area(e->kind) || e->dst == NULL ||
		    !render_bwrap_strictly_under(m->dst, e->dst))
			continue;
		*enc = (long)j;
		for (k = j + 1; k < i; k++)
			if (p->mounts[k].kind == PLAN_MOUNT_REMOUNT_RO &&
			    p->mounts[k].dst != NULL &&
			    strcmp(p->mounts[k].dst, e->dst) == 0)
				return AREA_RO;
		switch (e->kind) {
		case PLAN_MOUNT_RW_BIND:
			return AREA_RW;
		case PLAN_MOUNT_TMPFS:
			return AREA_TMP;
		default:
			return AREA_RO;
		}
	}
	return AREA_ROOT;
}

/* The host path behind dst inside the writable bind e (malloc'd). */
static char *
render_bwrap_host_path(const struct plan_mount *e, const char *dst)
{
	const char *rest, *src;
	size_t n;
	char *s;

	rest = strcmp(e->dst, "/") == 0 ? dst : dst + strlen(e->dst);
	src = strcmp(e->src, "/") == 0 && *rest ? "" : e->src;
	n = strlen(src) + strlen(rest) + 1;
	if ((s = malloc(n)) == NULL)
		return NULL;
	snprintf(s, n, "%s%s", src, rest);
	return s;
}

/* Parent self-binds to emit after mount index `after`. */
struct render_bwrap_parent {
	size_t after;
	char  *host;
	char  *dst;
	int    try;
};

struct render_bwrap_state {
	const struct plan             *p;
	struct render_bwrap_parent    *par;
	size_t                         n_par, cap_par;
	struct render_bwrap_standin   *si;   /* stand-ins, with a stage */
	size_t                         n_si;
	int                            oom;
};

/* Remember a parent folder to bind over itself after mount `after`. */
static void
render_bwrap_parent(struct render_bwrap_state *st, size_t after,
    const char *host, const char *dst, int try)
{
	struct render_bwrap_parent *n;
	size_t i;

	for (i = 0; i < st->n_par; i++)
		if (strcmp(st->par[i].dst, dst) == 0) {
			if (!try)
				st->par[i].try = 0;
			return;
		}
	if (st->n_par == st->cap_par) {
		size_t cap = st->cap_par ? st->cap_par * 2 : 8;
		if ((n = realloc(st->par, cap * sizeof *n)) == NULL) {
			st->oom = 1;
			return;
		}
		st->par = n;
		st->cap_par = cap;
	}
	n = &st->par[st->n_par];
	n->after = after;
	n->try = try;
	n->host = strdup(host);
	n->dst = strdup(dst);
	if (n->host == NULL || n->dst == NULL) {
		free(n->host);
		free(n->dst);
		st->oom = 1;
		return;
	}
	st->n_par++;
}

/* For a protected mount i inside the writable bind enc: every folder between
 * them becomes a mount point (renaming a parent fails with EBUSY). A
 * protected path that does not exist gets nothing here: the file guard in
 * sbox-init keeps it uncreatable (plan->guard->missing). */
static void
render_bwrap_protect(struct render_bwrap_state *st, size_t i, size_t enc)
{
	const struct plan_mount *m = &st->p->mounts[i];
	const struct plan_mount *e = &st->p->mounts[enc];
	size_t base = strcmp(e->dst, "/") == 0 ? 0 : strlen(e->dst);
	char *dst, *host, *slash;

	if (m->missing)
		return;
	if ((dst = strdup(m->dst)) == NULL) {
		st->oom = 1;
		return;
	}
	/* Walk the components strictly between e->dst and m->dst. */
	for (slash = strchr(dst + base + 1, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if ((host = render_bwrap_host_path(e, dst)) == NULL) {
			st->oom = 1;
			break;
		}
		render_bwrap_parent(st, enc, host, dst, m->optional);
		free(host);
		*slash = '/';
	}
	free(dst);
}

/* Emit the parent self-binds attached after mount index j. */
static void
render_bwrap_emit_parents(struct render_bwrap_state *st,
    struct render_bwrap_argv *a, size_t j)
{
	size_t i;

	for (i = 0; i < st->n_par; i++)
		if (st->par[i].after == j)
			render_bwrap_add3(a, st->par[i].try ? "--bind-try" :
			    "--bind", st->par[i].host, st->par[i].dst);
}

/* A new /proc whose host-wide writers are read-only, whoever runs it:
 * /proc/sys (sysctls: kernel.core_pattern runs a program as root; a new
 * procfs of a pid namespace has no sysrq-trigger). The sandbox's uid, which
 * owns none of them, stays the first layer. */
static void
render_bwrap_proc(struct render_bwrap_argv *a, const char *dst)
{
	char sys[4096];

	snprintf(sys, sizeof sys, "%s/sys", dst);
	render_bwrap_add2(a, "--proc", dst);
	render_bwrap_add3(a, "--ro-bind", "/proc/sys", sys);
}

/* A minimal /dev, read-only, with a /dev/shm of the plan's size (bwrap's
 * own /dev is a tmpfs sized at half the memory). */
static void
render_bwrap_dev(struct render_bwrap_argv *a, const struct plan_mount *m)
{
	char shm[4096];

	snprintf(shm, sizeof shm, "%s/shm", m->dst);
	render_bwrap_add2(a, "--dev", m->dst);
	render_bwrap_add2(a, "--perms", "01777");
	if (m->size_bytes)
		render_bwrap_addn(a, "--size", m->size_bytes, 0);
	render_bwrap_add2(a, "--tmpfs", shm);
	render_bwrap_add2(a, "--remount-ro", m->dst);
}

/* Add a stand-in for m to st's list and emit its bind from the stage. */
static void
render_bwrap_standin(struct render_bwrap_state *st, struct render_bwrap_argv *a,
    const struct plan_mount *m, const char *stage, int overlay)
{
	struct render_bwrap_standin *v, *s;
	char src[4096];
	size_t k = st->n_si;

	if ((v = realloc(st->si, (k + 1) * sizeof *v)) == NULL) {
		st->oom = 1;
		return;
	}
	st->si = v;
	s = &v[k];
	memset(s, 0, sizeof *s);
	if ((s->path = strdup(m->dst)) == NULL) {
		st->oom = 1;
		return;
	}
	st->n_si++;
	s->is_dir = overlay;
	s->overlay = overlay;
	/* a hidden folder or file itself is what a listing or open reads;
	 * in the home and /run only what is under them */
	s->report_root = m->kind == PLAN_MOUNT_HIDE_DIR;
	s->open_err = m->kind == PLAN_MOUNT_HIDE_FILE ? EACCES : ENOENT;
	s->mode = m->kind == PLAN_MOUNT_HIDE_DIR ? 0555 : m->mode ?
	    m->mode & 07777 : 0755;
	s->size_bytes = m->kind == PLAN_MOUNT_HIDE_DIR ? 65536 :
	    m->size_bytes;
	if (overlay)
		snprintf(src, sizeof src, "%s/o%zu", stage, k);
	else
		snprintf(src, sizeof src, "%s/f/a%zu", stage, k);
	render_bwrap_add3(a, overlay ? "--bind" : "--ro-bind", src, m->dst);
}

/* Is m a hidden tmpfs (the home, /run) that stand-ins may serve? */
static int
render_bwrap_hidden_tmpfs(const struct plan_mount *m)
{
	return m->kind == PLAN_MOUNT_TMPFS && m->rule != NULL &&
	    (strcmp(m->rule, PLAN_RULE_HOME) == 0 ||
	    strcmp(m->rule, PLAN_RULE_SOCKETS) == 0);
}

/* Emit one mount of the plan. */
static int
render_bwrap_mount(struct render_bwrap_state *st, struct render_bwrap_argv *a,
    size_t i, const struct render_bwrap_opts *o, sbox_error *err)
{
	const struct plan_mount *m = &st->p->mounts[i];
	const char *hide = o->hide_file_src ? o->hide_file_src : "/dev/null";
	enum render_bwrap_area area;
	long enc;

	area = render_bwrap_area(st->p, i, &enc);
	if (m->missing && render_bwrap_is_protect(m->kind)) {
		if (area == AREA_RO)
			return 0; /* cannot be created there anyway */
		if (area == AREA_RW)
			return 0; /* the file guard keeps it uncreatable */
		if (m->kind == PLAN_MOUNT_RO_BIND) {
			/* A tmpfs (or bwrap's root): nothing on the host; an
			 * empty read-only thing keeps the name taken. */
			if (m->is_dir)
				render_bwrap_add2(a, "--tmpfs", m->dst);
			else
				render_bwrap_add3(a, "--ro-bind", hide, m->dst);
			if (m->is_dir)
				render_bwrap_add2(a, "--remount-ro", m->dst);
			return 0;
		}
	}
	switch (m->kind) {
	case PLAN_MOUNT_RO_BIND:
	case PLAN_MOUNT_RW_BIND:
		if (m->src == NULL || m->src[0] != '/')
			return error_set(err, E_INTERNAL,
			    "plan: bind to %s has no absolute source", m->dst);
		/* nosuid: bwrap remounts every bind it makes with MS_NOSUID
		 * (and MS_NODEV), so the project and the read-write folders
		 * are nosuid inside -- the second layer under the seccomp
		 * rules that refuse S_ISUID/S_ISGID (render-seccomp.c); e2e
		 * test_escape_guard checks /proc/self/mountinfo */
		render_bwrap_add3(a, m->kind == PLAN_MOUNT_RO_BIND ?
		    (m->optional ? "--ro-bind-try" : "--ro-bind") :
		    (m->optional ? "--bind-try" : "--bind"), m->src, m->dst);
		break;
	case PLAN_MOUNT_TMPFS:
		if (o->standin_stage != NULL && render_bwrap_hidden_tmpfs(m)) {
			render_bwrap_standin(st, a, m, o->standin_stage, 1);
			break;
		}
		if (m->mode)
			render_bwrap_addn(a, "--perms", m->mode & 07777, 1);
		if (m->size_bytes)
			render_bwrap_addn(a, "--size", m->size_bytes, 0);
		render_bwrap_add2(a, "--tmpfs", m->dst);
		break;
	case PLAN_MOUNT_PROC:
		render_bwrap_proc(a, m->dst);
		break;
	case PLAN_MOUNT_DEV:
		render_bwrap_dev(a, m);
		break;
	case PLAN_MOUNT_DIR:
		if (m->mode)
			render_bwrap_addn(a, "--perms", m->mode & 07777, 1);
		render_bwrap_add2(a, "--dir", m->dst);
		break;
	case PLAN_MOUNT_HIDE_FILE:
		if (o->standin_stage != NULL) {
			render_bwrap_standin(st, a, m, o->standin_stage, 0);
			break;
		}
		render_bwrap_add3(a, "--ro-bind", hide, m->dst);
		break;
	case PLAN_MOUNT_HIDE_DIR:
		if (o->standin_stage != NULL) {
			/* sealed read-only at the end as the tmpfs was */
			render_bwrap_standin(st, a, m, o->standin_stage, 1);
			break;
		}
		/* made read-only at the end (render_bwrap_seal): a later bind
		 * inside it (a session's own scratch) needs its mount point */
		render_bwrap_add2(a, "--perms", "0555");
		render_bwrap_add2(a, "--size", "4096");
		render_bwrap_add2(a, "--tmpfs", m->dst);
		break;
	case PLAN_MOUNT_SYMLINK:
		if (m->src == NULL || m->src[0] == '\0')
			return error_set(err, E_INTERNAL,
			    "plan: symlink %s has no target", m->dst);
		render_bwrap_add3(a, "--symlink", m->src, m->dst);
		break;
	case PLAN_MOUNT_REMOUNT_RO:
		render_bwrap_add2(a, "--remount-ro", m->dst);
		break;
	default:
		return error_set(err, E_INTERNAL, "plan: unknown mount kind %d",
		    (int)m->kind);
	}
	return 0;
}

/* Make every hiding tmpfs read-only, once all binds are in place. */
static void
render_bwrap_seal(const struct plan *p, struct render_bwrap_argv *a)
{
	long enc;
	size_t i;

	for (i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].kind == PLAN_MOUNT_HIDE_DIR && !(p->mounts[i].missing &&
		    (render_bwrap_area(p, i, &enc) == AREA_RO ||
		    render_bwrap_area(p, i, &enc) == AREA_RW)))
			render_bwrap_add2(a, "--remount-ro", p->mounts[i].dst);
}

/* The namespace and process options (everything but mounts). */
static void
render_bwrap_options(const struct plan *p, const struct render_bwrap_opts *o,
    struct render_bwrap_argv *a)
{
	render_bwrap_add(a, "--unshare-user");
	render_bwrap_add(a, "--disable-userns");
	render_bwrap_add(a, "--unshare-pid");
	render_bwrap_add(a, "--unshare-ipc");
	render_bwrap_add(a, "--unshare-uts");
	render_bwrap_add(a, "--unshare-cgroup-try");
	render_bwrap_add(a, "--unshare-net");
	render_bwrap_add(a, "--die-with-parent");
	render_bwrap_add(a, "--new-session");
	render_bwrap_add(a, "--as-pid-1");
	render_bwrap_add2(a, "--cap-drop", "ALL");
	render_bwrap_add(a, "--clearenv");
	render_bwrap_add2(a, "--hostname", p->hostname && *p->hostname ?
	    p->hostname : "sbox");
	render_bwrap_addn(a, "--uid", (unsigned long long)p->uid, 0);
	render_bwrap_addn(a, "--gid", (unsigned long long)p->gid, 0);
	if (o->seccomp_fd >= 0)
		render_bwrap_addn(a, "--seccomp", (unsigned)o->seccomp_fd, 0);
}

/* Check the plan's mounts are spelled as bwrap needs. */
static int
render_bwrap_check(const struct plan *p, sbox_error *err)
{
	size_t i;

	if (p->n_mounts > 0 && p->mounts == NULL)
		return error_set(err, E_INTERNAL, "plan: mounts missing");
	for (i = 0; i < p->n_mounts; i++) {
		const char *d = p->mounts[i].dst;
		if (d == NULL || d[0] != '/' || strstr(d, "/../") ||
		    (strlen(d) >= 3 && strcmp(d + strlen(d) - 3, "/..") == 0))
			return error_set(err, E_INTERNAL,
			    "plan: mount %zu has no normalised absolute "
			    "destination", i);
		if (strlen(d) > 1 && d[strlen(d) - 1] == '/')
			return error_set(err, E_INTERNAL,
			    "plan: mount destination %s ends with '/'", d);
	}
	return 0;
}

/* Render the plan; on success fill *out (free with render_bwrap_free). */
int
render_bwrap(const struct plan *p, const struct render_bwrap_opts *o,
    struct render_bwrap_result *out, sbox_error *err)
{
	struct render_bwrap_argv a = { 0 }, c = { 0 };
	struct render_bwrap_state st = { 0 };
	enum render_bwrap_area area;
	char buf[32];
	long enc;
	size_t i;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (o->init_path == NULL || o->init_path[0] != '/')
		return error_set(err, E_INTERNAL,
		    "sbox-init needs an absolute path");
	if (o->ctl_fd < 0)
		return error_set(err, E_INTERNAL, "no control socket");
	if (render_bwrap_check(p, err) < 0)
		return -1;
	st.p = p;
	for (i = 0; i < p->n_mounts; i++) {
		if (!render_bwrap_is_protect(p->mounts[i].kind) &&
		    !render_bwrap_is_pinned_gitdir(&p->mounts[i]))
			continue;
		area = render_bwrap_area(p, i, &enc);
		if (area == AREA_RW)
			render_bwrap_protect(&st, i, (size_t)enc);
	}
	if (st.oom) {
		error_nomem(err);
		goto out;
	}
	render_bwrap_options(p, o, &a);
	for (i = 0; i < p->n_mounts; i++) {
		if (render_bwrap_mount(&st, &a, i, o, err) < 0)
			goto out;
		render_bwrap_emit_parents(&st, &a, i);
	}
	render_bwrap_seal(p, &a);
	render_bwrap_add3(&a, "--ro-bind", o->init_path, RENDER_BWRAP_INIT_PATH);
	render_bwrap_add3(&a, "--symlink", RENDER_BWRAP_INIT_PATH,
	    RENDER_BWRAP_SHIM_PATH);
	render_bwrap_add2(&a, "--chdir", p->cwd && p->cwd[0] == '/' ? p->cwd :
	    "/");
	render_bwrap_add(&c, RENDER_BWRAP_INIT_PATH);
	render_bwrap_addn(&c, "--ctl", (unsigned)o->ctl_fd, 0);
	snprintf(buf, sizeof buf, "%d", o->proxy_port > 0 &&
	    o->proxy_port < 65536 ? o->proxy_port : RENDER_BWRAP_PROXY_PORT);
	render_bwrap_add2(&c, "--proxy-port", buf);
	if (a.oom || c.oom) {
		error_nomem(err);
		goto out;
	}
	out->argv = a.v;
	out->argc = a.n;
	out->cmd = c.v;
	out->cmdc = c.n;
	out->standins = st.si;
	out->n_standins = st.n_si;
	st.si = NULL;
	st.n_si = 0;
	c.v = NULL;
	a.v = NULL;
	rc = 0;
out:
	for (i = 0; i < a.n && a.v; i++)
		free(a.v[i]);
	free(a.v);
	for (i = 0; i < c.n && c.v; i++)
		free(c.v[i]);
	free(c.v);
	for (i = 0; i < st.n_par; i++) {
		free(st.par[i].host);
		free(st.par[i].dst);
	}
	free(st.par);
	for (i = 0; i < st.n_si; i++)
		free(st.si[i].path);
	free(st.si);
	return rc;
}

/* Join the arguments NUL-separated (each one NUL-terminated) for --args. */
int
render_bwrap_blob(const struct render_bwrap_result *r, char **buf,
    size_t *len, sbox_error *err)
{
	size_t i, n = 0, l;
	char *b;

	for (i = 0; i < r->argc; i++)
		n += strlen(r->argv[i]) + 1;
	if ((b = malloc(n ? n : 1)) == NULL)
		return error_nomem(err);
	n = 0;
	for (i = 0; i < r->argc; i++) {
		l = strlen(r->argv[i]) + 1;
		memcpy(b + n, r->argv[i], l);
		n += l;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* Free what render_bwrap filled (and zero it). */
void
render_bwrap_free(struct render_bwrap_result *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->argc && r->argv; i++)
		free(r->argv[i]);
	free(r->argv);
	for (i = 0; i < r->cmdc && r->cmd; i++)
		free(r->cmd[i]);
	free(r->cmd);
	for (i = 0; i < r->n_standins; i++)
		free(r->standins[i].path);
	free(r->standins);
	memset(r, 0, sizeof *r);
}
