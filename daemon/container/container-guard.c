/* container-guard.c: the file guard seen from sboxd: the guard message sent
 * to sbox-init right after ready (the container is ready only once
 * sbox-init answers guarded, so no command runs unguarded), and the refused
 * reports it sends back, validated and rate-limited (sbox-init shares its
 * uid with the sandboxed processes: what it says is untrusted). */
#include "daemon/container/container.h"
#include "daemon/container/container-internal.h"
#include "protocol/ctl.h"
#include "policy/guard.h"
#include "policy/guard-filter.h"
#include "policy/plan.h"
#include "policy/strv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CONTAINER_REFUSED_BURST 100  /* reports at once */
#define CONTAINER_REFUSED_RATE  50   /* reports per second after that */

/* The file guard's filters, built once for each kind of spec (an
 * `exclude` list or not, hidden rules or not) and kept: libseccomp's build
 * is not paid again at each create. */
struct container_guard_kept {
	int                 built;
	const char         *why;  /* why they could not be built, or NULL */
	struct guard_filter f;
};
static struct container_guard_kept container_guard_filters[2][2];

/* The kept filters of kind (built the first time), or NULL with *why. */
static const struct guard_filter *
container_guard_filter(const struct guard_filter_kind *k, const char **why)
{
	struct container_guard_kept *c =
	    &container_guard_filters[!!k->exclude][!!k->reads];

	if (!c->built) {
		c->why = guard_filter_build(k, &c->f);
		c->built = 1;
	}
	*why = c->why;
	return c->why == NULL ? &c->f : NULL;
}

/* The guard message's body for a spec, with its filters' kind and sizes
 * when commands are supervised (their bytes go with the message), or NULL
 * with *why. */
