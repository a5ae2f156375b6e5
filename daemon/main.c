/* main.c: sboxd: options, paths, the state lock, signals, the event loop,
 * and orderly shutdown; the rooms tied together at start (main_wire). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/dns.h>
#include <event2/event.h>

#include "daemon/command/approval.h"
#include "daemon/command/command.h"
#include "daemon/command/exclude.h"
#include "daemon/command/hostexec.h"
#include "daemon/container/child.h"
#include "daemon/rpc/conn.h"
#include "daemon/container/container.h"
#include "daemon/container/container-standin.h"
#include "daemon/container/container-bind.h"
#include "daemon/events.h"
#include "daemon/container/limits.h"
#include "daemon/rpc/listener.h"
#include "daemon/rpc/rpc.h"
#include "daemon/config-reload.h"
#include "daemon/log.h"
#include "daemon/notify.h"
#include "daemon/proxy/proxy.h"
#include "daemon/proxy/proxy-hosts.h"
#include "daemon/proxy/proxy-jail.h"
#include "daemon/proxy/proxy-main.h"
#include "daemon/proxy/proxy-proc.h"
#include "daemon/container/diskguard.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "daemon/store-watch.h"
#include "daemon/session/toolconf.h"
#include "policy/config.h"
#include "policy/providers.h"
#include "protocol/paths.h"
#include "store/store.h"

static struct event *main_sig_term, *main_sig_int, *main_sig_hup;
static struct event *main_flush_timer, *main_exit_timer;
static int main_lock_fd = -1;
static int main_ready_fd = -1;   /* tell the parent we are listening */

/* Print usage. */
static void
main_usage(FILE *f)
{
	fprintf(f,
	    "usage: sboxd [--socket PATH] [--state-dir DIR] [--config FILE]\n"
	    "             [--foreground] [--log-level error|warn|info|debug]\n"
	    "             [--init PATH] [--bwrap PATH] [--proxy-max-conns N]\n"
	    "             [--idle-timeout SECONDS] [--version]\n"
	    "  --proxy-max-conns N  client connections one session's proxy holds\n"
	    "                       open at once, at most (default 1024); sboxd\n"
	    "                       lowers it to fit its descriptor limit (each\n"
	    "                       connection uses two: raise `ulimit -Hn` for more)\n"
	    "  --idle-timeout SECONDS  close a client connection with nothing in\n"
	    "                       flight and no subscription after this long\n"
	    "                       (default 600; 0: never). At a connection cap\n"
	    "                       the longest-idle one is closed for a new client\n");
}

/* Join a base folder from the environment (or home) with a tail. */
static char *
main_path(const char *env, const char *home_tail, const char *tail)
{
	const char *base = getenv(env), *home = getenv("HOME");
	char *out;

	if (base != NULL && base[0] == '/') {
		if (asprintf(&out, "%s/%s", base, tail) == -1)
			return NULL;
		return out;
	}
	if (home == NULL || home[0] != '/')
		home = "/";
	if (asprintf(&out, "%s/%s/%s", home, home_tail, tail) == -1)
		return NULL;
	return out;
}

/* Find sbox-init next to this program (bin/) or in ../libexec/sbox/, by a
 * path with no '..' component (bwrap binds only normalised paths). */
static char *
main_find_init(void)
{
	char *out;

	out = toolconf_beside_path("sbox-init");
	if (out != NULL && access(out, X_OK) == 0)
		return out;
	free(out);
	out = toolconf_beside_path("../libexec/sbox/sbox-init");
	return out != NULL ? out : strdup("/usr/local/libexec/sbox/sbox-init");
}

/* The pid written in the lock file, waiting a moment for a winner of a
 * start race that has the lock but has not written its pid yet (the file
 * may still hold the pid of the sboxd before it, which is gone: not taken);
 * buf "" when none came. */
static void
main_lock_holder(int fd, char *buf, size_t len)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	ssize_t n;
	int i;

	for (i = 0; i < 200; i++) {
		n = pread(fd, buf, len - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		if (strchr(buf, '\n') != NULL) {	/* the pid is written whole */
			long pid = strtol(buf, NULL, 10);

			buf[strcspn(buf, "\n")] = '\0';
			if (pid > 0 && pid <= INT_MAX &&
			    (kill((pid_t)pid, 0) == 0 || errno == EPERM))
				return;
		}
		nanosleep(&ts, NULL);
	}
	buf[0] = '\0';
}

