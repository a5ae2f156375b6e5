/* bwrapargs.c: write the bwrap arguments (NUL-separated, for --args) and
 * the seccomp program (for --seccomp) of a profile's plan, built as sboxd
 * builds a session's, so that a benchmark can start a fresh bwrap with the
 * same plan per command. Not a bench section itself (no "bench-" prefix).
 *   bwrapargs CONFIG STATE_DIR SOCKET PROFILE PROJECT SCRATCH INIT
 *             ARGS_OUT SECCOMP_OUT
 * In the arguments, the seccomp program is read from fd 9; the caller
 * runs: bwrap --args 8 -- PROGRAM 8<ARGS_OUT 9<SECCOMP_OUT (one-digit fds,
 * as any sh can redirect them). Render before a session starts on the same
 * project: while it lives, it keeps the placeholders this plan needs (a plan
 * made later would see them as existing files and differ). */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/container/cachedir.h"
#include "policy/config.h"
#include "policy/policy.h"
#include "policy/render-bwrap.h"
#include "policy/render-seccomp.h"

#define BWRAPARGS_SECCOMP_FD 9

/* Write len bytes of data to path; -1 on failure (errno set). */
static int
bwrapargs_write(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "we");
	int rc = 0;

	if (f == NULL)
		return -1;
	if (len > 0 && fwrite(data, 1, len, f) != len)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

/* Copy the contents of fd (from its start) to path. */
static int
bwrapargs_copy_fd(int fd, const char *path)
{
	char buf[65536];
	size_t len = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while ((n = read(fd, buf + len, sizeof buf - len)) > 0)
		len += (size_t)n;
	if (n < 0)
		return -1;
	return bwrapargs_write(path, buf, len);
}

/* Print an error and exit. */
static void
bwrapargs_fail(const char *what, const sbox_error *err)
{
	fprintf(stderr, "bwrapargs: %s: %s\n", what, err ? err->message :
	    strerror(errno));
	exit(1);
}

int
main(int argc, char **argv)
{
	const char *sbox_paths[4];
	struct resolve_request req;
	struct render_bwrap_opts ro;
	struct render_bwrap_result rr;
	struct plan_context ctx;
	struct passwd *pw = getpwuid(getuid());
	struct profile *prof;
	struct config *cfg;
	struct plan *plan;
	sbox_error err;
	char *blob, *sockdir, *slash, *cache_root = NULL;
	size_t len;
	int sfd;

	if (argc != 10) {
		fprintf(stderr, "usage: bwrapargs CONFIG STATE_DIR SOCKET PROFILE "
		    "PROJECT SCRATCH INIT ARGS_OUT SECCOMP_OUT\n");
		return 2;
	}
	error_clear(&err);
	if ((cfg = config_load(argv[1], &err)) == NULL)
		bwrapargs_fail("config", &err);
	memset(&req, 0, sizeof req);
	req.sandbox = argv[4];
	req.project = argv[5];
	if ((prof = policy_resolve(cfg, &req, &err)) == NULL)
		bwrapargs_fail("profile", &err);
	if ((sockdir = strdup(argv[3])) == NULL)
		bwrapargs_fail("out of memory", NULL);
	if ((slash = strrchr(sockdir, '/')) != NULL && slash != sockdir)
		*slash = '\0';
	sbox_paths[0] = argv[1];
	sbox_paths[1] = argv[2];
	sbox_paths[2] = sockdir;
	sbox_paths[3] = NULL;
	memset(&ctx, 0, sizeof ctx);
	ctx.project = argv[5];
	ctx.scratch = argv[6];
	ctx.home = getenv("HOME") ? getenv("HOME") : pw ? pw->pw_dir : "/";
	ctx.user = pw ? pw->pw_name : "user";
	ctx.uid = getuid();
	ctx.gid = getgid();
	ctx.is_root = geteuid() == 0;
	ctx.sbox_paths = sbox_paths;
	ctx.xdg_runtime_dir = getenv("XDG_RUNTIME_DIR");
	ctx.hostname = "sbox";
	if (cachedir_session_root(argv[2], prof, argv[5], NULL, getuid(),
	    getgid(), &cache_root, &err) == -1)
		bwrapargs_fail("caches", &err);
	ctx.cache_root = cache_root;
	if ((plan = policy_plan(prof, &ctx, &err)) == NULL)
		bwrapargs_fail("plan", &err);
	memset(&ro, 0, sizeof ro);
	ro.init_path = argv[7];
	ro.ctl_fd = 3;
	ro.seccomp_fd = BWRAPARGS_SECCOMP_FD;
	if (render_bwrap(plan, &ro, &rr, &err) < 0)
		bwrapargs_fail("render", &err);
	if (render_bwrap_blob(&rr, &blob, &len, &err) < 0)
		bwrapargs_fail("render", &err);
	if (bwrapargs_write(argv[8], blob, len) < 0)
		bwrapargs_fail(argv[8], NULL);
	if (render_seccomp(plan->syscalls, &sfd, &err) < 0)
		bwrapargs_fail("seccomp", &err);
	if (bwrapargs_copy_fd(sfd, argv[9]) < 0)
		bwrapargs_fail(argv[9], NULL);
	close(sfd);
	free(blob);
	free(sockdir);
	free(cache_root);
	render_bwrap_free(&rr);
	plan_free(plan);
	profile_free(prof);
	config_free(cfg);
	return 0;
}
