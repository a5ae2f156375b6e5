/* toolconf.c: npm's and Yarn's registry as the tools themselves answer, and
 * the defaults file beside sboxd, for network "registries". */
#include "daemon/toolconf.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon/hostexec.h"
#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "policy/registries.h"
#include "policy/strv.h"

#define TOOLCONF_TIMEOUT_S 10
#define TOOLCONF_OUT_MAX   4096

extern char **environ;

struct toolconf_ask {
	struct toolconf_ask *next;
	const char         *tool;
	pid_t               pid;
	struct bufferevent *bev;
	struct event       *timer;
};

static char **toolconf_hosts;   /* answers so far */
static struct toolconf_ask *toolconf_asks; /* questions still open */
static char  *toolconf_default; /* the defaults file beside sboxd */

/* Is an executable named tool on PATH? */
static int
toolconf_on_path(const char *tool)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save, full[PATH_MAX];
	int found = 0;

	if (path == NULL || (copy = strdup(path)) == NULL)
		return 0;
	for (dir = strtok_r(copy, ":", &save); dir != NULL && !found;
	    dir = strtok_r(NULL, ":", &save)) {
		snprintf(full, sizeof full, "%s/%s", dir, tool);
		found = access(full, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* Free one question (and forget it). */
static void
toolconf_ask_free(struct toolconf_ask *a)
{
	struct toolconf_ask **pp;

	for (pp = &toolconf_asks; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	}
	if (a->bev)
		bufferevent_free(a->bev);
	if (a->timer)
		event_free(a->timer);
	free(a);
}

/* The tool's output ended: take the registry host from it. */
static void
toolconf_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct toolconf_ask *a = arg;
	char buf[TOOLCONF_OUT_MAX + 1], host[512];
	size_t n;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	n = evbuffer_remove(bufferevent_get_input(bev), buf, TOOLCONF_OUT_MAX);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (registries_url_host(buf, host, sizeof host) == 0) {
		strv_add_unique(&toolconf_hosts, host);
		log_info("%s uses the registry %s", a->tool, host);
	}
	toolconf_ask_free(a);
}

/* The tool took too long: stop it. */
static void
toolconf_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct toolconf_ask *a = arg;

	(void)fd; (void)what;
	kill(-a->pid, SIGKILL);
}

/* Ask one tool for its registry, in the background (argv[0] is the tool;
 * npm is told to write no log file: its logs would land in ~/.npm, a cache
 * that sandboxes may read, with whatever sboxd's environment holds). */
static void
toolconf_ask(char *const *argv)
{
	const char *tool = argv[0];
	struct timeval tv = { TOOLCONF_TIMEOUT_S, 0 };
	struct toolconf_ask *a;
	sbox_error err;
	int p[2], fds[3];

	if (!toolconf_on_path(tool) || (a = calloc(1, sizeof *a)) == NULL)
		return;
	a->tool = tool;
	if (pipe2(p, O_CLOEXEC) == -1) {
		free(a);
		return;
	}
	fds[0] = -1;
	fds[1] = p[1];
	fds[2] = -1;
	/* From "/", so that no project's own .npmrc is read. */
	if (hostexec_spawn((char **)argv, environ, "/", fds, NULL, NULL, &a->pid,
	    &err) == -1) {
		log_debug("asking %s for its registry: %s", tool, err.message);
		close(p[0]);
		close(p[1]);
		free(a);
		return;
	}
	close(p[1]);
	evutil_make_socket_nonblocking(p[0]);
	a->bev = bufferevent_socket_new(sboxd.base, p[0], BEV_OPT_CLOSE_ON_FREE);
	a->timer = evtimer_new(sboxd.base, toolconf_timeout_cb, a);
	if (a->bev == NULL || a->timer == NULL) {
		kill(-a->pid, SIGKILL);
		if (a->bev == NULL)
			close(p[0]);
		toolconf_ask_free(a);
		return;
	}
	a->next = toolconf_asks;
	toolconf_asks = a;
	bufferevent_setcb(a->bev, NULL, NULL, toolconf_event_cb, a);
	bufferevent_setwatermark(a->bev, EV_READ, TOOLCONF_OUT_MAX + 1,
	    TOOLCONF_OUT_MAX + 1);
	bufferevent_enable(a->bev, EV_READ);
	evtimer_add(a->timer, &tv);
}

/* Ask npm and Yarn (when on PATH) for their registry, without blocking. */
void
toolconf_start(void)
{
	static char *const npm[] = { "npm", "config", "get", "registry",
	    "--logs-max=0", "--no-update-notifier", NULL };
	static char *const yarn[] = { "yarn", "config", "get", "registry",
	    "--silent", "--no-progress", NULL };

	toolconf_ask(npm);
	toolconf_ask(yarn);
}

/* Stop the questions still open (daemon shutdown) and forget the answers. */
void
toolconf_stop(void)
{
	while (toolconf_asks != NULL) {
		kill(-toolconf_asks->pid, SIGKILL);
		toolconf_ask_free(toolconf_asks);
	}
	strv_free(toolconf_hosts);
	toolconf_hosts = NULL;
	free(toolconf_default);
	toolconf_default = NULL;
}

/* The defaults file beside sboxd (installed, or in a build tree). */
const char *
toolconf_defaults_file(void)
{
	static const char *tails[] = { "../share/sbox/registries",
	    "../policy/registries.default", NULL };
	char exe[PATH_MAX], *slash, path[PATH_MAX + 64];
	ssize_t n;
	int i;

	if (toolconf_default != NULL)
		return toolconf_default;
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0)
		return NULL;
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) != NULL)
		*slash = '\0';
	for (i = 0; tails[i] != NULL; i++) {
		snprintf(path, sizeof path, "%s/%s", exe, tails[i]);
		if (access(path, R_OK) == 0)
			return toolconf_default = strdup(path);
	}
	return NULL;
}

/* The shipped protected-names file beside sboxd (installed, or in a build
 * tree), or NULL. */
const char *
toolconf_protected_file(void)
{
	static const char *tails[] = { "../share/sbox/protected",
	    "../policy/protected.default", NULL };
	static char *found;
	char exe[PATH_MAX], *slash, path[PATH_MAX + 64];
	ssize_t n;
	int i;

	if (found != NULL)
		return found;
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0)
		return NULL;
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) != NULL)
		*slash = '\0';
	for (i = 0; tails[i] != NULL; i++) {
		snprintf(path, sizeof path, "%s/%s", exe, tails[i]);
		if (access(path, R_OK) == 0)
			return found = strdup(path);
	}
	return NULL;
}

/* Every registry host for a client. */
int
toolconf_registries(const char *home, char *const *env, char ***out,
    sbox_error *err)
{
	char **h;

	*out = NULL;
	if (registries_collect(home, env, toolconf_defaults_file(), out,
	    err) == -1)
		return -1;
	for (h = toolconf_hosts; h != NULL && *h != NULL; h++) {
		if (strv_add_unique(out, *h) == -1) {
			strv_free(*out);
			*out = NULL;
			return error_nomem(err);
		}
	}
	return 0;
}
