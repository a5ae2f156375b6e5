/* toolconf.c: npm's and Yarn's registry as the tools themselves answer, and
 * the defaults file beside sboxd, for network "registries". */
#include "daemon/session/toolconf.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "policy/registries.h"
#include "policy/strv.h"

static toolconf_spawn_fn toolconf_spawn;   /* hostexec_spawn (main.c) */

#define TOOLCONF_TIMEOUT_S 10
#define TOOLCONF_OUT_MAX   4096
/* The tools are asked this long after sboxd starts, at a low priority: a
 * node start costs a quarter of a second of CPU, which a daemon that has
 * just started (and the sessions it starts first) should not wait on. Until
 * then npm's answer is what its own files say. */
#define TOOLCONF_DELAY_MS  2000
#define TOOLCONF_NICE      10

extern char **environ;

struct toolconf_ask {
	struct toolconf_ask *next;
	const char         *tool;
	char               *path;      /* the copy asked (absolute) */
	pid_t               pid;
	struct bufferevent *bev;
	struct event       *timer;
};

/* One registry host found, and where. */
struct toolconf_answer {
	char *host;
	char *source;
	char *until;    /* an npm whose own answer replaces this one, or NULL */
};

static struct toolconf_answer *toolconf_answers; /* answers so far */
static size_t toolconf_nanswers;
static struct toolconf_ask *toolconf_asks; /* questions still open */
static char  *toolconf_default; /* the defaults file beside sboxd */
static char **toolconf_npms;    /* the tools to ask when the delay is up */
static char **toolconf_yarns;
static struct event *toolconf_later;

/* Remember host as a registry, found in source (the first source wins);
 * until: the npm whose own answer will replace it, or NULL. */
static void
toolconf_add(const char *host, const char *source, const char *until)
{
	struct toolconf_answer *n, *a;
	size_t i;

	for (i = 0; i < toolconf_nanswers; i++)
		if (strcmp(toolconf_answers[i].host, host) == 0)
			return;
	n = realloc(toolconf_answers, (toolconf_nanswers + 1) * sizeof *n);
	if (n == NULL)
		return;
	toolconf_answers = n;
	a = &n[toolconf_nanswers];
	a->host = strdup(host);
	a->source = strdup(source);
	a->until = until != NULL ? strdup(until) : NULL;
	if (a->host == NULL || a->source == NULL ||
	    (until != NULL && a->until == NULL)) {
		free(a->host);
		free(a->source);
		free(a->until);
		return;
	}
	toolconf_nanswers++;
}

/* Forget the answers that stood in for npm's own (path), or every answer
 * (path NULL). */
static void
toolconf_forget(const char *path)
{
	size_t i, k = 0;

	for (i = 0; i < toolconf_nanswers; i++) {
		struct toolconf_answer *a = &toolconf_answers[i];

		if (path == NULL || (a->until != NULL &&
		    strcmp(a->until, path) == 0)) {
			free(a->host);
			free(a->source);
			free(a->until);
		} else
			toolconf_answers[k++] = *a;
	}
	toolconf_nanswers = k;
	if (k == 0) {
		free(toolconf_answers);
		toolconf_answers = NULL;
	}
}

/* npm's registry as its own files say; why: how that stands in for npm's
 * answer. until: as toolconf_add. */
static void
toolconf_npm_files(const char *npm, const char *why, const char *until)
{
	char host[512], file[4200], src[4400];

	if (toolconf_find_npm_default(npm, host, sizeof host, file,
	    sizeof file) == -1)
		return;
	snprintf(src, sizeof src, "npm's own configuration %s (%s %s)", file,
	    npm, why);
	toolconf_add(host, src, until);
	log_info("npm (%s) uses the registry %s, from %s", npm, host, file);
}

/* npm gave no usable answer: its registry as its own files say. */
static void
toolconf_fallback(const struct toolconf_ask *a)
{
	if (strcmp(a->tool, "npm") != 0)
		return;
	toolconf_forget(a->path);
	toolconf_npm_files(a->path, "gave no answer", NULL);
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
	free(a->path);
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
		char src[PATH_MAX + 64];

		snprintf(src, sizeof src, "%s config get registry (%s)", a->tool,
		    a->path);
		toolconf_forget(a->path);
		toolconf_add(host, src, NULL);
		log_info("%s (%s) uses the registry %s", a->tool, a->path, host);
	} else
		toolconf_fallback(a);
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

/* sboxd's environment with the folder of path first on PATH (nvm's npm
 * runs the node beside it); NULL on ENOMEM. */
static char **
toolconf_env(const char *path)
{
	const char *old = getenv("PATH");
	char **env = NULL, *dir, *slash, *kv;
	size_t i;

	for (i = 0; environ != NULL && environ[i] != NULL; i++)
		if (strncmp(environ[i], "PATH=", 5) != 0 &&
		    strv_append(&env, environ[i]) == -1)
			goto fail;
	if ((dir = strdup(path)) == NULL)
		goto fail;
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	if (asprintf(&kv, "PATH=%s%s%s", dir, old ? ":" : "", old ? old : "") ==
	    -1) {
		free(dir);
		goto fail;
	}
	free(dir);
	if (strv_push(&env, kv) == -1)
		goto fail;
	return env;
fail:
	strv_free(env);
	return NULL;
}

