/* standin.c: the stand-ins of a container's hidden areas, one FUSE file
 * system per container served by sboxd from its loop (issue 38).
 *
 * Why: the file guard used to stop every read-only open with a seccomp
 * notification only to report the few a hidden path refused: a round trip
 * per open, the cost of a build. Now the kernel decides every read (the
 * mounts), and only an open that reaches a hidden area is seen, here.
 *
 * What the sandbox sees. Each hidden area is this file system's folder
 * aN: bwrap binds it (a hidden file or folder), or the launcher makes it the
 * lower layer of an overlay whose upper layer is the area's own tmpfs (the
 * private home, /run: writes land in the tmpfs as before). It mirrors the
 * host's names under the area's path -- which exist and whether each is a
 * folder -- and never a byte of content:
 *  - a host folder is an empty folder (listed empty; a listing of one is a
 *    read refused: reported);
 *  - any other host name is a file that does not exist for a sandboxed
 *    process (stat, access and open fail with ENOENT, an open is
 *    reported) and an empty one for sbox-init and the launcher (an
 *    overlay copies it up empty when sbox-init performs a write there:
 *    the private copy starts empty, as the name did in the tmpfs before);
 *  - a host name that is missing is missing (never reported: the sandbox
 *    changed nothing there).
 * A positive name is answered the same at each lookup, so the kernel never
 * caches a refusal: each open of a hidden file reaches us and is reported
 * (an overlay caches the missing names of its lower layer, which is why
 * hidden files are positive names and not ENOENT lookups).
 *
 * Trust: requests are made by the kernel for any process that walks into
 * the areas; names are the sandbox's bytes. A name is at most NAME_MAX,
 * never "." or ".." (the kernel resolves those), and is looked up with
 * fstatat(AT_SYMLINK_NOFOLLOW) under a path made only of names already
 * seen to be folders. Nothing is opened on the host. At most
 * STANDIN_NODES names are held per container. Which process asks is the
 * request's thread id (the launcher's pid namespace is the host's):
 * /proc/TID/status says its thread group's ids in each pid namespace --
 * one level is outside the sandbox (bwrap, the launcher), a last id of 1
 * is sbox-init; everything else is a sandboxed process. */
#include "daemon/container/standin.h"

#include <errno.h>
#include <event2/event.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define STANDIN_NODES  65536   /* names held per container */
#define STANDIN_HELD   64      /* opens held for a told refusal */
#define STANDIN_BUF    (FUSE_MIN_READ_BUFFER + 65536)
#define STANDIN_VALID  1       /* seconds a positive name is cached */
#define STANDIN_COPIED 4096    /* names copied up, remembered */

enum standin_kind { SK_FREE, SK_ROOT, SK_DIR, SK_FILE };

/* A name the kernel holds (nodeid = index + 1). */
struct standin_node {
	enum standin_kind kind;
	int               area;     /* which area it is under */
	uint64_t          parent;   /* its folder's nodeid */
	uint64_t          nlookup;  /* lookups the kernel has not forgotten */
	char             *path;     /* host path */
	const char       *name;     /* the name it is looked up by: path's
	                               last component, or an area's aN */
	char             *name_own; /* an area's name */
	uint32_t          hash;
	uint32_t          next_free;
};

/* An open held until its refusal has been told. */
struct standin_held {
	uint64_t  token;   /* 0: free */
	uint64_t  unique;
	int       err;
	long long deadline;
};

struct standin {
	int                  slot;       /* in standin_tab: the epoll key */
	uint64_t             gen;        /* its reports' (a slot is reused) */
	int                  fd;
	int                  watched;    /* in the epoll set */
	long long            retry_at;   /* not mounted yet: look again then */
	int                  retry_ms;
	int                  armed;      /* watched since it was mounted */
	struct standin_area *areas;
	size_t               n_areas;
	uid_t                uid;
	gid_t                gid;
	standin_read_cb      cb;
	void                *arg;
	struct standin_node *nodes;
	size_t               n_nodes, cap_nodes;
	uint32_t             free_head;  /* index + 1 of a free node, 0: none */
	uint32_t            *bucket;     /* index + 1 chains by (parent, name) */
	size_t               n_bucket;
	uint32_t            *chain;
	struct standin_held  held[STANDIN_HELD];
	uint64_t             next_token;
	uint64_t             n_requests, n_reads;
	char               **copied;     /* host paths an overlay copied up */
	size_t               n_copied;
};

static char standin_buf[STANDIN_BUF];

static void standin_queue(struct standin *s, pid_t tid, const char *path,
    int err, uint64_t token);