/* Write our pid into the lock file (the pid first, then cut what is left of
 * an older one, so a reader never sees an empty file). */
static void
main_lock_write_pid(void)
{
	char buf[32];
	int n;

	n = snprintf(buf, sizeof buf, "%d\n", (int)getpid());
	if (pwrite(main_lock_fd, buf, (size_t)n, 0) != n ||
	    ftruncate(main_lock_fd, n) == -1)
		log_warn("cannot write the pid into the lock file");
}

/* Take the state folder's lock, or say who holds it. */
static int
main_lock(sbox_error *err)
{
	char *path, buf[32];

	if (asprintf(&path, "%s/sboxd.lock", sboxd.state_dir) == -1)
		return error_nomem(err);
	main_lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (main_lock_fd == -1) {
		error_set_errno(err, E_IO, errno, "cannot open %s", path);
		free(path);
		return -1;
	}
	if (flock(main_lock_fd, LOCK_EX | LOCK_NB) == -1) {
		main_lock_holder(main_lock_fd, buf, sizeof buf);
		error_set(err, E_IO, "another sboxd (pid %s) is already using the "
		    "state folder %s", buf[0] ? buf : "unknown: it did not write "
		    "its pid", sboxd.state_dir);
		free(path);
		return -1;
	}
	free(path);
	main_lock_write_pid();
	return 0;
}

/* Checks made before anything else (before the lock and the store): the
 * socket path fits a sockaddr_un, and the runtime folder that holds the
 * default socket is the user's own and private. */
static int
main_precheck(sbox_error *err)
{
	struct sockaddr_un sun;
	const char *run = getenv("XDG_RUNTIME_DIR");
	const char *pid = getenv("LISTEN_PID");
	size_t n = run != NULL ? strlen(run) : 0;
	struct stat st;

	if (pid != NULL && atol(pid) == (long)getpid())
		return 0;	/* systemd passes the socket: no path is bound */
	if (strlen(sboxd.socket_path) >= sizeof sun.sun_path)
		return error_set(err, E_INVALID_PARAMS, "socket path too long "
		    "(%zu bytes, at most %zu): %s; use a shorter --socket or "
		    "XDG_RUNTIME_DIR", strlen(sboxd.socket_path),
		    sizeof sun.sun_path - 1, sboxd.socket_path);
	if (run == NULL || run[0] != '/' || strncmp(sboxd.socket_path, run,
	    n) != 0 || sboxd.socket_path[n] != '/')
		return 0;
	if (stat(run, &st) == -1)
		return error_set_errno(err, E_IO, errno, "runtime folder "
		    "XDG_RUNTIME_DIR=%s", run);
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0)
		return error_set(err, E_PERMISSION, "runtime folder "
		    "XDG_RUNTIME_DIR=%s must be a folder owned by you (uid %u) "
		    "with mode 0700; it is owned by uid %u with mode %04o", run,
		    (unsigned)geteuid(), (unsigned)st.st_uid,
		    (unsigned)(st.st_mode & 07777));
	return 0;
}

/* As root, sandboxes run as the first id of the subordinate range of the
 * user "sbox" (or a fixed unused id): an id that names an account of this
 * host (e.g. `sbox:65534:1`, nobody) would give every sandbox what that
 * account owns. Refused before anything starts. */
static int
main_check_sandbox_ids(sbox_error *err)
{
	struct passwd *pw;
	struct group *gr;
	uid_t u;
	gid_t g;

	if (geteuid() != 0)
		return 0;	/* the sandbox runs as the user in a user namespace */
	container_bind_sandbox_ids(&u, &g);
	if ((pw = getpwuid(u)) != NULL)
		return error_set(err, E_SANDBOX_UNAVAILABLE, "the sandboxes' uid "
		    "%u (the first of the subordinate range of user \"sbox\" in "
		    "/etc/subuid) is the account \"%s\" of this host: sandboxes "
		    "would own its files; give \"sbox\" a range of unused ids "
		    "(e.g. `usermod --add-subuids 2147352576-2147418111 sbox`) "
		    "or remove its line", (unsigned)u, pw->pw_name);
	if ((gr = getgrgid(g)) != NULL)
		return error_set(err, E_SANDBOX_UNAVAILABLE, "the sandboxes' gid "
		    "%u (the first of the subordinate range of user \"sbox\" in "
		    "/etc/subgid) is the group \"%s\" of this host; give "
		    "\"sbox\" a range of unused ids or remove its line",
		    (unsigned)g, gr->gr_name);
	return 0;
}

