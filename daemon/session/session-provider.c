/* session-provider.c: a provider's own home folder, kept between sessions
 * under sbox's state folder (never the person's real home). */
#include "daemon/session/session-provider.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/container/container-bind.h"
#include "daemon/log.h"
#include "policy/guard.h"
#include "policy/strv.h"
#include "daemon/sboxd.h"
#include "policy/config.h"
#include "policy/profile.h"

/* Make dir (one component below an existing folder) unless it exists as a
 * plain folder; a symlink or anything else there is refused. */
static int
session_provider_mkdir(const char *dir, mode_t mode, sbox_error *err)
{
	struct stat st;

	if (mkdir(dir, mode) == -1 && errno != EEXIST)
		return error_set_errno(err, E_IO, errno, "cannot create %s", dir);
	if (lstat(dir, &st) == -1)
		return error_set_errno(err, E_IO, errno, "%s", dir);
	if (!S_ISDIR(st.st_mode))
		return error_set(err, E_SANDBOX_SETUP, "%s is not a folder (a "
		    "symlink or a file): remove it", dir);
	return 0;
}

/* Make the account folders of p that do not exist yet (their parents
 * too, 0700): an agent signs in there on its first run, and a folder
 * missing at the start would not be bound. Failures are left to the plan
 * (a folder that is not there is not granted). */
static void
session_provider_accounts(const struct profile *p)
{
	char path[4096], *slash;
	size_t i;

	for (i = 0; p->account_folders && p->account_folders[i]; i++) {
		if (snprintf(path, sizeof path, "%s", p->account_folders[i]) >=
		    (int)sizeof path || access(path, F_OK) == 0)
			continue;
		for (slash = strchr(path + 1, '/'); slash != NULL;
		    slash = strchr(slash + 1, '/')) {
			*slash = '\0';
			(void)mkdir(path, 0700);
			*slash = '/';
		}
		(void)mkdir(path, 0700);
	}
	/* its folders of its own per session: their mount points (one
	 * level below an account folder that exists, a plain folder) */
	for (i = 0; p->account_private && p->account_private[i]; i++) {
		struct stat st;
		size_t n;

		if (snprintf(path, sizeof path, "%s", p->account_private[i]) >=
		    (int)sizeof path)
			continue;
		n = strlen(path);
		while (n > 1 && path[n - 1] == '/')
			path[--n] = '\0';
		if (lstat(path, &st) == 0 || (slash = strrchr(path, '/')) ==
		    NULL || slash == path)
			continue;
		*slash = '\0';
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		*slash = '/';
		(void)mkdir(path, 0700);
	}
}

/* The provider's home folder, created when missing. */
int
session_provider_home(const struct profile *p, char **out, sbox_error *err)
{
	char *homes = NULL;
	uid_t u;
	gid_t g;

	*out = NULL;
	if (p->sandboxed)
		session_provider_accounts(p);
	if (!p->sandboxed || !p->provider_home)
		return 0;
	if (p->provider == NULL || !config_provider_name_safe(p->provider))
		return error_set_field(err, E_CONFIG, "provider", "provider "
		    "\"%s\" cannot name a home folder", p->provider ?
		    p->provider : "");
	if (asprintf(&homes, "%s/homes", sboxd.state_dir) == -1)
		return error_nomem(err);
	if (session_provider_mkdir(homes, 0700, err) == -1)
		goto fail;
	if (asprintf(out, "%s/%s", homes, p->provider) == -1) {
		*out = NULL;
		error_nomem(err);
		goto fail;
	}
	if (session_provider_mkdir(*out, 0700, err) == -1)
		goto fail;
	if (geteuid() == 0) {	/* the sandbox's own uid writes it */
		container_bind_sandbox_ids(&u, &g);
		if (fchownat(AT_FDCWD, *out, u, g, AT_SYMLINK_NOFOLLOW) == -1) {
			error_set_errno(err, E_IO, errno, "cannot give the home "
			    "folder %s to the sandbox", *out);
			goto fail;
		}
	}
	free(homes);
	return 0;
fail:
	error_context(err, "the home folder of provider %s", p->provider);
	free(homes);
	free(*out);
	*out = NULL;
	return -1;
}

/* Warnings for names of a session the config does not know (they choose
 * nothing, silently otherwise). */
json_t *
session_provider_warnings(const char *provider, const char *model,
    const char *space)
{
	const struct config *cfg = sboxd.config;
	json_t *w = json_array();
	struct { const char *what, *name; const struct config_binding *b;
	    size_t n; } k[3] = {
		{ "provider", provider, cfg ? cfg->providers : NULL,
		  cfg ? cfg->n_providers : 0 },
		{ "model", model, cfg ? cfg->models : NULL,
		  cfg ? cfg->n_models : 0 },
		{ "space", space, cfg ? cfg->spaces : NULL,
		  cfg ? cfg->n_spaces : 0 },
	};
	char *msg;
	size_t i;

	for (i = 0; w != NULL && i < 3; i++) {
		if (k[i].name == NULL || config_find_binding(k[i].b, k[i].n,
		    k[i].name) != NULL)
			continue;
		if (asprintf(&msg, "no %s \"%s\" in the config%s: it chooses "
		    "nothing%s", k[i].what, k[i].name, i == 0 ?
		    " or the built-in providers" : "", i == 0 ? " (no hosts, "
		    "account folders or keys of its own)" : "") == -1)
			continue;
		json_array_append_new(w, json_string(msg));
		free(msg);
	}
	return w;
}

