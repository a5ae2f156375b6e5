/* bench-rpc.c: rpc.ping against a private sboxd: round-trip latency with
 * one client (median, p99), and requests/s with 1 and 16 clients, each on
 * its own connection, one request at a time and pipelined.
 *   bench-rpc [--sboxd PATH] [--seconds S]
 * It is only a client: raw Unix sockets and jansson. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#define BENCH_RPC_WINDOW 32   /* requests in flight when pipelining */

struct bench_rpc_conn {
	int    fd;
	char   buf[65536];
	size_t len;      /* bytes in buf */
	size_t off;      /* first unread byte */
};

struct bench_rpc_worker {
	pthread_t   th;
	const char *sock;
	double      seconds;
	int         window;   /* 1 = sequential */
	long long   done;     /* replies received */
	int         failed;
};

static char bench_rpc_dir[] = "/tmp/sbox-bench-XXXXXX";
static pid_t bench_rpc_daemon = -1;

/* Seconds on the monotonic clock. */
static double
bench_rpc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Connect to the daemon's socket; -1 on failure. */
static int
bench_rpc_dial(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Write all of a buffer. */
static int
bench_rpc_write(int fd, const char *s, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read one reply line; returns its length (LF excluded) or -1. The line
 * stays valid until the next call. */
static ssize_t
bench_rpc_line(struct bench_rpc_conn *c, char **line)
{
	char *lf;
	ssize_t r;

	for (;;) {
		lf = memchr(c->buf + c->off, '\n', c->len - c->off);
		if (lf != NULL) {
			*line = c->buf + c->off;
			c->off = (size_t)(lf - c->buf) + 1;
			return lf - *line;
		}
		if (c->off > 0) {
			memmove(c->buf, c->buf + c->off, c->len - c->off);
			c->len -= c->off;
			c->off = 0;
		}
		if (c->len == sizeof c->buf)
			return -1;
		r = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c->len += (size_t)r;
	}
}

/* Check that a reply line answers id with a pong. */
static int
bench_rpc_check(const char *line, size_t len, long long id)
{
	json_t *m, *r;
	int ok;

	if ((m = json_loadb(line, len, 0, NULL)) == NULL)
		return -1;
	r = json_object_get(json_object_get(m, "result"), "pong");
	ok = json_integer_value(json_object_get(m, "id")) == id && json_is_true(r);
	json_decref(m);
	return ok ? 0 : -1;
}

/* Send one request and wait for its reply. */
static int
bench_rpc_call(struct bench_rpc_conn *c, const char *method, long long id)
{
	char req[256], *line;
	ssize_t n;
	int len;

	len = snprintf(req, sizeof req,
	    "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\"%s}\n", id, method,
	    strcmp(method, "rpc.hello") == 0 ?
	    ",\"params\":{\"protocol\":1,\"client\":\"bench-rpc\"}" : "");
	if (bench_rpc_write(c->fd, req, (size_t)len) == -1)
		return -1;
	if ((n = bench_rpc_line(c, &line)) < 0)
		return -1;
	if (strcmp(method, "rpc.ping") == 0)
		return bench_rpc_check(line, (size_t)n, id);
	return 0;
}

/* One client: pings for `seconds`, `window` in flight at a time. */
static void *
bench_rpc_worker_main(void *arg)
{
	struct bench_rpc_worker *w = arg;
	struct bench_rpc_conn *c;
	long long next = 2, expect = 2;
	char req[128], *line;
	double end;
	int inflight = 0, len;
	ssize_t n;

	if ((c = calloc(1, sizeof *c)) == NULL ||
	    (c->fd = bench_rpc_dial(w->sock)) == -1 ||
	    bench_rpc_call(c, "rpc.hello", 1) == -1) {
		w->failed = 1;
		free(c);
		return NULL;
	}
	end = bench_rpc_now() + w->seconds;
	for (;;) {
		int stop = bench_rpc_now() >= end;
		while (!stop && inflight < w->window) {
			len = snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":"
			    "%lld,\"method\":\"rpc.ping\"}\n", next++);
			if (bench_rpc_write(c->fd, req, (size_t)len) == -1) {
				w->failed = 1;
				goto out;
			}
			inflight++;
		}
		if (inflight == 0)
			break;
		if ((n = bench_rpc_line(c, &line)) < 0 ||
		    bench_rpc_check(line, (size_t)n, expect++) == -1) {
			w->failed = 1;
			goto out;
		}
		inflight--;
		w->done++;
	}
out:
	close(c->fd);
	free(c);
	return NULL;
}

/* Run `clients` workers at once; requests/s over all of them, or -1. */
static double
bench_rpc_throughput(const char *sock, int clients, int window, double seconds)
{
	struct bench_rpc_worker *w;
	long long total = 0;
	double t0, t1;
	int i, failed = 0;

	if ((w = calloc((size_t)clients, sizeof *w)) == NULL)
		return -1;
	t0 = bench_rpc_now();
	for (i = 0; i < clients; i++) {
		w[i].sock = sock;
		w[i].seconds = seconds;
		w[i].window = window;
		if (pthread_create(&w[i].th, NULL, bench_rpc_worker_main, &w[i]))
			w[i].failed = 1, w[i].th = 0;
	}
	for (i = 0; i < clients; i++) {
		if (w[i].th)
			pthread_join(w[i].th, NULL);
		total += w[i].done;
		failed |= w[i].failed;
	}
	t1 = bench_rpc_now();
	free(w);
	if (failed)
		return -1;
	return (double)total / (t1 - t0);
}

/* Sort helper for latencies. */
static int
bench_rpc_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Remove one entry of the temporary folder. */
static int
bench_rpc_rm(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st; (void)flag; (void)f;
	remove(path);
	return 0;
}

/* Stop the daemon and remove the temporary folder. */
static void
bench_rpc_cleanup(void)
{
	int status;

	if (bench_rpc_daemon > 0) {
		kill(bench_rpc_daemon, SIGTERM);
		waitpid(bench_rpc_daemon, &status, 0);
		bench_rpc_daemon = -1;
	}
	nftw(bench_rpc_dir, bench_rpc_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* The sboxd next to this program's folder (bin/bench/.. = bin/). */
static char *
bench_rpc_find_sboxd(void)
{
	char exe[4096], *slash, *out;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return strdup("sboxd");
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) != NULL)
		*slash = '\0';
	if (asprintf(&out, "%s/../sboxd", exe) == -1)
		return NULL;
	return out;
}

/* Start a private sboxd; 0 once it listens. */
static int
bench_rpc_start(const char *sboxd, const char *sock)
{
	char state[512], config[512], log[512];
	int fd, i;

	snprintf(state, sizeof state, "%s/state", bench_rpc_dir);
	snprintf(config, sizeof config, "%s/config.json", bench_rpc_dir);
	snprintf(log, sizeof log, "%s/sboxd.log", bench_rpc_dir);
	if ((bench_rpc_daemon = fork()) == -1)
		return -1;
	if (bench_rpc_daemon == 0) {
		if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600)) >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(sboxd, "sboxd", "--foreground", "--socket", sock,
		    "--state-dir", state, "--config", config, "--log-level",
		    "warn", (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 500; i++) {
		if ((fd = bench_rpc_dial(sock)) >= 0) {
			close(fd);
			return 0;
		}
		if (waitpid(bench_rpc_daemon, NULL, WNOHANG) == bench_rpc_daemon) {
			bench_rpc_daemon = -1;
			return -1;
		}
		usleep(20000);
	}
	return -1;
}

/* Measure and print the table. */
int
main(int argc, char **argv)
{
	static const int clients[] = { 1, 16 };
	char sock[512], mode[64], *sboxd = NULL;
	struct bench_rpc_conn c;
	double seconds = 2.0, *lat, t0, rps;
	int i, n = 20000, k;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--sboxd") == 0 && i + 1 < argc)
			sboxd = strdup(argv[++i]);
		else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			seconds = atof(argv[++i]);
		else {
			fprintf(stderr, "usage: bench-rpc [--sboxd PATH] "
			    "[--seconds S]\n");
			return 2;
		}
	}
	if (sboxd == NULL)
		sboxd = bench_rpc_find_sboxd();
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(bench_rpc_dir) == NULL) {
		perror("bench-rpc: mkdtemp");
		return 1;
	}
	snprintf(sock, sizeof sock, "%s/run/sboxd.sock", bench_rpc_dir);
	if (bench_rpc_start(sboxd, sock) == -1) {
		fprintf(stderr, "bench-rpc: could not start %s (log in %s)\n",
		    sboxd, bench_rpc_dir);
		bench_rpc_cleanup();
		return 1;
	}

	/* latency: one client, one request at a time */
	memset(&c, 0, sizeof c);
	if ((c.fd = bench_rpc_dial(sock)) == -1 ||
	    bench_rpc_call(&c, "rpc.hello", 1) == -1 ||
	    (lat = calloc((size_t)n, sizeof *lat)) == NULL) {
		fprintf(stderr, "bench-rpc: cannot talk to sboxd\n");
		bench_rpc_cleanup();
		return 1;
	}
	for (i = 0; i < 2000; i++)
		bench_rpc_call(&c, "rpc.ping", 2 + i);
	for (i = 0; i < n; i++) {
		t0 = bench_rpc_now();
		if (bench_rpc_call(&c, "rpc.ping", 100000 + i) == -1) {
			fprintf(stderr, "bench-rpc: bad reply to ping %d\n", i);
			bench_rpc_cleanup();
			return 1;
		}
		lat[i] = (bench_rpc_now() - t0) * 1e6;
	}
	close(c.fd);
	qsort(lat, (size_t)n, sizeof *lat, bench_rpc_cmp);
	printf("rpc.ping round trip, 1 client, %d calls\n", n);
	printf("  %-28s %10.1f us\n", "median", lat[n / 2]);
	printf("  %-28s %10.1f us\n", "p99", lat[n * 99 / 100]);
	printf("  %-28s %10.1f us\n", "p99.9", lat[n * 999 / 1000]);
	printf("  %-28s %10.1f us\n", "max", lat[n - 1]);
	printf("  goal: none set (figures only; the exec and create goals are "
	    "bench-container's)\n");
	free(lat);

	printf("rpc.ping throughput (%.0fs each, one connection per client)\n",
	    seconds);
	printf("  %-8s %-24s %12s\n", "clients", "mode", "requests/s");
	for (k = 0; k < 2; k++) {
		rps = bench_rpc_throughput(sock, clients[k], 1, seconds);
		printf("  %-8d %-24s %12.0f%s\n", clients[k], "sequential", rps,
		    rps < 0 ? " (failed)" : "");
		rps = bench_rpc_throughput(sock, clients[k], BENCH_RPC_WINDOW,
		    seconds);
		snprintf(mode, sizeof mode, "pipelined (%d in flight)",
		    BENCH_RPC_WINDOW);
		printf("  %-8d %-24s %12.0f%s\n", clients[k], mode, rps,
		    rps < 0 ? " (failed)" : "");
		fflush(stdout);
	}
	bench_rpc_cleanup();
	free(sboxd);
	return 0;
}