json_t *
container_guard_spec(const struct guard_spec *g, int standins,
    const char **why)
{
	const char *off = getenv("SBOX_BENCH_NO_GUARD");
	struct guard_spec none = { .roots = (char *[]){ NULL }, .home = "/" };
	const struct guard_filter *f;
	struct guard_filter_kind k;
	json_t *j;

	*why = "out of memory";
	if (g == NULL)
		g = &none;
	if ((j = guard_spec_to_json(g)) == NULL)
		return NULL;
	if (off != NULL && strcmp(off, "1") == 0) {
		json_object_set_new(j, "supervise", json_false());
		return j;
	}
	if (!g->supervise || g->roots == NULL || g->roots[0] == NULL)
		return j;
	k.exclude = g->exclude != NULL;
	/* with stand-ins the kernel decides every read-only open: none is
	 * notified (container-standin.c) */
	k.reads = g->n_rules != 0 && !standins;
	if ((f = container_guard_filter(&k, why)) == NULL ||
	    json_object_set_new(j, "filter", json_pack("{s:b, s:b, s:b, s:I, "
	    "s:I}", "exclude", k.exclude, "reads", k.reads, "standins",
	    standins != 0, "notify", (json_int_t)f->len *
	    (json_int_t)sizeof *f->prog, "seal", (json_int_t)f->seal_len *
	    (json_int_t)sizeof *f->seal)) < 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* Write all of buf to fd; 0 or -1. */
static int
container_guard_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, p, len)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The bytes that go with the guard message m, in one memfd: the spec's
 * bulk (its protected names and rules, taken out of m), then the notify
 * filter and its seal when m has them. The memfd, or -1 with err. */
static int
container_guard_bulk(json_t *m, sbox_error *err)
{
	json_t *fj = json_object_get(m, "filter");
	const struct guard_filter *f = NULL;
	struct guard_filter_kind k;
	const char *why;
	char *bulk;
	size_t len;
	int fd;

	if (fj != NULL) {
		k.exclude = json_is_true(json_object_get(fj, "exclude"));
		k.reads = json_is_true(json_object_get(fj, "reads"));
		if ((f = container_guard_filter(&k, &why)) == NULL)
			return error_set(err, E_SANDBOX_SETUP, "%s", why);
	}
	if (guard_spec_bulk_out(m, &bulk, &len, err) < 0)
		return -1;
	if ((fd = memfd_create("sbox-guard", MFD_CLOEXEC)) < 0 ||
	    container_guard_write(fd, bulk, len) < 0 || (f != NULL &&
	    (container_guard_write(fd, f->prog, f->len * sizeof *f->prog) < 0 ||
	    container_guard_write(fd, f->seal, f->seal_len *
	    sizeof *f->seal) < 0))) {
		error_set_errno(err, E_SANDBOX_SETUP, errno, "the guard's memfd");
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	free(bulk);
	return fd;
}

/* Send the guard message (after ready); 0, or -1 when it cannot go. */
int
container_guard_send(struct container *c)
{
	sbox_error err = { 0 };
	json_t *m;
	int rc, fd = -1;

	if ((m = ctl_msg("guard", NULL)) == NULL ||
	    json_object_update(m, c->guard) < 0 ||
	    json_object_set_new(m, "type", json_string("guard")) < 0) {
		json_decref(m);
		container_abort(c, E_SANDBOX_SETUP, "out of memory");
		return -1;
	}
	if ((fd = container_guard_bulk(m, &err)) < 0) {
		json_decref(m);
		container_abort(c, E_SANDBOX_SETUP, err.message);
		return -1;
	}
	/* (encoded once: ctl_encode refuses one over CTL_MSG_MAX) */
	rc = container_ctl_send(c, m, &fd, 1, &err);
	json_decref(m);
	close(fd);
	if (rc < 0) {
		container_abort(c, E_SANDBOX_SETUP, strcmp(err.name,
		    E_TOO_LARGE) == 0 ? "the file guard's protected names are "
		    "too many to send to the sandbox" : err.message);
		return -1;
	}
	/* sent: the spec is not needed again (a container keeps only that
	 * it has one) */
	json_decref(c->guard);
	c->guard = json_true();
	c->guarding = 1;
	return 0;
}

/* A string member of at most max bytes without NUL, or NULL. */
static const char *
container_guard_str(json_t *m, const char *key, size_t max)
{
	json_t *v = json_object_get(m, key);

	if (!json_is_string(v) || json_string_length(v) > max ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return NULL;
	return json_string_value(v);
}

/* Answer a report's ticket: what sbox-init tells the refused process
 * (text NULL: nothing), so its held call is answered. */
static void
container_guard_told(struct container *c, json_int_t ticket,
    const char *text)
{
	json_t *m = ctl_msg("told", "{s:I,s:s?}", "ticket", ticket, "text",
	    text);

	if (m != NULL)
		container_ctl_send(c, m, NULL, 0, NULL);
	json_decref(m);
}

/* Handle refused {id, pid, process, op, path, errno, rule, reason,
 * hidden}; -1 = invalid. */
int
container_guard_refused(struct container *c, json_t *m)
{
	static const char *const ops[] = { "read", "create", "write", "rename",
	    "link", "chmod", "exec", "remove", "chown", "utime", "xattr",
	    "connect", NULL };
	json_t *id = json_object_get(m, "id"), *pid = json_object_get(m, "pid");
	json_t *en = json_object_get(m, "errno");
	json_t *ticket = json_object_get(m, "ticket");
	struct container_refusal r;
	char *tell = NULL;
	const char *process = container_guard_str(m, "process", 64);
	long long now;
	size_t i;
	int e, reading;

	r.op = container_guard_str(m, "op", 16);
	r.path = container_guard_str(m, "path", CTL_PATH_MAX + 256);
	r.rule = container_guard_str(m, "rule", 128);
	r.reason = container_guard_str(m, "reason", 512);
	for (i = 0; r.op != NULL && ops[i] != NULL; i++)
		if (strcmp(r.op, ops[i]) == 0)
			break;
	if (r.op == NULL || ops[i] == NULL || r.path == NULL ||
	    r.path[0] != '/' || r.rule == NULL || r.reason == NULL ||
	    !json_is_integer(id) || json_integer_value(id) < 0 ||
	    !json_is_integer(pid) || json_integer_value(pid) <= 0 ||
	    json_integer_value(pid) > (1 << 22) || !json_is_integer(en) ||
	    (ticket != NULL && (!json_is_integer(ticket) ||
	    json_integer_value(ticket) < 0)))
		return -1;
	e = (int)json_integer_value(en);
	r.hidden = json_is_true(json_object_get(m, "hidden"));
	reading = strcmp(r.op, "read") == 0;
	if (reading != r.hidden && !(r.hidden && (strcmp(r.op, "rename") == 0 ||
	    strcmp(r.op, "link") == 0)))
		return -1;
	/* exec is refused by the exclude rule only, and only that */
	if ((strcmp(r.op, "exec") == 0) != (strcmp(r.rule, "exclude") == 0))
		return -1;
	if (r.hidden ? (e != 0 && e != ENOENT && e != EACCES && e != EPERM &&
	    e != EBUSY) :
	    ((e != EPERM && e != EROFS && e != EACCES && e != ENAMETOOLONG) ||
	    (r.rule[0] != '\0' && strcmp(r.rule, PLAN_RULE_RUNS_LATER) != 0 &&
	    strcmp(r.rule, PLAN_RULE_CREDENTIALS) != 0 &&
	    strcmp(r.rule, PLAN_RULE_ACCOUNT) != 0 &&
	    strcmp(r.rule, "exclude") != 0 &&
	    /* a host program's socket: only a connect says so; a socket
	     * in a package cache: only a bind (a create) */
	    (strcmp(r.rule, PLAN_RULE_SOCKETS) != 0 ||
	    strcmp(r.op, "connect") != 0) &&
	    (strcmp(r.rule, PLAN_RULE_CACHES) != 0 ||
	    strcmp(r.op, "create") != 0))))
		return -1;
	r.id = (uint64_t)json_integer_value(id);
	r.pid = (pid_t)json_integer_value(pid);
	r.process = process != NULL ? process : "";
	r.errnum = e;
	r.tell = json_integer_value(ticket) > 0 ? &tell : NULL;
	now = container_now_ms();
	if (c->refused_ms == 0)
		c->refused_tokens = CONTAINER_REFUSED_BURST;
	c->refused_tokens += (double)(now - c->refused_ms) *
	    CONTAINER_REFUSED_RATE / 1000;
	if (c->refused_tokens > CONTAINER_REFUSED_BURST)
		c->refused_tokens = CONTAINER_REFUSED_BURST;
	c->refused_ms = now;
	if (c->refused_tokens >= 1) {
		c->refused_tokens -= 1;
		if (c->on_refused)
			c->on_refused(c, &r, c->arg);
	} /* else a flood: dropped */
	if (r.tell != NULL)
		container_guard_told(c, json_integer_value(ticket), tell);
	free(tell);
	return 0;
}

/* Handle exclude {id, xid, pid, argv, program, cwd, pattern, dev, ino,
 * umask} + 3 fds (the
 * callee takes them) and exclude_cancel {xid}; -1 = invalid. */
int
container_guard_exclude(struct container *c, json_t *m, int *fds, int nfds)
{
	struct container_exclude x;
	json_t *id = json_object_get(m, "id"), *xid = json_object_get(m, "xid");
	json_t *pid = json_object_get(m, "pid"), *v;
	size_t i;

	memset(&x, 0, sizeof x);
	x.fds[0] = x.fds[1] = x.fds[2] = -1;
	if (!json_is_integer(xid) || json_integer_value(xid) <= 0)
		return -1;
	x.xid = (long long)json_integer_value(xid);
	if (strcmp(ctl_type(m), "exclude_cancel") == 0) {
		if (nfds != 0)
			return -1;
		x.cancel = 1;
		if (c->on_exclude)
			c->on_exclude(c, &x, c->arg);
		return 0;
	}
	x.argv = json_object_get(m, "argv");
	x.program = container_guard_str(m, "program", 2 * CTL_PATH_MAX + 2);
	x.cwd = container_guard_str(m, "cwd", CTL_PATH_MAX);
	x.pattern = container_guard_str(m, "pattern", 1024);
	if (nfds != 3 || !json_is_integer(id) || json_integer_value(id) < 0 ||
	    !json_is_integer(pid) || json_integer_value(pid) <= 0 ||
	    json_integer_value(pid) > (1 << 22) || x.program == NULL ||
	    x.program[0] != '/' || x.cwd == NULL || x.pattern == NULL ||
	    !json_is_array(x.argv) || json_array_size(x.argv) == 0 ||
	    json_array_size(x.argv) > CTL_ARGV_MAX)
		return -1;
	json_array_foreach(x.argv, i, v)
		if (!json_is_string(v) || strlen(json_string_value(v)) !=
		    json_string_length(v))
			return -1;
	x.id = (uint64_t)json_integer_value(id);
	x.pid = (pid_t)json_integer_value(pid);
	/* the program's device and inode at the execve (0: not said) */
	x.dev = (unsigned long long)json_integer_value(json_object_get(m, "dev"));
	x.ino = (unsigned long long)json_integer_value(json_object_get(m, "ino"));
	x.umask = json_is_integer(json_object_get(m, "umask")) ?
	    (int)(json_integer_value(json_object_get(m, "umask")) & 0777) : 022;
	for (i = 0; i < 3; i++) {
		x.fds[i] = fds[i];
		fds[i] = -1;
	}
	if (c->on_exclude)
		c->on_exclude(c, &x, c->arg);
	else
		container_exclude_done(c, x.xid, 126, "sbox: this program may "
		    "only run outside the sandbox, and this sandbox cannot ask");
	for (i = 0; i < 3; i++)
		if (x.fds[i] >= 0)
			close(x.fds[i]);
	return 0;
}

/* Tell sbox-init how an exclusion ended. */
void
container_exclude_done(struct container *c, long long xid, int code,
    const char *message)
{
	json_t *m;

	if (c == NULL || c->state != CS_READY)
		return;
	m = ctl_msg("exclude_done", "{s:I,s:i,s:s?}", "xid", (json_int_t)xid,
	    "code", code, "message", message);
	if (m != NULL)
		container_ctl_send(c, m, NULL, 0, NULL);
	json_decref(m);
}

/* Send more protected paths to the running guard. */
int
container_guard_protect(struct container *c, char *const *paths,
    sbox_error *err)
{
	json_t *m, *a = strv_json(paths);
	int rc;

	if (c == NULL || c->state != CS_READY || c->guard == NULL) {
		json_decref(a);
		return error_set(err, E_SANDBOX_SETUP, "the sandbox's file guard "
		    "is not running: the paths git's config names cannot be "
		    "protected");
	}
	if (a == NULL || (m = ctl_msg("guard_protect", "{s:o}", "missing",
	    a)) == NULL)
		return error_nomem(err);
	if (json_dumpb(m, NULL, 0, JSON_COMPACT) > CTL_MSG_MAX) {
		json_decref(m);
		return error_set(err, E_LIMIT, "the git config names too many "
		    "paths to send to the sandbox's file guard");
	}
	rc = ctl_send(c->ctl, m, NULL, 0, err);
	json_decref(m);
	return rc < 0 ? -1 : 0;
}