/* Ask one tool for its registry, in the background (argv[0] is the tool;
 * npm is told to write no log file: its logs would land in ~/.npm, a cache
 * that sandboxes may read, with whatever sboxd's environment holds). */
static void
toolconf_ask(char *const *args, const char *path)
{
	const char *tool = args[0];
	struct timeval tv = { TOOLCONF_TIMEOUT_S, 0 };
	struct toolconf_ask *a;
	char *argv[8], **env;
	sbox_error err;
	int p[2], fds[3], i;

	if ((a = calloc(1, sizeof *a)) == NULL)
		return;
	a->tool = tool;
	if ((a->path = strdup(path)) == NULL || pipe2(p, O_CLOEXEC) == -1) {
		free(a->path);
		free(a);
		return;
	}
	for (i = 0; i < 7 && args[i] != NULL; i++)
		argv[i] = args[i];
	argv[i] = NULL;
	argv[0] = a->path;
	env = toolconf_env(path);
	fds[0] = -1;
	fds[1] = p[1];
	fds[2] = -1;
	/* From "/", so that no project's own .npmrc is read. */
	if (env == NULL || toolconf_spawn(argv, env, "/", fds, NULL, NULL,
	    &a->pid, &err) == -1) {
		if (env != NULL)
			log_debug("asking %s for its registry: %s", path,
			    err.message);
		strv_free(env);
		close(p[0]);
		close(p[1]);
		toolconf_fallback(a);
		free(a->path);
		free(a);
		return;
	}
	strv_free(env);
	close(p[1]);
	(void)setpriority(PRIO_PROCESS, a->pid, TOOLCONF_NICE);
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

/* Yarn through corepack, with no yarn program to ask: its registry as
 * corepack's own files (and a Yarn in corepack's cache) name it; never a
 * host written in sbox. */
static void
toolconf_yarn_files(const char *home)
{
	char reg[512], rel[512], file[PATH_MAX + 64], src[PATH_MAX + 160];
	char **found;
	size_t i;

	if (toolconf_find_yarn_cached(home, reg, sizeof reg, file,
	    sizeof file) == 0) {
		snprintf(src, sizeof src, "Yarn's own files %s (installed by "
		    "corepack)", file);
		toolconf_add(reg, src, NULL);
		log_info("yarn uses the registry %s, from %s", reg, file);
	}
	found = toolconf_find("corepack", home);
	for (i = 0; found != NULL && found[i] != NULL; i++) {
		if (toolconf_find_corepack_yarn(found[i], reg, sizeof reg, rel,
		    sizeof rel, file, sizeof file) == -1)
			continue;
		snprintf(src, sizeof src, "Yarn's registry, as corepack's "
		    "configuration %s names it", file);
		toolconf_add(reg, src, NULL);
		if (rel[0] != '\0') {
			snprintf(src, sizeof src, "Yarn's releases, which "
			    "corepack downloads Yarn from (%s)", file);
			toolconf_add(rel, src, NULL);
		}
		log_info("corepack (%s): yarn's registry %s%s%s", found[i], reg,
		    rel[0] ? ", releases from " : "", rel);
	}
	strv_free(found);
}

/* The delay is up: ask every npm and Yarn found for their registry. */
static void
toolconf_later_cb(evutil_socket_t fd, short what, void *arg)
{
	static char *const npm[] = { "npm", "config", "get", "registry",
	    "--logs-max=0", "--no-update-notifier", NULL };
	static char *const yarn[] = { "yarn", "config", "get", "registry",
	    "--silent", "--no-progress", NULL };
	size_t i;

	(void)fd; (void)what; (void)arg;
	for (i = 0; toolconf_npms != NULL && toolconf_npms[i] != NULL; i++)
		toolconf_ask(npm, toolconf_npms[i]);
	for (i = 0; toolconf_yarns != NULL && toolconf_yarns[i] != NULL; i++)
		toolconf_ask(yarn, toolconf_yarns[i]);
	strv_free(toolconf_npms);
	toolconf_npms = NULL;
	strv_free(toolconf_yarns);
	toolconf_yarns = NULL;
}

/* Find every npm and Yarn installed for the person: npm's own files answer
 * at once, and each tool is asked for its registry a little later, in the
 * background, run with spawn. */
void
toolconf_start(toolconf_spawn_fn spawn)
{
	struct timeval tv = { TOOLCONF_DELAY_MS / 1000,
	    (TOOLCONF_DELAY_MS % 1000) * 1000 };
	const char *home = getenv("HOME");
	size_t i;

	toolconf_spawn = spawn;
	/* every copy installed for the person, whatever sboxd's PATH */
	toolconf_npms = toolconf_find("npm", home);
	for (i = 0; toolconf_npms != NULL && toolconf_npms[i] != NULL; i++)
		toolconf_npm_files(toolconf_npms[i], "not asked yet",
		    toolconf_npms[i]);
	toolconf_yarns = toolconf_find("yarn", home);
	toolconf_yarn_files(home);
	toolconf_later = evtimer_new(sboxd.base, toolconf_later_cb, NULL);
	if (toolconf_later == NULL || evtimer_add(toolconf_later, &tv) < 0)
		toolconf_later_cb(-1, 0, NULL);
}

/* Stop the questions still open (daemon shutdown) and forget the answers. */
void
toolconf_stop(void)
{
	if (toolconf_later != NULL) {
		event_free(toolconf_later);
		toolconf_later = NULL;
	}
	strv_free(toolconf_npms);
	toolconf_npms = NULL;
	strv_free(toolconf_yarns);
	toolconf_yarns = NULL;
	while (toolconf_asks != NULL) {
		kill(-toolconf_asks->pid, SIGKILL);
		toolconf_ask_free(toolconf_asks);
	}
	toolconf_forget(NULL);
	free(toolconf_default);
	toolconf_default = NULL;
}

/* tail (which may begin with "../") joined to sboxd's own folder with no
 * '..' component left: the real path when it exists, else the joined path
 * (an error can name it); NULL when sboxd's folder is unknown. bwrap binds
 * only normalised paths, and an installed sboxd finds PREFIX/libexec and
 * PREFIX/share this way. */
char *
toolconf_beside_path(const char *tail)
{
	char exe[PATH_MAX], *slash, path[PATH_MAX + 64], *real;
	ssize_t n;

	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0)
		return NULL;
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) != NULL)
		*slash = '\0';
	while (strncmp(tail, "../", 3) == 0) {
		if ((slash = strrchr(exe, '/')) != NULL)
			*slash = '\0';
		tail += 3;
	}
	snprintf(path, sizeof path, "%s/%s", exe, tail);
	if ((real = realpath(path, NULL)) != NULL)
		return real;
	return strdup(path);
}