/* Flush batched store writes every so often; now and then drop events
 * older than a week (the audit and timelines are kept). */
static void
main_flush_cb(evutil_socket_t fd, short what, void *arg)
{
	static unsigned ticks;
	sbox_error err;

	(void)fd; (void)what; (void)arg;
	log_flush_repeats(0);
	session_access_tick();
	session_idle_tick();
	store_watch_tick();
	conn_tick();
	if (ticks++ % 3000 == 0 && store_event_prune(sboxd.store,
	    store_clock_now_ms() - 7LL * 24 * 3600 * 1000, &err) < 0)
		log_error("store: pruning events: %s", err.message);
}

/* Exit the loop once every client is gone, or when time is up. */
static void
main_exit_cb(evutil_socket_t fd, short what, void *arg)
{
	static int ticks;

	(void)fd; (void)what; (void)arg;
	if (sboxd.connections == 0 || ++ticks > 20)
		event_base_loopexit(sboxd.base, NULL);
}

/* Begin an orderly shutdown (sboxd_shutdown, from anywhere). */
static void
main_shutdown(const char *why)
{
	struct timeval tick = { 0, 100 * 1000 };

	if (sboxd.stopping)
		return;
	sboxd.stopping = 1;
	log_info("shutting down (%s)", why);
	listener_close();
	session_close_all("daemon shutdown");
	session_scratch_drop();
	conn_close_all();
	main_exit_timer = event_new(sboxd.base, -1, EV_PERSIST, main_exit_cb, NULL);
	event_add(main_exit_timer, &tick);
	/* a first look now: with no client left there is nothing to wait for */
	event_active(main_exit_timer, EV_TIMEOUT, 0);
}

/* daemon.stopping {why} (sboxd_shutdown, from anywhere): shut down. */
static void
main_on_stopping(const char *topic, const char *session, const json_t *data,
    void *arg)
{
	const char *why = json_string_value(json_object_get(data, "why"));

	(void)topic; (void)session; (void)arg;
	main_shutdown(why != NULL ? why : "shutdown");
}

/* Tie the rooms together at start: where a lower layer tells a higher one
 * something, it calls what is named here (it includes nothing above it). */
static void
main_wire(void)
{
	/* the hooks (an answer is needed): daemon/hooks.h */
	conn_start();		/* client_ops: rpc/conn.c */
	dispatch_start();	/* rpc_call_ops: rpc/dispatch.c */
	session_hooks.host_refused = command_note_refusal;
	session_hooks.explain = blocked_explain;
	session_hooks.exclude = exclude_from_inside;
	session_hooks.commands_running = command_session_running;
	session_hooks.commands_rewrite = command_session_rewrite;
	diskguard_hooks.next = session_next_live;
	store_watch_hooks.recover = session_recover;
	store_watch_hooks.rewrite = session_store_rewrite;
	/* what is only told, on the event bus (the list: daemon/hooks.h) */
	if (events_on("daemon.stopping", main_on_stopping, NULL) < 0 ||
	    events_on("session.closing", command_session_on_closing, NULL) < 0 ||
	    events_on("session.host_failed", command_session_on_host_failed,
	    NULL) < 0 ||
	    events_on("session.file_refused", command_session_on_file_refused,
	    NULL) < 0 ||
	    events_on("disk.root_full", command_session_on_root_full, NULL) < 0) {
		log_error("too many subscribers of the event bus (%d)",
		    EVENTS_ON_MAX);
		exit(1);
	}
}

/* SIGTERM / SIGINT: shut down. */
static void
main_sig_stop_cb(evutil_socket_t sig, short what, void *arg)
{
	(void)what; (void)arg;
	main_shutdown(sig == SIGTERM ? "SIGTERM" : "SIGINT");
}

