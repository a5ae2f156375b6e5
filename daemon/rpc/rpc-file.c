/* rpc-file.c: file.read, file.write, file.list, file.stat on a session. The
 * file is opened by sbox-init inside the container, so exactly the sandbox's
 * rules apply; sboxd then reads or writes the descriptor it hands back. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/command/blocked.h"
#include "daemon/container/container.h"
#include "daemon/rpc/rpc.h"
#include "daemon/session/session.h"
#include "policy/path.h"
#include "policy/plan.h"
#include "protocol/base64.h"

#define FILE_READ_MAX  (8 * 1024 * 1024)   /* bytes one file.read returns */
#define FILE_LIST_MAX  10000               /* entries one file.list returns */

enum file_op { FILE_READ, FILE_WRITE, FILE_LIST };

/* One file request waiting for sbox-init to open the path. */
struct file_req {
	struct rpc_call *call;
	struct session  *s;
	enum file_op     op;
	char            *path;     /* absolute, inside the sandbox */
	long long        offset;
	long long        length;
	unsigned char   *data;     /* file.write: decoded bytes */
	size_t           n;
};

/* Free a request. */
static void
file_req_free(struct file_req *r)
{
	free(r->path);
	free(r->data);
	free(r);
}

/* The absolute path a request names (relative ones are in the working folder). */
static char *
file_path(struct session *s, const char *path, sbox_error *err)
{
	const char *base = s->plan->cwd ? s->plan->cwd : s->project;
	char *out;

	if (path == NULL || path[0] == '\0') {
		error_set_field(err, E_INVALID_PARAMS, "path", "path is empty");
		return NULL;
	}
	/* normalised: answers name the file without '.' or '..' */
	if ((out = path_resolve(base, path)) == NULL)
		error_nomem(err);
	return out;
}

/* Turn a failed open into an error that names the sandbox rule, if one
 * explains it. */
static void
file_explain(struct file_req *r, int errnum, const sbox_error *cerr,
    sbox_error *err)
{
	const char *op = NULL, *rule = NULL;
	char *msg;

	/* A closed session's plan is gone: say only that it closed. */
	if (cerr != NULL && strcmp(cerr->name, E_SESSION_CLOSED) == 0) {
		*err = *cerr;
		return;
	}
	msg = r->s->plan->sandboxed ? blocked_explain(r->s->plan, r->path, "/",
	    errnum, r->op == FILE_WRITE, &op, &rule) : NULL;
	/* Creating below a read-only or hidden folder fails as "not found". */
	if (msg == NULL && r->op == FILE_WRITE && errnum == ENOENT &&
	    r->s->plan->sandboxed)
		msg = blocked_explain(r->s->plan, r->path, "/", EACCES, 1, &op,
		    &rule);
	if (msg != NULL) {
		error_set_field(err, E_BLOCKED, "path", "%s", msg);
		free(msg);
		return;
	}
	if (cerr != NULL)
		*err = *cerr;
	else
		error_set_errno(err, errnum == ENOENT ? E_NOT_FOUND : E_IO, errnum,
		    "%s", r->path);
	snprintf(err->field, sizeof err->field, "path");
}