/* The first of tails (relative to sboxd's own folder) that is readable,
 * remembered in *found; NULL when none is. */
static const char *
toolconf_beside_sboxd(const char *const *tails, char **found)
{
	char *path;
	int i;

	if (*found != NULL)
		return *found;
	for (i = 0; tails[i] != NULL; i++) {
		if ((path = toolconf_beside_path(tails[i])) == NULL)
			return NULL;
		if (access(path, R_OK) == 0)
			return *found = path;
		free(path);
	}
	return NULL;
}

/* The defaults file beside sboxd (installed, or in a build tree). */
const char *
toolconf_defaults_file(void)
{
	static const char *const tails[] = { "../share/sbox/registries",
	    "../policy/registries.default", NULL };

	return toolconf_beside_sboxd(tails, &toolconf_default);
}

/* The shipped protected-names file beside sboxd (installed, or in a build
 * tree), or NULL. */
const char *
toolconf_protected_file(void)
{
	static const char *const tails[] = { "../share/sbox/protected",
	    "../policy/protected.default", NULL };
	static char *found;

	return toolconf_beside_sboxd(tails, &found);
}

/* The shipped built-in providers file beside sboxd (installed, or in a
 * build tree), or NULL. */
const char *
toolconf_providers_file(void)
{
	static const char *const tails[] = { "../share/sbox/providers",
	    "../policy/providers.default", NULL };
	static char *found;

	return toolconf_beside_sboxd(tails, &found);
}

/* Every registry host for a client. */
int
toolconf_registries(const char *home, char *const *env, char ***out,
    sbox_error *err)
{
	size_t i;

	*out = NULL;
	if (registries_collect(home, env, toolconf_defaults_file(), out,
	    err) == -1)
		return -1;
	for (i = 0; i < toolconf_nanswers; i++) {
		if (strv_add_unique(out, toolconf_answers[i].host) == -1) {
			strv_free(*out);
			*out = NULL;
			return error_nomem(err);
		}
	}
	return 0;
}

/* Where each registry host of toolconf_registries(home, env) comes from:
 * [{host, source}]. */
json_t *
toolconf_sources_json(const char *home, char *const *env)
{
	const char *file = registries_defaults_file(toolconf_defaults_file());
	char **all = NULL, **defaults = NULL, src[PATH_MAX + 64];
	json_t *out = json_array();
	const char *s;
	size_t i, j;

	if (toolconf_registries(home, env, &all, NULL) == -1)
		return out;
	if (file != NULL)
		registries_read_file(file, &defaults, NULL);
	for (i = 0; out != NULL && all != NULL && all[i] != NULL; i++) {
		s = NULL;
		for (j = 0; j < toolconf_nanswers; j++)
			if (strcmp(toolconf_answers[j].host, all[i]) == 0)
				s = toolconf_answers[j].source;
		if (s == NULL && strv_contains(defaults, all[i])) {
			snprintf(src, sizeof src, "defaults file %s", file);
			s = src;
		}
		if (s == NULL)
			s = "your tools' configuration in your home folder or "
			    "environment (~/.npmrc, ~/.yarnrc, pip, cargo, GOPROXY, "
			    "NuGet)";
		json_array_append_new(out, json_pack("{s:s, s:s}", "host", all[i],
		    "source", s));
	}
	strv_free(all);
	strv_free(defaults);
	return out;
}
