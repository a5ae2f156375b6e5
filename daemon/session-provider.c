/* session-provider.c: a provider's own home folder, kept between sessions
 * under sbox's state folder (never the person's real home). */
#include "daemon/session-provider.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/container-bind.h"
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