/* SIGHUP: reload the config; keep the old one if the new one is broken. */
static void
main_sig_hup_cb(evutil_socket_t sig, short what, void *arg)
{
	sbox_error err;

	(void)sig; (void)what; (void)arg;
	error_clear(&err);
	config_reload("SIGHUP", &err);
}

/* Detach from the terminal; the parent exits once we are listening. */
static int
main_daemonize(void)
{
	int p[2], fd;
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	if ((pid = fork()) == -1)
		return -1;
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &c, 1) == 1 && c == 'R')
			_exit(0);
		_exit(1);
	}
	close(p[0]);
	main_ready_fd = p[1];
	setsid();
	if (chdir("/") == -1)
		log_warn("cannot change to /: %s", strerror(errno));
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

/* Send stderr to the log file in the state folder. */
static void
main_log_to_file(void)
{
	char *path;
	int fd;

	if (asprintf(&path, "%s/sboxd.log", sboxd.state_dir) == -1)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd >= 0) {
		dup2(fd, 2);
		close(fd);
	}
	free(path);
}

/* An absolute copy of path (relative ones are taken from the current
 * folder, since a detached sboxd moves to /). */
static char *
main_abs(const char *path)
{
	char cwd[4096], *out;

	if (path[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
		return strdup(path);
	if (asprintf(&out, "%s/%s", cwd, path) == -1)
		return NULL;
	return out;
}

/* Parse the command line into sboxd; exits on --help/--version/usage errors. */
static void
main_options(int argc, char **argv, int *foreground)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "state-dir", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "init", required_argument, NULL, 'i' },
		{ "bwrap", required_argument, NULL, 'b' },
		{ "proxy-max-conns", required_argument, NULL, 'P' },
		{ "idle-timeout", required_argument, NULL, 'I' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long n;
	int ch;

	while ((ch = getopt_long(argc, argv, "s:d:c:fl:i:b:Vh", opts, NULL)) != -1) {
		switch (ch) {
		case 's': sboxd.socket_path = main_abs(optarg); break;
		case 'd': sboxd.state_dir = main_abs(optarg); break;
		case 'c': sboxd.config_path = main_abs(optarg); break;
		case 'f': *foreground = 1; break;
		case 'l':
			if (log_set_level(optarg) == -1) {
				fprintf(stderr, "sboxd: unknown log level %s\n", optarg);
				exit(2);
			}
			break;
		case 'i':
			if ((sboxd.init_path = realpath(optarg, NULL)) == NULL)
				sboxd.init_path = main_abs(optarg);
			break;
		case 'b':
			sboxd.bwrap_path = strchr(optarg, '/') ? main_abs(optarg) :
			    strdup(optarg);
			break;
		case 'P':
			n = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || n < 1 || n > 1048576) {
				fprintf(stderr, "sboxd: --proxy-max-conns must be "
				    "between 1 and 1048576\n");
				exit(2);
			}
			sboxd.lim.proxy_max_conns = (int)n;
			break;
		case 'I':
			n = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || n < 0 ||
			    n > 86400 * 365) {
				fprintf(stderr, "sboxd: --idle-timeout must be a "
				    "number of seconds (0: never)\n");
				exit(2);
			}
			sboxd.lim.idle_timeout_ms = n > 0 ? n * 1000 : -1;
			break;
		case 'V': printf("sboxd %s\n", SBOX_VERSION); exit(0);
		case 'h': main_usage(stdout); exit(0);
		default: main_usage(stderr); exit(2);
		}
	}
	if (optind != argc) {
		main_usage(stderr);
		exit(2);
	}
}