/* Read from an opened regular file. */
static json_t *
file_do_read(struct file_req *r, int fd, struct stat *st, sbox_error *err)
{
	long long want = r->length > 0 ? r->length : FILE_READ_MAX;
	unsigned char *buf;
	ssize_t n;
	size_t got = 0;
	char *b64;
	json_t *res;

	if (want > FILE_READ_MAX)
		want = FILE_READ_MAX;
	if ((buf = malloc((size_t)want + 1)) == NULL) {
		error_nomem(err);
		return NULL;
	}
	while ((long long)got < want) {
		n = pread(fd, buf + got, (size_t)want - got, r->offset + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			error_set_errno(err, E_IO, errno, "reading %s", r->path);
			return NULL;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	b64 = base64_encode(buf, got);
	free(buf);
	res = json_pack("{s:s, s:s, s:I, s:I, s:b}", "path", r->path, "data",
	    b64 ? b64 : "", "size", (json_int_t)st->st_size, "offset",
	    (json_int_t)r->offset, "eof", r->offset + (long long)got >= st->st_size);
	free(b64);
	return res;
}

/* Write to an opened regular file. */
static json_t *
file_do_write(struct file_req *r, int fd, sbox_error *err)
{
	size_t off = 0;
	ssize_t n;

	while (off < r->n) {
		n = write(fd, r->data + off, r->n - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error_set_errno(err, errno == ENOSPC || errno == EFBIG ?
			    E_LIMIT : E_IO, errno, "writing %s", r->path);
			return NULL;
		}
		off += (size_t)n;
	}
	return json_pack("{s:s, s:I}", "path", r->path, "written",
	    (json_int_t)off);
}

/* List an opened folder (without following links). */
static json_t *
file_do_list(struct file_req *r, int fd, sbox_error *err)
{
	json_t *entries = json_array();
	struct dirent *de;
	struct stat st;
	DIR *d;
	int dfd = dup(fd), truncated = 0;

	if (dfd < 0 || (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		json_decref(entries);
		error_set_errno(err, E_IO, errno, "listing %s", r->path);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		const char *type = "other";
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (json_array_size(entries) >= FILE_LIST_MAX) {
			truncated = 1;
			break;
		}
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			type = S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ?
			    "dir" : S_ISLNK(st.st_mode) ? "symlink" : "other";
			json_array_append_new(entries, json_pack("{s:s, s:s, s:I}",
			    "name", de->d_name, "type", type, "size",
			    (json_int_t)st.st_size));
		} else
			json_array_append_new(entries, json_pack("{s:s, s:s}",
			    "name", de->d_name, "type", "unknown"));
	}
	closedir(d);
	return json_pack("{s:s, s:o, s:b}", "path", r->path, "entries", entries,
	    "truncated", truncated);
}

/* Do the operation on an fd opened in the sandbox (or on the host for an
 * unsandboxed session); fd is untrusted: check what it is first. */
static void
file_finish(struct file_req *r, int fd)
{
	struct stat st;
	sbox_error err;
	json_t *res = NULL;

	error_clear(&err);
	if (fstat(fd, &st) == -1)
		error_set_errno(&err, E_IO, errno, "%s", r->path);
	else if (r->op == FILE_LIST && !S_ISDIR(st.st_mode))
		error_set_field(&err, E_INVALID_PARAMS, "path",
		    "%s is not a folder", r->path);
	else if (r->op != FILE_LIST && !S_ISREG(st.st_mode))
		error_set_field(&err, E_INVALID_PARAMS, "path",
		    "%s is not a regular file", r->path);
	else if (r->op == FILE_READ)
		res = file_do_read(r, fd, &st, &err);
	else if (r->op == FILE_WRITE)
		res = file_do_write(r, fd, &err);
	else
		res = file_do_list(r, fd, &err);
	close(fd);
	if (res != NULL)
		rpc_call_reply(r->call, res);
	else
		rpc_call_fail(r->call, &err);
	file_req_free(r);
}

/* container callback: sbox-init opened the path, or could not. */
static void
file_opened(struct container *c, int fd, int errnum, const sbox_error *cerr,
    void *arg)
{
	struct file_req *r = arg;
	sbox_error err;

	(void)c;
	if (fd < 0) {
		error_clear(&err);
		file_explain(r, errnum, cerr, &err);
		rpc_call_fail(r->call, &err);
		file_req_free(r);
		return;
	}
	file_finish(r, fd);
}

/* The open flags of an operation. */
static unsigned
file_flags(const struct file_req *r, int append, int create)
{
	switch (r->op) {
	case FILE_READ:
		return CONTAINER_O_READ;
	case FILE_LIST:
		return CONTAINER_O_READ | CONTAINER_O_DIR;
	case FILE_WRITE:
		return CONTAINER_O_WRITE | (create ? CONTAINER_O_CREATE : 0) |
		    (append ? CONTAINER_O_APPEND : CONTAINER_O_TRUNC);
	}
	return 0;
}

/* Open the path where the session's rules apply, then finish the request. */
static int
file_start(struct file_req *r, unsigned flags, mode_t mode, sbox_error *err)
{
	int oflags = 0, fd;

	if (r->s->ct != NULL) {
		/* a write decides on what git's config names now */
		if ((flags & CONTAINER_O_WRITE) &&
		    session_gitcfg_refresh(r->s, err) == -1)
			return -1;
		if (container_open(r->s->ct, r->path, flags, mode, file_opened, r,
		    err) == -1)
			return -1;
		return RPC_LATER;
	}
	/* An unsandboxed session: the user's own rights, on the host. */
	oflags = (flags & CONTAINER_O_WRITE) ? O_WRONLY : O_RDONLY;
	if (flags & CONTAINER_O_CREATE) oflags |= O_CREAT;
	if (flags & CONTAINER_O_TRUNC) oflags |= O_TRUNC;
	if (flags & CONTAINER_O_APPEND) oflags |= O_APPEND;
	if (flags & CONTAINER_O_DIR) oflags |= O_DIRECTORY;
	if ((fd = open(r->path, oflags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
	    mode)) == -1)
		return error_set_errno(err, errno == ENOENT ? E_NOT_FOUND : E_IO,
		    errno, "%s", r->path);
	file_finish(r, fd);
	return RPC_LATER;
}

/* Common start of the three fd-based methods. */
static int
file_request(struct rpc_call *call, json_t *params, enum file_op op,
    sbox_error *err)
{
	struct session *s;
	struct file_req *r;
	const char *data;
	json_t *m = json_object_get(params, "mode");
	int rc;

	if ((s = session_access_lookup(call, json_string_value(json_object_get(params,
	    "session")), err)) == NULL)
		return -1;
	if (s->state != SESSION_READY)
		return error_set_field(err, E_SESSION_CLOSED, "session",
		    "session %s is not ready", s->id);
	if ((r = calloc(1, sizeof *r)) == NULL)
		return error_nomem(err);
	r->call = call;
	r->s = s;
	r->op = op;
	r->offset = json_integer_value(json_object_get(params, "offset"));
	r->length = json_integer_value(json_object_get(params, "length"));
	if (r->offset < 0 || r->length < 0) {
		file_req_free(r);
		return error_set_field(err, E_INVALID_PARAMS, "offset",
		    "offset and length must not be negative");
	}
	if ((r->path = file_path(s, json_string_value(json_object_get(params,
	    "path")), err)) == NULL) {
		file_req_free(r);
		return -1;
	}
	if (op == FILE_WRITE) {
		data = json_string_value(json_object_get(params, "data"));
		if ((r->data = base64_decode(data, strlen(data), &r->n)) == NULL) {
			file_req_free(r);
			return error_set_field(err, E_INVALID_PARAMS, "data",
			    "data must be base64");
		}
	}
	rc = file_start(r, file_flags(r, json_is_true(json_object_get(params,
	    "append")), !json_is_false(json_object_get(params, "create"))),
	    m ? (mode_t)(json_integer_value(m) & 0777) : 0644, err);
	if (rc == -1)
		file_req_free(r);
	return rc;
}

/* file.read {session, path, offset?, length?}. */
static int
rpc_file_read(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	(void)result;
	return file_request(call, params, FILE_READ, err);
}

/* file.write {session, path, data, append?, create?, mode?}. */
static int
rpc_file_write(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	(void)result;
	return file_request(call, params, FILE_WRITE, err);
}

/* file.list {session, path}. */
static int
rpc_file_list(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	(void)result;
	return file_request(call, params, FILE_LIST, err);
}

/* container callback: the stat of a path inside. */
static void
file_stat_done(struct container *c, json_t *res, int errnum,
    const sbox_error *cerr, void *arg)
{
	struct file_req *r = arg;
	sbox_error err;

	(void)c;
	if (res != NULL || cerr == NULL) {
		json_t *out = res ? json_deep_copy(res) : json_object();
		json_object_set_new(out, "path", json_string(r->path));
		rpc_call_reply(r->call, out);
	} else {
		error_clear(&err);
		file_explain(r, errnum, cerr, &err);
		rpc_call_fail(r->call, &err);
	}
	file_req_free(r);
}

/* file.stat {session, path, nofollow?}. */
static int
rpc_file_stat(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct session *s;
	struct file_req *r;
	struct stat st;
	int nofollow = json_is_true(json_object_get(params, "nofollow"));

	if ((s = session_access_lookup(call, json_string_value(json_object_get(params,
	    "session")), err)) == NULL)
		return -1;
	if ((r = calloc(1, sizeof *r)) == NULL)
		return error_nomem(err);
	r->call = call;
	r->s = s;
	if ((r->path = file_path(s, json_string_value(json_object_get(params,
	    "path")), err)) == NULL) {
		file_req_free(r);
		return -1;
	}
	if (s->ct != NULL) {
		if (container_stat(s->ct, r->path, nofollow, file_stat_done, r,
		    err) == -1) {
			file_req_free(r);
			return -1;
		}
		return RPC_LATER;
	}
	if ((nofollow ? lstat(r->path, &st) : stat(r->path, &st)) == -1) {
		error_set_errno(err, errno == ENOENT ? E_NOT_FOUND : E_IO, errno,
		    "%s", r->path);
		file_req_free(r);
		return -1;
	}
	*result = json_pack("{s:s, s:s, s:I, s:i}", "path", r->path, "type",
	    S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "dir" :
	    S_ISLNK(st.st_mode) ? "symlink" : "other", "size",
	    (json_int_t)st.st_size, "mode", (int)(st.st_mode & 07777));
	file_req_free(r);
	return 0;
}

static const struct params_field rpc_file_read_params[] = {
	{ "session", PARAMS_STRING, 1, 64 },
	{ "path", PARAMS_STRING, 1, 4096 },
	{ "offset", PARAMS_INT, 0, 0 },
	{ "length", PARAMS_INT, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_file_write_params[] = {
	{ "session", PARAMS_STRING, 1, 64 },
	{ "path", PARAMS_STRING, 1, 4096 },
	{ "data", PARAMS_STRING, 1, 12 * 1024 * 1024 },
	{ "append", PARAMS_BOOL, 0, 0 },
	{ "create", PARAMS_BOOL, 0, 0 },
	{ "mode", PARAMS_INT, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_file_path_params[] = {
	{ "session", PARAMS_STRING, 1, 64 },
	{ "path", PARAMS_STRING, 1, 4096 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_file_stat_params[] = {
	{ "session", PARAMS_STRING, 1, 64 },
	{ "path", PARAMS_STRING, 1, 4096 },
	{ "nofollow", PARAMS_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};

const struct rpc_method rpc_file_methods[] = {
	{ "file.read", rpc_file_read_params, rpc_file_read, RPC_SANDBOX_OK,
	  "read a file as the sandbox sees it (base64, at most 8 MiB a call)" },
	{ "file.write", rpc_file_write_params, rpc_file_write, RPC_SANDBOX_OK,
	  "write a file where the sandbox may write" },
	{ "file.list", rpc_file_path_params, rpc_file_list, RPC_SANDBOX_OK,
	  "list a folder as the sandbox sees it" },
	{ "file.stat", rpc_file_stat_params, rpc_file_stat, RPC_SANDBOX_OK,
	  "stat a path as the sandbox sees it" },
	{ NULL, NULL, NULL, 0, NULL },
};