/* Milliseconds on the monotonic clock. */
static long long
standin_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* FNV-1a of a folder's nodeid and a name. */
static uint32_t
standin_hash(uint64_t parent, const char *name)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof parent; i++) {
		h ^= (uint8_t)(parent >> (8 * i));
		h *= 16777619u;
	}
	for (; *name != '\0'; name++) {
		h ^= (uint8_t)*name;
		h *= 16777619u;
	}
	return h;
}

/* Write one answer: error (negative errno) or the body. */
static void
standin_reply(struct standin *s, uint64_t unique, int error, const void *body,
    size_t len)
{
	struct fuse_out_header h;
	struct iovec v[2];

	h.len = (uint32_t)(sizeof h + (error == 0 ? len : 0));
	h.error = error;
	h.unique = unique;
	v[0].iov_base = &h;
	v[0].iov_len = sizeof h;
	v[1].iov_base = (void *)body;
	v[1].iov_len = error == 0 ? len : 0;
	/* fails with ENOENT when the request was interrupted meanwhile, or
	 * when the connection is gone (the container ended): nothing to do */
	if (writev(s->fd, v, error == 0 && len > 0 ? 2 : 1) < 0) {
	}
}

/* The node of a nodeid, or NULL. */
static struct standin_node *
standin_node(struct standin *s, uint64_t nodeid)
{
	if (nodeid == 0 || nodeid > s->n_nodes ||
	    s->nodes[nodeid - 1].kind == SK_FREE)
		return NULL;
	return &s->nodes[nodeid - 1];
}