/* Fill the defaults for everything the options left unset. */
static void
main_defaults(void)
{
	if (sboxd.socket_path == NULL)
		sboxd.socket_path = paths_default_socket();
	if (sboxd.state_dir == NULL)
		sboxd.state_dir = main_path("XDG_STATE_HOME", ".local/state", "sbox");
	if (sboxd.config_path == NULL)
		sboxd.config_path = main_path("XDG_CONFIG_HOME", ".config",
		    "sbox/config.json");
	if (sboxd.init_path == NULL)
		sboxd.init_path = main_find_init();
	if (asprintf(&sboxd.db_path, "%s/sbox.db", sboxd.state_dir) == -1)
		exit(1);
	sboxd.lim.max_line = 1024 * 1024;
	sboxd.lim.max_conns = 1024;
	sboxd.lim.max_conns_per_uid = 512;
	sboxd.lim.max_inflight = 64;
	sboxd.lim.max_output_queue = 16 * 1024 * 1024;
	sboxd.lim.max_sessions = 256;
	sboxd.lim.max_children = 16;    /* per top-level session, all descendants */
	sboxd.lim.host_sessions = 64;   /* kept for host clients */
	if (sboxd.lim.proxy_max_conns == 0)
		sboxd.lim.proxy_max_conns = 1024;
	if (sboxd.lim.idle_timeout_ms == 0)
		sboxd.lim.idle_timeout_ms = 600 * 1000;
	else if (sboxd.lim.idle_timeout_ms < 0)
		sboxd.lim.idle_timeout_ms = 0;	/* --idle-timeout 0: never */
}

/* Raise the soft descriptor limit to the hard one and size the connection
 * caps from what we got (a reserve for host clients, the store and the
 * containers; --proxy-max-conns stays an upper bound). */
static void
main_nofile(void)
{
	struct limits_fds fds;
	struct rlimit rl;
	long nofile = 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur < rl.rlim_max) {
			rlim_t want = rl.rlim_max;

			rl.rlim_cur = want;
			/* a huge hard limit: take what the kernel allows */
			while (setrlimit(RLIMIT_NOFILE, &rl) == -1 &&
			    rl.rlim_cur > 1024)
				rl.rlim_cur /= 2;
			getrlimit(RLIMIT_NOFILE, &rl);
		}
		nofile = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1 << 24 ?
		    1 << 24 : (long)rl.rlim_cur;
	}
	limits_derive(nofile, sboxd.lim.max_conns, sboxd.lim.max_sessions,
	    sboxd.lim.proxy_max_conns, &fds);
	sboxd.lim.nofile = nofile;
	sboxd.lim.max_conns = fds.host_conns;
	if (sboxd.lim.max_conns_per_uid > fds.host_conns)
		sboxd.lim.max_conns_per_uid = fds.host_conns;
	sboxd.lim.proxy_max_conns = fds.proxy_session;
	proxy_set_global_limit(fds.proxy_total);
	log_info("descriptors: %ld; host clients %d, proxied connections %d "
	    "(%d per session)", nofile, fds.host_conns, fds.proxy_total,
	    fds.proxy_session);
}