/* The folder beside the provider's home where entries that cannot be bound
 * are moved (never inside the home, so no sandbox sees or names it). */
char *
session_provider_aside_dir(const char *provider)
{
	char *d = NULL;

	if (provider == NULL || !config_provider_name_safe(provider) ||
	    asprintf(&d, "%s/homes/.aside-%s", sboxd.state_dir, provider) == -1)
		return NULL;
	return d;
}

/* Move the entry name of the folder dfd (the component rel ends with) to
 * the aside folder; its new name is added to *moved. */
static void
session_provider_move(int dfd, const char *name, const char *rel,
    const char *provider, char ***moved)
{
	char *aside = session_provider_aside_dir(provider), flat[1100], *p;
	struct timespec ts;
	int afd;

	if (aside == NULL)
		return;
	(void)mkdir(aside, 0700);
	afd = open(aside, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(aside);
	if (afd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(flat, sizeof flat, "%s.%lld%03ld", rel, (long long)ts.tv_sec,
	    ts.tv_nsec / 1000000);
	for (p = flat; *p != '\0'; p++)
		if (*p == '/')
			*p = '%';
	/* renameat never follows name itself: a link is moved, not its target */
	if (renameat(dfd, name, afd, flat) == 0) {
		strv_append(moved, rel);
		log_info("provider %s: %s in its home cannot be bound (a link, "
		    "a device or a file where a folder is needed): moved aside "
		    "to homes/.aside-%s/%s", provider, rel, provider, flat);
	} else
		log_error("provider %s: cannot move %s aside: %s", provider, rel,
		    strerror(errno));
	close(afd);
}

/* Walk rel (a protected name relative to the home folder hfd) one
 * component at a time, never through a link: a link, a device, a fifo or
 * a socket on the way, or a file where a folder is needed, is moved aside. */
static void
session_provider_walk(int hfd, const char *rel, const char *provider,
    char ***moved)
{
	char buf[1024], *comp, *next, *save = NULL;
	struct stat st;
	int fd = dup(hfd), nfd, last;

	if (fd < 0 || snprintf(buf, sizeof buf, "%s", rel) >= (int)sizeof buf) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (comp = strtok_r(buf, "/", &save); comp != NULL; comp = next) {
		next = strtok_r(NULL, "/", &save);
		last = next == NULL;
		if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == -1)
			break;
		if (S_ISLNK(st.st_mode) || (!S_ISDIR(st.st_mode) &&
		    (!last || !S_ISREG(st.st_mode)))) {
			if (next != NULL)	/* the path up to comp */
				next[-1] = '\0';
			session_provider_move(fd, comp, buf, provider, moved);
			break;
		}
		if (last || (nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0)
			break;
		close(fd);
		fd = nfd;
		if (next != NULL)	/* strtok_r cut buf: put the '/' back */
			next[-1] = '/';
	}
	close(fd);
}

/* Before a session of p starts in its own home (a host folder): the names
 * the plan binds there that a sandbox left as links or devices are moved
 * aside, so that the session starts; *moved lists them (relative). */
void
session_provider_aside(const struct profile *p, const char *phome,
    const char *home, const struct guard_table *t, char ***moved)
{
	const char *rel;
	size_t i, n = strlen(home);
	int hfd;

	*moved = NULL;
	if (phome == NULL || p->provider == NULL || t == NULL ||
	    (hfd = open(phome, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return;
	for (i = 0; i < t->n; i++)
		if (t->e[i].kind == GUARD_KIND_RUNS_LATER &&
		    t->e[i].scope != GUARD_SCOPE_ROOT)
			session_provider_walk(hfd, t->e[i].name, p->provider,
			    moved);
	for (i = 0; p->account_protect && p->account_protect[i]; i++) {
		rel = p->account_protect[i];
		if (strncmp(rel, home, n) != 0 || rel[n] != '/')
			continue;
		session_provider_walk(hfd, rel + n + 1, p->provider, moved);
	}
	close(hfd);
}

/* Add to w a warning for each entry moved out of provider's home. */
void
session_provider_moved_warnings(json_t *w, const char *provider,
    char *const *moved)
{
	char *msg;
	size_t i;

	for (i = 0; w != NULL && moved != NULL && moved[i] != NULL; i++) {
		if (asprintf(&msg, "%s in the home folder of provider %s could "
		    "not be bound (a link, a device or a file where a folder "
		    "is needed): moved aside to homes/.aside-%s; sbox sandbox "
		    "check --provider %s lists what was left out", moved[i],
		    provider, provider, provider) == -1)
			continue;
		json_array_append_new(w, json_string(msg));
		free(msg);
	}
}