/* Read /proc/TID/what into buf (NUL-terminated); its length, or -1. */
static ssize_t
standin_proc_read(pid_t tid, const char *what, char *buf, size_t len)
{
	char p[64];
	ssize_t n;
	int fd;

	snprintf(p, sizeof p, "/proc/%d/%s", (int)tid, what);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The ids of a status line (NStgid:, NSpid:) into ids; how many. */
static int
standin_ids(const char *buf, const char *key, long *ids, int max)
{
	const char *l = strstr(buf, key);
	char *end;
	int n = 0;

	for (l = l != NULL ? l + strlen(key) : NULL; l != NULL && n < max; n++) {
		ids[n] = strtol(l, &end, 10);
		if (end == l)
			break;
		l = end;
	}
	return n;
}

/* Is the requesting thread inside the sandbox and not sbox-init? Its id
 * there goes to *tid. A thread that cannot be read is taken as inside
 * (it gets what a sandboxed process gets). */
static int
standin_sandboxed(pid_t host_tid, pid_t *tid)
{
	char buf[2048];
	long ids[32];
	int n;

	*tid = 0;
	if (standin_proc_read(host_tid, "status", buf, sizeof buf) < 0)
		return 1;
	if ((n = standin_ids(buf, "\nNSpid:", ids, 32)) > 0)
		*tid = (pid_t)ids[n - 1];
	/* one level: outside the sandbox (bwrap, the launcher); a last id
	 * of 1: sbox-init */
	n = standin_ids(buf, "\nNStgid:", ids, 32);
	return !(n == 1 || (n > 1 && ids[n - 1] == 1));
}

/* Is the host thread in an open of a file (open, openat, openat2, creat:
 * /proc/TID/syscall, the call it sleeps in)? A stat or an access of the
 * same name is no read. */
static int
standin_in_open(pid_t host_tid)
{
	char buf[64];
	long nr;

	if (standin_proc_read(host_tid, "syscall", buf, sizeof buf) < 0)
		return 0;	/* not told: its open still fails */
	nr = strtol(buf, NULL, 10);
	return
#ifdef SYS_open
	    nr == SYS_open ||
#endif
#ifdef SYS_creat
	    nr == SYS_creat ||
#endif
	    nr == SYS_openat || nr == SYS_openat2;
}

/* The attributes of node at nodeid. */
static void
standin_attr(const struct standin *s, const struct standin_node *n,
    uint64_t nodeid, struct fuse_attr *a)
{
	memset(a, 0, sizeof *a);
	a->ino = nodeid;
	/* owner-writable: an overlay checks a write against its lower
	 * file's mode before it copies it up (empty) for sbox-init */
	a->mode = n->kind == SK_FILE ? S_IFREG | 0644 : S_IFDIR | 0755;
	a->nlink = n->kind == SK_FILE ? 1 : 2;
	a->uid = s->uid;
	a->gid = s->gid;
	a->blksize = 4096;
}

/* A new node (its path taken), or NULL when full. */
static struct standin_node *
standin_node_new(struct standin *s, enum standin_kind kind, int area,
    uint64_t parent, char *path, char *name, uint64_t *nodeid)
{
	struct standin_node *n, *nn;
	size_t i;
	uint32_t *ch;

	if (s->free_head != 0) {
		i = s->free_head - 1;
		s->free_head = s->nodes[i].next_free;
	} else {
		if (s->n_nodes >= STANDIN_NODES)
			return NULL;
		if (s->n_nodes == s->cap_nodes) {
			size_t cap = s->cap_nodes ? s->cap_nodes * 2 : 64;

			if ((nn = realloc(s->nodes, cap * sizeof *nn)) == NULL)
				return NULL;
			if ((ch = realloc(s->chain, cap * sizeof *ch)) == NULL) {
				s->nodes = nn;
				return NULL;
			}
			s->nodes = nn;
			s->chain = ch;
			s->cap_nodes = cap;
		}
		i = s->n_nodes++;
	}
	n = &s->nodes[i];
	memset(n, 0, sizeof *n);
	n->kind = kind;
	n->area = area;
	n->parent = parent;
	n->path = path;
	n->name_own = name;
	n->name = name != NULL ? name : strrchr(path, '/') != NULL ?
	    strrchr(path, '/') + 1 : path;
	n->hash = standin_hash(parent, n->name);
	s->chain[i] = s->bucket[n->hash % s->n_bucket];
	s->bucket[n->hash % s->n_bucket] = (uint32_t)i + 1;
	*nodeid = i + 1;
	return n;
}

/* Forget nlookup lookups of nodeid; free it when none are left. */
static void
standin_forget(struct standin *s, uint64_t nodeid, uint64_t nlookup)
{
	struct standin_node *n = standin_node(s, nodeid);
	uint32_t *at;
	size_t i;

	if (n == NULL || n->kind == SK_ROOT || n->parent == 1)
		return; /* the root and the areas stay */
	n->nlookup = nlookup >= n->nlookup ? 0 : n->nlookup - nlookup;
	if (n->nlookup > 0)
		return;
	i = nodeid - 1;
	for (at = &s->bucket[n->hash % s->n_bucket]; *at != 0;
	    at = &s->chain[*at - 1])
		if (*at == i + 1) {
			*at = s->chain[i];
			break;
		}
	free(n->path);
	free(n->name_own);
	memset(n, 0, sizeof *n);
	n->next_free = s->free_head;
	s->free_head = (uint32_t)i + 1;
}

/* LOOKUP: a name under a folder. */
static void
standin_lookup(struct standin *s, const struct fuse_in_header *in,
    const char *name, size_t len)
{
	struct standin_node *dir = standin_node(s, in->nodeid), *n = NULL;
	struct fuse_entry_out e;
	struct stat st;
	uint64_t id = 0;
	uint32_t at, h;
	char *path;
	int area = -1;

	if (len == 0 || name[len - 1] != '\0' || strlen(name) > NAME_MAX ||
	    strchr(name, '/') != NULL || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0 || dir == NULL) {
		standin_reply(s, in->unique, -ENOENT, NULL, 0);
		return;
	}
	if (dir->kind == SK_FILE) {
		standin_reply(s, in->unique, -ENOTDIR, NULL, 0);
		return;
	}
	h = standin_hash(in->nodeid, name);
	for (at = s->bucket[h % s->n_bucket]; at != 0; at = s->chain[at - 1])
		if (s->nodes[at - 1].hash == h &&
		    s->nodes[at - 1].parent == in->nodeid &&
		    strcmp(s->nodes[at - 1].name, name) == 0) {
			n = &s->nodes[at - 1];
			id = at;
			break;
		}
	if (n == NULL && dir->kind == SK_ROOT) {
		standin_reply(s, in->unique, -ENOENT, NULL, 0);
		return;	/* the areas are made at start */
	}
	if (n == NULL) {
		area = dir->area;
		if (asprintf(&path, "%s/%s", strcmp(dir->path, "/") == 0 ? "" :
		    dir->path, name) < 0) {
			standin_reply(s, in->unique, -ENOMEM, NULL, 0);
			return;
		}
		if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			free(path);
			standin_reply(s, in->unique, -ENOENT, NULL, 0);
			return;
		}
		if ((n = standin_node_new(s, S_ISDIR(st.st_mode) ? SK_DIR :
		    SK_FILE, area, in->nodeid, path, NULL, &id)) == NULL) {
			free(path);
			standin_reply(s, in->unique, -ENFILE, NULL, 0);
			return;
		}
	} else if (n->parent != 1) {
		/* asked again (the kernel revalidates): the host may have
		 * changed meanwhile */
		if (fstatat(AT_FDCWD, n->path, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (S_ISDIR(st.st_mode) != 0) != (n->kind == SK_DIR)) {
			standin_reply(s, in->unique, -ENOENT, NULL, 0);
			return;
		}
	}
	n->nlookup++;
	memset(&e, 0, sizeof e);
	e.nodeid = id;
	e.entry_valid = STANDIN_VALID;
	/* a file's attributes are asked each time: a sandboxed stat fails */
	e.attr_valid = n->kind == SK_FILE ? 0 : STANDIN_VALID;
	standin_attr(s, n, id, &e.attr);
	standin_reply(s, in->unique, 0, &e, sizeof e);
}

/* Hold the answer err to unique until token's refusal is told. */
static void
standin_hold(struct standin *s, uint64_t unique, int err, pid_t tid,
    const char *path)
{
	struct standin_held *h = NULL;
	size_t i;

	s->n_reads++;
	for (i = 0; i < STANDIN_HELD && h == NULL; i++)
		if (s->held[i].token == 0)
			h = &s->held[i];
	if (h == NULL || s->cb == NULL || tid <= 0) {
		/* a flood: answered at once, still reported */
		if (s->cb != NULL && tid > 0)
			standin_queue(s, tid, path, -err, 0);
		standin_reply(s, unique, err, NULL, 0);
		return;
	}
	h->token = ++s->next_token;
	h->unique = unique;
	h->err = err;
	h->deadline = standin_now_ms() + STANDIN_HOLD_MS;
	standin_queue(s, tid, path, -err, h->token);
}

/* Has an overlay copied n's name up (a private file of the same name
 * now stands over it)? */
static int
standin_copied(const struct standin *s, const struct standin_node *n)
{
	size_t i;

	if (n->kind != SK_FILE || s->n_copied == 0)
		return 0;
	for (i = 0; i < s->n_copied; i++)
		if (strcmp(s->copied[i], n->path) == 0)
			return 1;
	return 0;
}

/* Remember that n's name was copied up (kept for the container's life: a
 * forgotten node looked up again is the same name). */
static void
standin_copy_mark(struct standin *s, const struct standin_node *n)
{
	char **v;

	if (standin_copied(s, n) || s->n_copied >= STANDIN_COPIED)
		return;
	if ((v = realloc(s->copied, (s->n_copied + 1) * sizeof *v)) == NULL)
		return;
	s->copied = v;
	if ((v[s->n_copied] = strdup(n->path)) != NULL)
		s->n_copied++;
}

/* GETATTR, ACCESS, OPEN, OPENDIR: what a sandboxed process may see. */
static void
standin_node_op(struct standin *s, const struct fuse_in_header *in)
{
	struct standin_node *n = standin_node(s, in->nodeid);
	struct fuse_attr_out a;
	struct fuse_open_out o;
	pid_t tid = 0;
	int inside;

	if (n == NULL) {
		standin_reply(s, in->unique, -ENOENT, NULL, 0);
		return;
	}
	inside = standin_sandboxed((pid_t)in->pid, &tid);
	switch (in->opcode) {
	case FUSE_GETATTR:
		if (inside && n->kind == SK_FILE &&
		    s->areas[n->area].open_err == ENOENT &&
		    !standin_copied(s, n)) {
			/* a name the sandbox does not have: an open fails here,
			 * at its permission check, before any FUSE open */
			if (standin_in_open((pid_t)in->pid))
				standin_hold(s, in->unique, -ENOENT, tid, n->path);
			else
				standin_reply(s, in->unique, -ENOENT, NULL, 0);
			return;
		}
		memset(&a, 0, sizeof a);
		a.attr_valid = n->kind == SK_FILE ? 0 : STANDIN_VALID;
		standin_attr(s, n, in->nodeid, &a.attr);
		standin_reply(s, in->unique, 0, &a, sizeof a);
		return;
	case FUSE_ACCESS:
		standin_reply(s, in->unique, inside && n->kind == SK_FILE &&
		    s->areas[n->area].open_err == ENOENT &&
		    !standin_copied(s, n) ? -ENOENT : 0, NULL, 0);
		return;
	case FUSE_OPEN:
		if (inside && !standin_copied(s, n)) {
			standin_hold(s, in->unique, -s->areas[n->area].open_err,
			    tid, n->path);
			return;
		}
		/* sbox-init's (an overlay copying the name up, empty, for a
		 * write it performs): from now on the overlay asks the lower
		 * file's attributes for the private copy */
		if (!inside && n->kind == SK_FILE)
			standin_copy_mark(s, n);
		break;
	case FUSE_OPENDIR:
		if (inside && n->kind != SK_ROOT && (n->parent != 1 ||
		    s->areas[n->area].report_root)) {
			/* listed, empty: the read is told, then answered */
			s->n_reads++;
			if (s->cb != NULL && tid > 0)
				standin_queue(s, tid, n->path, 0, 0);
		}
		break;
	}
	memset(&o, 0, sizeof o);
	standin_reply(s, in->unique, 0, &o, sizeof o);
}

/* INIT: the kernel's version and ours. */
static void
standin_init(struct standin *s, const struct fuse_in_header *in,
    const struct fuse_init_in *ii, size_t len)
{
	struct fuse_init_out o;

	memset(&o, 0, sizeof o);
	o.major = FUSE_KERNEL_VERSION;
	o.minor = FUSE_KERNEL_MINOR_VERSION;
	if (len < 8 || ii->major != FUSE_KERNEL_VERSION) {
		standin_reply(s, in->unique, -EPROTO, NULL, 0);
		return;
	}
	if (ii->minor < o.minor)
		o.minor = ii->minor;
	o.max_readahead = 0;
	o.max_write = 4096;
	o.max_background = 16;
	o.congestion_threshold = 12;
	o.time_gran = 1;
	standin_reply(s, in->unique, 0, &o, o.minor < 5 ? 8 : o.minor < 23 ?
	    24 : sizeof o);
}

/* One request. */
static void
standin_request(struct standin *s, const char *buf, size_t len)
{
	const struct fuse_in_header *in = (const void *)buf;
	const char *arg = buf + sizeof *in;
	size_t alen = len - sizeof *in;
	struct fuse_statfs_out sf;
	const struct fuse_batch_forget_in *bf;
	const struct fuse_forget_one *fo;
	uint32_t i;

	s->n_requests++;
	switch (in->opcode) {
	case FUSE_INIT:
		standin_init(s, in, (const void *)arg, alen);
		return;
	case FUSE_LOOKUP:
		standin_lookup(s, in, arg, alen);
		return;
	case FUSE_FORGET:
		if (alen >= sizeof(struct fuse_forget_in))
			standin_forget(s, in->nodeid,
			    ((const struct fuse_forget_in *)(const void *)arg)->nlookup);
		return;	/* no answer */
	case FUSE_BATCH_FORGET:
		if (alen < sizeof *bf)
			return;
		bf = (const void *)arg;
		fo = (const void *)(arg + sizeof *bf);
		for (i = 0; i < bf->count && sizeof *bf + (i + 1) *
		    sizeof *fo <= alen; i++)
			standin_forget(s, fo[i].nodeid, fo[i].nlookup);
		return;
	case FUSE_INTERRUPT:
		return;	/* what is held is answered soon anyway */
	case FUSE_GETATTR:
	case FUSE_ACCESS:
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		standin_node_op(s, in);
		return;
	case FUSE_READ:
	case FUSE_READDIR:
		standin_reply(s, in->unique, 0, NULL, 0); /* empty */
		return;
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FLUSH:
	case FUSE_FSYNC:
	case FUSE_FSYNCDIR:
	case FUSE_DESTROY:
		standin_reply(s, in->unique, 0, NULL, 0);
		return;
	case FUSE_STATFS:
		memset(&sf, 0, sizeof sf);
		sf.st.bsize = sf.st.frsize = 4096;
		sf.st.namelen = NAME_MAX;
		standin_reply(s, in->unique, 0, &sf, sizeof sf);
		return;
	case FUSE_SETATTR: case FUSE_MKNOD: case FUSE_MKDIR:
	case FUSE_UNLINK: case FUSE_RMDIR: case FUSE_RENAME:
	case FUSE_RENAME2: case FUSE_LINK: case FUSE_SYMLINK:
	case FUSE_CREATE: case FUSE_WRITE: case FUSE_FALLOCATE:
	case FUSE_SETXATTR: case FUSE_REMOVEXATTR:
		standin_reply(s, in->unique, -EROFS, NULL, 0);
		return;
	default:	/* xattrs, locks, ioctl, poll, lseek, ...: none */
		standin_reply(s, in->unique, -ENOSYS, NULL, 0);
		return;
	}
}

/* The server thread and what the main loop shares with it (under
 * standin_mu: every stand-in, its nodes and held opens, the report queue). */
#define STANDIN_MAX 1024
#define STANDIN_WAKE ((uint64_t)-1)  /* the epoll key of standin_wake */

/* A refused read for the main loop (its callback sends it on). */
struct standin_report {
	int       slot;
	uint64_t  gen;
	pid_t     tid;
	char     *path;
	int       err;
	uint64_t  token;
};

static pthread_mutex_t standin_mu = PTHREAD_MUTEX_INITIALIZER;
static struct standin *standin_tab[STANDIN_MAX];
static uint64_t standin_next_gen;
static int standin_ep = -1, standin_wake = -1, standin_note = -1;
static struct event *standin_note_ev;
static struct standin_report *standin_q;
static size_t standin_nq, standin_capq;

/* Queue a report for the main loop (standin_mu held). */
static void
standin_queue(struct standin *s, pid_t tid, const char *path, int err,
    uint64_t token)
{
	struct standin_report *v;
	uint64_t one = 1;

	if (standin_nq == standin_capq) {
		size_t cap = standin_capq ? standin_capq * 2 : 16;

		if (cap > 4096 || (v = realloc(standin_q, cap * sizeof *v)) ==
		    NULL)
			return;	/* a flood: its open is answered at its time */
		standin_q = v;
		standin_capq = cap;
	}
	v = &standin_q[standin_nq];
	if ((v->path = strdup(path)) == NULL)
		return;
	v->slot = s->slot;
	v->gen = s->gen;
	v->tid = tid;
	v->err = err;
	v->token = token;
	standin_nq++;
	if (write(standin_note, &one, sizeof one) < 0) {
		/* the count is already non-zero: the loop will look */
	}
}

/* Watch s's device in the epoll set (again); standin_mu held. */
static void
standin_watch(struct standin *s)
{
	struct epoll_event ev = { .events = EPOLLIN };

	ev.data.u64 = (uint64_t)s->slot;
	if (s->watched)
		epoll_ctl(standin_ep, EPOLL_CTL_DEL, s->fd, NULL);
	s->watched = epoll_ctl(standin_ep, EPOLL_CTL_ADD, s->fd, &ev) == 0;
}

/* Serve what waits on s's device; standin_mu held. */
static void
standin_serve(struct standin *s)
{
	ssize_t n;
	int i;

	for (i = 0; i < 64; i++) {
		n = read(s->fd, standin_buf, sizeof standin_buf);
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;	/* ENOENT: one interrupted meanwhile */
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0 && errno == EPERM) {
			/* not mounted yet: the device polls as an error until
			 * it is, and only a watch made after the mount waits on
			 * the connection: look again soon */
			epoll_ctl(standin_ep, EPOLL_CTL_DEL, s->fd, NULL);
			s->watched = 0;
			s->retry_at = standin_now_ms() + s->retry_ms;
			if (s->retry_ms < 64)
				s->retry_ms *= 2;
			return;
		}
		if (n < 0) {	/* ENODEV: unmounted, the container ended */
			epoll_ctl(standin_ep, EPOLL_CTL_DEL, s->fd, NULL);
			s->watched = 0;
			return;
		}
		if (!s->armed) {
			/* mounted: a watch made before the mount never wakes
			 * (the device polled as an error, so the kernel kept
			 * no wait on its queue): watch it afresh */
			s->armed = 1;
			standin_watch(s);
		}
		if ((size_t)n < sizeof(struct fuse_in_header) ||
		    ((const struct fuse_in_header *)(const void *)
		    standin_buf)->len != (uint32_t)n)
			continue;
		standin_request(s, standin_buf, (size_t)n);
	}
}