/* Start up, run the loop, shut down. */
int
main(int argc, char **argv)
{
	struct timeval flush = { 0, 200 * 1000 };
	int foreground = 0;
	sbox_error err;

	container_spare_child();	/* returns unless this is a spare launcher */
	proxy_main_child();	/* returns unless this is the proxy process */
	proxy_jail_set_argv(argc, argv);
	main_wire();
	main_options(argc, argv, &foreground);
	main_defaults();
	umask(077);
	signal(SIGPIPE, SIG_IGN);
	error_clear(&err);
	if (main_precheck(&err) == -1) {
		fprintf(stderr, "sboxd: %s\n", err.message);
		return 1;
	}
	if (main_check_sandbox_ids(&err) == -1) {
		fprintf(stderr, "sboxd: %s\n", err.message);
		return 1;
	}
	if (listener_private_dir(sboxd.state_dir, &err) == -1) {
		fprintf(stderr, "sboxd: state folder: %s\n", err.message);
		return 1;
	}
	if (main_lock(&err) == -1) {
		fprintf(stderr, "sboxd: %s\n", err.message);
		return 1;
	}
	providers_set_fallback(toolconf_providers_file());
	if ((sboxd.config = config_load(sboxd.config_path, &err)) == NULL) {
		fprintf(stderr, "sboxd: %s\n", err.message);
		return 1;
	}
	if (diskguard_size_reserve(&err) == -1) {
		fprintf(stderr, "sboxd: %s\n", err.message);
		return 1;
	}
	if ((sboxd.store = store_open(sboxd.db_path, &err)) == NULL) {
		fprintf(stderr, "sboxd: %s\n", err.message);
		return 1;
	}
	if (!foreground) {
		if (main_daemonize() == -1) {
			fprintf(stderr, "sboxd: cannot detach: %s\n", strerror(errno));
			return 1;
		}
		main_log_to_file();
		/* the flock is shared with the parent's open file; record our pid */
		main_lock_write_pid();
	}
	main_nofile();
	sboxd.started = time(NULL);
	clock_gettime(CLOCK_MONOTONIC, &sboxd.started_mono);
	if ((sboxd.base = event_base_new()) == NULL) {
		log_error("cannot create the event loop");
		return 1;
	}
	/* nameservers from resolv.conf; the hosts file is the proxy's own,
	 * read again when it changes (proxy-hosts.c) */
	sboxd.dns = evdns_base_new(sboxd.base, EVDNS_BASE_DISABLE_WHEN_INACTIVE);
	if (sboxd.dns != NULL)
		evdns_base_resolv_conf_parse(sboxd.dns, DNS_OPTIONS_ALL &
		    ~DNS_OPTION_HOSTSFILE, "/etc/resolv.conf");
	if (child_init(sboxd.base, &err) == -1) {
		log_error("%s", err.message);
		return 1;
	}
	toolconf_start(hostexec_spawn);
	/* how refused reads are seen: the seccomp reporter, or stand-ins
	 * when asked for (SBOX_READS_BY=standins) */
	if (container_standin_init(sboxd.state_dir, &err) == -1) {
		log_error("%s", err.message);
		return 1;
	}
	container_cgroup_start(sboxd.base);
	diskguard_start(sboxd.base);
	/* the proxy runs in a confined process of its own */
	if (proxy_proc_start(sboxd.base, &err) == -1) {
		log_error("%s", err.message);
		return 1;
	}
	if (session_recover(&err) == -1) {
		log_error("recovering sessions of a previous run: %s (retrying)",
		    err.message);
		store_watch_recovery_failed(err.message);
	}
	if (listener_open(sboxd.socket_path, &err) == -1) {
		log_error("%s", err.message);
		return 1;
	}
	main_sig_term = evsignal_new(sboxd.base, SIGTERM, main_sig_stop_cb, NULL);
	main_sig_int = evsignal_new(sboxd.base, SIGINT, main_sig_stop_cb, NULL);
	main_sig_hup = evsignal_new(sboxd.base, SIGHUP, main_sig_hup_cb, NULL);
	event_add(main_sig_term, NULL);
	event_add(main_sig_int, NULL);
	event_add(main_sig_hup, NULL);
	main_flush_timer = event_new(sboxd.base, -1, EV_PERSIST, main_flush_cb, NULL);
	event_add(main_flush_timer, &flush);
	log_info("sboxd %s listening on %s (state %s)", SBOX_VERSION,
	    sboxd.socket_path, sboxd.state_dir);
	notify_ready();
	if (main_ready_fd >= 0) {
		if (write(main_ready_fd, "R", 1) != 1)
			log_warn("cannot tell the parent we are ready");
		close(main_ready_fd);
	}
	event_base_dispatch(sboxd.base);

	sboxd.stopping = 1;
	session_close_all("daemon shutdown");
	session_scratch_drop();
	toolconf_stop();
	proxy_proc_stop();
	container_start_shutdown();
	diskguard_start(NULL);
	listener_close();
	event_free(main_flush_timer);
	event_free(main_sig_term);
	event_free(main_sig_int);
	event_free(main_sig_hup);
	if (main_exit_timer)
		event_free(main_exit_timer);
	if (sboxd.dns)
		evdns_base_free(sboxd.dns, 0);
	proxy_hosts_free();
	providers_set_fallback(NULL);
	events_close();
	{	/* said, not silent: what a failing store could not take */
		struct store_stats ss;

		store_retry_now(sboxd.store);
		(void)store_flush(sboxd.store, NULL);
		store_stats(sboxd.store, &ss);
		if (ss.delayed > 0 || ss.pending > 0)
			log_error("store: %zu record(s) could not be written "
			    "before the exit (%s); the next start marks what "
			    "was running as ended by a crash",
			    ss.delayed + ss.pending, ss.last_error);
	}
	store_close(sboxd.store);
	config_free(sboxd.config);
	event_base_free(sboxd.base);
	log_flush_repeats(1);
	log_info("stopped");
	return 0;
}