/* Answer one held open. */
static void
standin_answer(struct standin *s, struct standin_held *h)
{
	standin_reply(s, h->unique, h->err, NULL, 0);
	h->token = 0;
}

/* Answer the held opens whose time has come, watch again the devices due
 * for it; the milliseconds until the next such moment (-1: none).
 * standin_mu held. */
static int
standin_due(void)
{
	long long now = standin_now_ms(), next = -1, t;
	struct standin *s;
	size_t i, k;

	for (k = 0; k < STANDIN_MAX; k++) {
		if ((s = standin_tab[k]) == NULL || s->fd < 0)
			continue;
		for (i = 0; i < STANDIN_HELD; i++) {
			if (s->held[i].token == 0)
				continue;
			if ((t = s->held[i].deadline) <= now)
				standin_answer(s, &s->held[i]);
			else if (next < 0 || t < next)
				next = t;
		}
		if (!s->watched && s->retry_at > 0) {
			if (s->retry_at <= now) {
				s->retry_at = 0;
				standin_watch(s);
			} else if (next < 0 || s->retry_at < next)
				next = s->retry_at;
		}
	}
	return next < 0 ? -1 : next <= now ? 0 : (int)(next - now);
}

/* The server thread: every container's device, and the held opens'
 * deadlines. It never waits on sboxd's loop, so that sboxd itself may use
 * a file of a hidden area (a kept file, a descriptor sbox-init opened
 * for it) without waiting for its own answer. */
static void *
standin_thread(void *arg)
{
	struct epoll_event evs[64];
	uint64_t v;
	int n, i, timeout;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&standin_mu);
		timeout = standin_due();
		pthread_mutex_unlock(&standin_mu);
		n = epoll_wait(standin_ep, evs, 64, timeout);
		pthread_mutex_lock(&standin_mu);
		for (i = 0; i < n; i++) {
			if (evs[i].data.u64 == STANDIN_WAKE) {
				if (read(standin_wake, &v, sizeof v) < 0) {
				}
				continue;
			}
			if (evs[i].data.u64 < STANDIN_MAX &&
			    standin_tab[evs[i].data.u64] != NULL &&
			    standin_tab[evs[i].data.u64]->fd >= 0)
				standin_serve(standin_tab[evs[i].data.u64]);
		}
		pthread_mutex_unlock(&standin_mu);
	}
	return NULL;
}

/* Wake the thread (a device to watch, a moment changed). */
static void
standin_poke(void)
{
	uint64_t one = 1;

	if (write(standin_wake, &one, sizeof one) < 0) {
	}
}

/* The main loop: reports the thread queued go to their callbacks. */
static void
standin_on_note(evutil_socket_t fd, short what, void *arg)
{
	struct standin_report *q;
	struct standin *s;
	size_t n, i;
	uint64_t v;

	(void)what;
	(void)arg;
	if (read(fd, &v, sizeof v) < 0) {
	}
	pthread_mutex_lock(&standin_mu);
	q = standin_q;
	n = standin_nq;
	standin_q = NULL;
	standin_nq = standin_capq = 0;
	pthread_mutex_unlock(&standin_mu);
	for (i = 0; i < n; i++) {
		/* only the main loop frees a stand-in: stable here */
		s = standin_tab[q[i].slot];
		if (s != NULL && s->gen == q[i].gen && s->cb != NULL)
			s->cb(s->arg, q[i].tid, q[i].path, q[i].err, q[i].token);
		free(q[i].path);
	}
	free(q);
}

/* Start the thread and its descriptors once; -1 with errno. */
static int
standin_start(struct event_base *base)
{
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t all, old;
	pthread_t t;
	int e;

	if (standin_ep >= 0)
		return 0;
	if ((standin_ep = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (standin_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    (standin_note = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		return -1;
	ev.data.u64 = STANDIN_WAKE;
	if (epoll_ctl(standin_ep, EPOLL_CTL_ADD, standin_wake, &ev) < 0 ||
	    (standin_note_ev = event_new(base, standin_note, EV_READ |
	    EV_PERSIST, standin_on_note, NULL)) == NULL ||
	    event_add(standin_note_ev, NULL) < 0)
		return -1;
	/* no signal for the thread: sboxd's loop takes them */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&t, NULL, standin_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		errno = e;
		return -1;
	}
	pthread_detach(t);
	return 0;
}

/* Answer the held open of token. */
void
standin_release(struct standin *s, uint64_t token)
{
	size_t i;

	if (s == NULL || token == 0)
		return;
	pthread_mutex_lock(&standin_mu);
	for (i = 0; s->fd >= 0 && i < STANDIN_HELD; i++)
		if (s->held[i].token == token)
			standin_answer(s, &s->held[i]);
	pthread_mutex_unlock(&standin_mu);
}

/* Requests served and refused reads seen. */
void
standin_counts(const struct standin *s, uint64_t *requests, uint64_t *reads)
{
	pthread_mutex_lock(&standin_mu);
	*requests = s != NULL ? s->n_requests : 0;
	*reads = s != NULL ? s->n_reads : 0;
	pthread_mutex_unlock(&standin_mu);
}

/* Can /dev/fuse be opened here? NULL, or why not. */
const char *
standin_available(void)
{
	static char why[128];
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, sizeof why, "/dev/fuse: %s", strerror(errno));
		return why;
	}
	close(fd);
	return NULL;
}

/* Free s's memory (not in the table). */
static void
standin_destroy(struct standin *s)
{
	size_t i;

	for (i = 0; i < s->n_nodes; i++) {
		free(s->nodes[i].path);
		free(s->nodes[i].name_own);
	}
	for (i = 0; i < s->n_copied; i++)
		free(s->copied[i]);
	free(s->copied);
	free(s->nodes);
	free(s->chain);
	free(s->bucket);
	free(s->areas);
	free(s);
}

/* Serve a new connection for areas; *fd gets /dev/fuse. */
struct standin *
standin_new(struct event_base *base, const struct standin_area *areas,
    size_t n, uid_t uid, gid_t gid, standin_read_cb cb, void *arg, int *fd,
    sbox_error *err)
{
	struct standin *s;
	uint64_t id;
	char *path;
	size_t i;
	int slot = -1;

	if (fd != NULL)
		*fd = -1;
	if ((s = calloc(1, sizeof *s)) == NULL ||
	    (s->areas = calloc(n + 1, sizeof *s->areas)) == NULL ||
	    (s->bucket = calloc(4096, sizeof *s->bucket)) == NULL) {
		if (s != NULL)
			free(s->areas);
		free(s);
		error_nomem(err);
		return NULL;
	}
	s->n_bucket = 4096;
	s->fd = -1;
	s->slot = -1;
	s->uid = uid;
	s->gid = gid;
	s->cb = cb;
	s->arg = arg;
	s->n_areas = n;
	s->retry_ms = 1;
	if ((path = strdup("/")) == NULL ||
	    standin_node_new(s, SK_ROOT, 0, 0, path, NULL, &id) == NULL) {
		free(path);
		goto nomem;
	}
	for (i = 0; i < n; i++) {
		char *name = NULL;

		s->areas[i] = areas[i];
		/* the area's folder, looked up as aN; its path is the host's */
		if ((path = strdup(areas[i].path)) == NULL ||
		    asprintf(&name, "a%zu", i) < 0 ||
		    standin_node_new(s, areas[i].is_dir ? SK_DIR : SK_FILE,
		    (int)i, 1, path, name, &id) == NULL) {
			free(path);
			free(name);
			goto nomem;
		}
	}
	if (standin_start(base) < 0) {
		error_set_errno(err, E_SANDBOX_SETUP, errno, "the stand-ins' "
		    "server");
		standin_destroy(s);
		return NULL;
	}
	pthread_mutex_lock(&standin_mu);
	for (i = 0; i < STANDIN_MAX && slot < 0; i++)
		if (standin_tab[i] == NULL)
			slot = (int)i;
	if (slot >= 0) {
		s->slot = slot;
		s->gen = ++standin_next_gen;
		standin_tab[slot] = s;
	}
	pthread_mutex_unlock(&standin_mu);
	if (slot < 0) {
		standin_destroy(s);
		error_set(err, E_LIMIT, "more than %d sandboxes with stand-ins",
		    STANDIN_MAX);
		return NULL;
	}
	if (fd == NULL)
		return s;
	if ((*fd = open("/dev/fuse", O_RDWR | O_CLOEXEC | O_NONBLOCK)) < 0) {
		error_set_errno(err, E_SANDBOX_SETUP, errno, "the hidden areas' "
		    "stand-ins need /dev/fuse");
		standin_free(s);
		return NULL;
	}
	if (standin_attach(s, *fd) < 0) {
		*fd = -1;
		standin_free(s);
		error_nomem(err);
		return NULL;
	}
	return s;
nomem:
	standin_destroy(s);
	error_nomem(err);
	return NULL;
}

/* Serve the device fd (taken). */
int
standin_attach(struct standin *s, int fd)
{
	int rc = 0;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	pthread_mutex_lock(&standin_mu);
	if (s->fd >= 0) {
		close(fd);
		rc = -1;
	} else {
		s->fd = fd;
		standin_watch(s);
	}
	pthread_mutex_unlock(&standin_mu);
	standin_poke();
	return rc;
}

/* Stop serving, answer what is held, close. */
void
standin_free(struct standin *s)
{
	size_t i;

	if (s == NULL)
		return;
	pthread_mutex_lock(&standin_mu);
	if (s->fd >= 0) {
		for (i = 0; i < STANDIN_HELD; i++)
			if (s->held[i].token != 0)
				standin_answer(s, &s->held[i]);
		if (s->watched)
			epoll_ctl(standin_ep, EPOLL_CTL_DEL, s->fd, NULL);
		close(s->fd);
		s->fd = -1;
	}
	if (s->slot >= 0 && standin_tab[s->slot] == s)
		standin_tab[s->slot] = NULL;
	pthread_mutex_unlock(&standin_mu);
	standin_destroy(s);
}
