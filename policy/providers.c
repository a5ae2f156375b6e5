/* providers.c: the built-in providers file (providers.h) and its merge into
 * a loaded config. */
#include "policy/providers.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/envfilter.h"
#include "policy/hostpat.h"
#include "policy/path.h"
#include "policy/strv.h"

#define PROVIDERS_FILE_MAX (256 * 1024)
#define PROVIDERS_MAX      128

static char *providers_fallback;

/* Remember the fallback file (the installed or build tree copy). */
void
providers_set_fallback(const char *path)
{
	free(providers_fallback);
	providers_fallback = path ? strdup(path) : NULL;
}

/* The providers file to read, or NULL when none exists. */
const char *
providers_file(void)
{
	const char *env = getenv("SBOX_PROVIDERS_FILE");

	if (env != NULL && env[0] != '\0')
		return env;
	if (access(PROVIDERS_SYSTEM_FILE, F_OK) == 0)
		return PROVIDERS_SYSTEM_FILE;
	if (providers_fallback != NULL && access(providers_fallback, F_OK) == 0)
		return providers_fallback;
	return NULL;
}

/* The whole small file at path, or NULL (errno set). */
static char *
providers_slurp(const char *path)
{
	struct stat st;
	char *buf;
	size_t got;
	FILE *f;

	if ((f = fopen(path, "re")) == NULL)
		return NULL;
	if (fstat(fileno(f), &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > PROVIDERS_FILE_MAX ||
	    (buf = malloc((size_t)st.st_size + 1)) == NULL) {
		fclose(f);
		errno = EFBIG;
		return NULL;
	}
	got = fread(buf, 1, (size_t)st.st_size, f);
	buf[got] = '\0';
	fclose(f);
	return buf;
}

/* The binding called name in out[*n], made when missing (NULL: too many). */
static struct config_binding *
providers_entry(struct config_binding **out, size_t *n, const char *name)
{
	struct config_binding *b;
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*out)[i].key, name) == 0)
			return &(*out)[i];
	if (*n >= PROVIDERS_MAX ||
	    (b = realloc(*out, (*n + 1) * sizeof *b)) == NULL)
		return NULL;
	*out = b;
	b = &b[*n];
	memset(b, 0, sizeof *b);
	if ((b->key = strdup(name)) == NULL)
		return NULL;
	b->builtin = 1;
	(*n)++;
	return b;
}

/* Add one value of keep to b: a ~/ file (outside the account folders)
 * starts a group, each key pattern after it is kept of that file. */
static int
providers_keep(struct config_binding *b, const char *v, const char *home,
    char *why, size_t len)
{
	size_t n = strv_len(b->keep);
	char *p, *e;
	int rc;

	if (strncmp(v, "~/", 2) == 0) {
		if (strlen(v) < 3 || strstr(v, "..") != NULL ||
		    v[strlen(v) - 1] == '/')
			return snprintf(why, len, "\"%s\" is not a file of the "
			    "home", v), -1;
		if (home == NULL)
			return 0;
		if ((p = path_expand(v, home, "providers", NULL)) == NULL)
			return snprintf(why, len, "\"%s\" is not a file path",
			    v), -1;
		rc = asprintf(&e, "%s\t", p);
		free(p);
		if (rc == -1)
			return -1;
		rc = strv_add_unique(&b->keep, e);
		free(e);
		return rc;
	}
	if (strlen(v) > 200 || v[0] == '.' || strstr(v, "..") != NULL ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_-.*") != strlen(v))
		return snprintf(why, len, "\"%s\" is not a key pattern (a.b.*)",
		    v), -1;
	if (home == NULL)
		return 0;
	if (n == 0 || (e = strchr(b->keep[n - 1], '\t')) == NULL)
		return snprintf(why, len, "keep: a key pattern before its ~/ "
		    "file"), -1;
	if (asprintf(&p, "%.*s%s", (int)(e - b->keep[n - 1] + 1),
	    b->keep[n - 1], v) == -1)
		return -1;
	rc = strv_add_unique(&b->keep, p);
	free(p);
	return rc;
}

/* Add one value of KEY to b; a message in why when it is not valid. */
static int
providers_value(struct config_binding *b, const char *key, const char *v,
    const char *home, char *why, size_t len)
{
	struct hostpat hp;
	char buf[300], *p;

	if (strcmp(key, "hosts") == 0) {
		if (hostpat_parse(v, &hp, NULL) == -1)
			return snprintf(why, len, "\"%s\" is not a host pattern", v), -1;
		hostpat_format(&hp, buf, sizeof buf);
		return strv_add_unique(&b->hosts, buf);
	}
	if (strcmp(key, "telemetry") == 0) {
		if (hostpat_parse(v, &hp, NULL) == -1)
			return snprintf(why, len, "\"%s\" is not a host pattern", v), -1;
		hostpat_format(&hp, buf, sizeof buf);
		return strv_add_unique(&b->telemetry, buf);
	}
	if (strcmp(key, "env") == 0) {
		if (!envfilter_name_valid(v) || strchr(v, '*') != NULL)
			return snprintf(why, len, "\"%s\" is not a variable name", v), -1;
		return strv_add_unique(&b->key_env, v);
	}
	if (strcmp(key, "pass-env") == 0) {
		if (!envfilter_name_valid(v) || strchr(v, '*') != NULL)
			return snprintf(why, len, "\"%s\" is not a variable name", v), -1;
		return strv_add_unique(&b->pass_env, v);
	}
	if (strcmp(key, "set-env") == 0) {
		char name[128];
		const char *eq = strchr(v, '=');

		if (eq == NULL || (size_t)(eq - v) >= sizeof name ||
		    (memcpy(name, v, (size_t)(eq - v)), name[eq - v] = '\0',
		    !envfilter_name_valid(name)) || strchr(name, '*') != NULL)
			return snprintf(why, len, "\"%s\" is not NAME=VALUE", v), -1;
		return strv_add_unique(&b->set_env, v);
	}
	if (strcmp(key, "home") == 0) {
		if (strcmp(v, "persistent") != 0 && strcmp(v, "empty") != 0)
			return snprintf(why, len, "home must be persistent or "
			    "empty"), -1;
		b->home_persistent = strcmp(v, "persistent") == 0;
		return 0;
	}
	if (strcmp(key, "data") == 0) {
		if (strlen(v) > 200 || strspn(v, "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.*") != strlen(v))
			return snprintf(why, len, "\"%s\" is not a key pattern "
			    "(a.b.*)", v), -1;
		return strv_add_unique(&b->data_keys, v);
	}
	if (strcmp(key, "keep") == 0)
		return providers_keep(b, v, home, why, len);
	if (strcmp(key, "settings") == 0 && strncmp(v, "./", 2) == 0) {
		if (strlen(v) < 3 || strstr(v, "..") != NULL)
			return snprintf(why, len, "\"%s\" is not a path in the "
			    "project", v), -1;
		return strv_add_unique(&b->settings, v);
	}
	if (strcmp(key, "account") == 0 || strcmp(key, "runs-later") == 0 ||
	    strcmp(key, "state") == 0 || strcmp(key, "writable") == 0 ||
	    strcmp(key, "signin") == 0 || strcmp(key, "settings") == 0 ||
	    strcmp(key, "private") == 0) {
		if (strncmp(v, "~/", 2) != 0 || strlen(v) < 3)
			return snprintf(why, len, "\"%s\" must start with ~/", v), -1;
		if (home == NULL)
			return 0;	/* no home folder: nothing to name */
		if ((p = path_expand(v, home, "providers", NULL)) == NULL)
			return snprintf(why, len, "\"%s\" is not a folder path", v), -1;
		if ((strcmp(key, "runs-later") == 0 || strcmp(key, "writable") ==
		    0) && v[strlen(v) - 1] == '/') {
			char *d;
			if (asprintf(&d, "%s/", p) == -1) {
				free(p);
				return -1;
			}
			free(p);
			p = d;
		}
		if (strv_add_unique(strcmp(key, "account") == 0 ?
		    &b->account_folders : strcmp(key, "state") == 0 ?
		    &b->state_folders : strcmp(key, "writable") == 0 ?
		    &b->writable : strcmp(key, "signin") == 0 ? &b->signin :
		    strcmp(key, "settings") == 0 ? &b->settings :
		    strcmp(key, "private") == 0 ? &b->private_dirs :
		    &b->runs_later, p) == -1) {
			free(p);
			return -1;
		}
		free(p);
		return 0;
	}
	snprintf(why, len, "unknown key \"%s\" (expected alias, hosts, "
	    "account, state, home, env, pass-env, set-env, runs-later, writable, "
	    "signin, settings, data, keep, private or telemetry)", key);
	return -1;
}

/* Give each alias of out[] a copy of its provider's facts. */
static int
providers_aliases(struct config_binding **out, size_t *n, char **aliases)
{
	struct config_binding *a, *b;
	size_t i, j;
	int ok = 1;

	/* aliases: "alias\tprovider" pairs */
	for (i = 0; aliases != NULL && aliases[i] != NULL; i++) {
		char *tab = strchr(aliases[i], '\t');

		*tab = '\0';
		for (j = 0, b = NULL; j < *n; j++)
			if (strcmp((*out)[j].key, tab + 1) == 0)
				b = &(*out)[j];
		if (b == NULL)
			continue;
		j = (size_t)(b - *out);
		if ((a = providers_entry(out, n, aliases[i])) == NULL)
			return -1;
		b = &(*out)[j];	/* realloc may have moved it */
		strv_free(a->hosts);
		strv_free(a->account_folders);
		strv_free(a->key_env);
		strv_free(a->runs_later);
		strv_free(a->state_folders);
		strv_free(a->writable);
		strv_free(a->signin);
		strv_free(a->settings);
		strv_free(a->data_keys);
		strv_free(a->pass_env);
		strv_free(a->set_env);
		strv_free(a->keep);
		strv_free(a->private_dirs);
		strv_free(a->telemetry);
		free(a->alias_of);
		if ((a->alias_of = strdup(b->key)) == NULL)
			ok = 0;
		a->pass_env = strv_copy(b->pass_env, &ok);
		a->set_env = strv_copy(b->set_env, &ok);
		a->keep = strv_copy(b->keep, &ok);
		a->private_dirs = strv_copy(b->private_dirs, &ok);
		a->telemetry = strv_copy(b->telemetry, &ok);
		a->writable = strv_copy(b->writable, &ok);
		a->signin = strv_copy(b->signin, &ok);
		a->settings = strv_copy(b->settings, &ok);
		a->data_keys = strv_copy(b->data_keys, &ok);
		a->home_persistent = b->home_persistent;
		a->state_folders = strv_copy(b->state_folders, &ok);
		a->hosts = strv_copy(b->hosts, &ok);
		a->account_folders = strv_copy(b->account_folders, &ok);
		a->key_env = strv_copy(b->key_env, &ok);
		a->runs_later = strv_copy(b->runs_later, &ok);
		if (!ok)
			return -1;
	}
	return 0;
}

/* Read a providers file: NAME KEY VALUE... a line. */
int
providers_read(const char *path, const char *home,
    struct config_binding **out, size_t *n, sbox_error *err)
{
	char *buf, *line, *next, *e, *name, *key, *v, *save, why[400];
	char **aliases = NULL, *pair;
	struct config_binding *b;
	int lineno = 0, rc = 0;

	*out = NULL;
	*n = 0;
	if ((buf = providers_slurp(path)) == NULL)
		return error_set_errno(err, E_IO, errno ? errno : EINVAL,
		    "%s: cannot read the providers file", path);
	for (line = buf; rc == 0 && line != NULL; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((e = strchr(line, '#')) != NULL)
			*e = '\0';
		if ((name = strtok_r(line, " \t\r", &save)) == NULL)
			continue;
		why[0] = '\0';
		if ((key = strtok_r(NULL, " \t\r", &save)) == NULL ||
		    !config_provider_name_safe(name)) {
			snprintf(why, sizeof why, "expected NAME KEY VALUE...");
			rc = -1;
			break;
		}
		if ((b = providers_entry(out, n, name)) == NULL) {
			rc = -1;
			break;
		}
		while (rc == 0 && (v = strtok_r(NULL, " \t\r", &save)) != NULL) {
			if (strcmp(key, "alias") == 0) {
				if (!config_provider_name_safe(v)) {
					snprintf(why, sizeof why, "\"%s\" cannot "
					    "name a provider", v);
					rc = -1;
				} else if (asprintf(&pair, "%s\t%s", v, name) == -1 ||
				    strv_push(&aliases, pair) == -1)
					rc = -1;
			} else
				rc = providers_value(b, key, v, home, why, sizeof why);
		}
	}
	free(buf);
	if (rc == 0 && providers_aliases(out, n, aliases) == -1)
		rc = -1;
	strv_free(aliases);
	if (rc == 0)
		return 0;
	if (why[0] != '\0')
		error_set(err, E_CONFIG, "%s:%d: %s", path, lineno, why);
	else
		error_nomem(err);
	while (*n > 0) {
		free((*out)[--*n].key);
		config_provider_free(&(*out)[*n]);
	}
	free(*out);
	*out = NULL;
	return -1;
}

/* Add every string of from to *to (unique); -1 on ENOMEM. */
static int
providers_add_all(char ***to, char *const *from)
{
	size_t i;

	for (i = 0; from != NULL && from[i] != NULL; i++)
		if (strv_add_unique(to, from[i]) == -1)
			return -1;
	return 0;
}

/* A new copy of src's facts in dst, keyed key (0, or -1 on ENOMEM). */
static int
providers_copy(struct config_binding *dst, const struct config_binding *src,
    const char *key)
{
	int ok = 1;

	memset(dst, 0, sizeof *dst);
	dst->key = strdup(key);
	dst->sandbox = src->sandbox ? strdup(src->sandbox) : NULL;
	dst->alias_of = strdup(src->key);
	if (dst->key == NULL || dst->alias_of == NULL ||
	    (src->sandbox != NULL && dst->sandbox == NULL))
		ok = 0;
	dst->home_persistent = src->home_persistent;
	dst->no_sandbox = src->no_sandbox;
	dst->builtin = src->builtin;
	dst->hosts = strv_copy(src->hosts, &ok);
	dst->env_values = strv_copy(src->env_values, &ok);
	dst->account_folders = strv_copy(src->account_folders, &ok);
	dst->runs_later = strv_copy(src->runs_later, &ok);
	dst->key_env = strv_copy(src->key_env, &ok);
	dst->state_folders = strv_copy(src->state_folders, &ok);
	dst->writable = strv_copy(src->writable, &ok);
	dst->signin = strv_copy(src->signin, &ok);
	dst->settings = strv_copy(src->settings, &ok);
	dst->data_keys = strv_copy(src->data_keys, &ok);
	dst->pass_env = strv_copy(src->pass_env, &ok);
	dst->set_env = strv_copy(src->set_env, &ok);
	dst->keep = strv_copy(src->keep, &ok);
	dst->private_dirs = strv_copy(src->private_dirs, &ok);
	dst->telemetry = strv_copy(src->telemetry, &ok);
	return ok ? 0 : -1;
}

/* The config's entry called key, or NULL. */
static struct config_binding *
providers_in_config(struct config *cfg, const char *key)
{
	size_t j;

	for (j = 0; j < cfg->n_providers; j++)
		if (strcmp(cfg->providers[j].key, key) == 0)
			return &cfg->providers[j];
	return NULL;
}

/* Name each config entry that names a built-in provider by another name
 * by the provider's own name (two entries of one provider: E_CONFIG). */
static int
providers_canonical(struct config *cfg, struct config_binding *bi, size_t n,
    sbox_error *err)
{
	struct config_binding *c;
	size_t i;
	char *k;

	for (i = 0; i < n; i++) {
		if (bi[i].alias_of == NULL ||
		    (c = providers_in_config(cfg, bi[i].key)) == NULL)
			continue;
		if (providers_in_config(cfg, bi[i].alias_of) != NULL)
			return error_set_field(err, E_CONFIG, "providers",
			    "providers \"%s\" and \"%s\" are the same provider: "
			    "give it one entry", bi[i].key, bi[i].alias_of);
		if ((k = strdup(bi[i].alias_of)) == NULL)
			return error_nomem(err);
		free(c->key);
		c->key = k;
	}
	return 0;
}

/* Merge the built-in providers into cfg: a config entry under any name of
 * a provider extends it, and each other name gets the merged facts. */
int
providers_merge(struct config *cfg, sbox_error *err)
{
	struct config_binding *bi = NULL, *b, *c;
	const char *file = providers_file();
	size_t n = 0, i;
	int rc = 0;

	if (file == NULL)
		return 0;
	if (providers_read(file, cfg->home, &bi, &n, err) == -1)
		return -1;
	if (providers_canonical(cfg, bi, n, err) == -1) {
		for (i = 0; i < n; i++) {
			free(bi[i].key);
			config_provider_free(&bi[i]);
		}
		free(bi);
		return -1;
	}
	for (i = 0; rc == 0 && i < n; i++) {
		b = &bi[i];
		if (b->alias_of != NULL)
			continue;	/* made from the merged entry below */
		if ((c = providers_in_config(cfg, b->key)) == NULL) {
			/* taken over as it is */
			c = realloc(cfg->providers, (cfg->n_providers + 2) *
			    sizeof *c);
			if (c == NULL) {
				rc = -1;
				break;
			}
			cfg->providers = c;
			cfg->providers[cfg->n_providers++] = *b;
			memset(&cfg->providers[cfg->n_providers], 0, sizeof *c);
			memset(b, 0, sizeof *b);
			continue;
		}
		/* the config's entry extends the built-in one: the built-in
		 * facts first, then the config's */
		c->builtin = 1;
		c->home_persistent |= b->home_persistent;
		if (c->home_persistent && !config_provider_name_safe(c->key))
			c->home_persistent = 0;	/* (a file's names are safe) */
		{	/* the built-in's folders in its own home */
			char **t = c->state_folders;
			c->state_folders = b->state_folders;
			b->state_folders = t;
		}
		if (providers_add_all(&b->hosts, c->hosts) == -1 ||
		    providers_add_all(&b->account_folders, c->account_folders) ==
		    -1 || providers_add_all(&b->key_env, c->key_env) == -1 ||
		    providers_add_all(&b->runs_later, c->runs_later) == -1 ||
		    providers_add_all(&b->writable, c->writable) == -1 ||
		    providers_add_all(&b->signin, c->signin) == -1 ||
		    providers_add_all(&b->settings, c->settings) == -1 ||
		    providers_add_all(&b->data_keys, c->data_keys) == -1 ||
		    providers_add_all(&b->pass_env, c->pass_env) == -1 ||
		    providers_add_all(&b->set_env, c->set_env) == -1) {
			rc = -1;
			break;
		}
#define PROVIDERS_SWAP(f) do { char **t = c->f; c->f = b->f; b->f = t; } while (0)
		PROVIDERS_SWAP(hosts);
		PROVIDERS_SWAP(account_folders);
		PROVIDERS_SWAP(key_env);
		PROVIDERS_SWAP(runs_later);
		PROVIDERS_SWAP(writable);
		PROVIDERS_SWAP(signin);
		PROVIDERS_SWAP(settings);
		PROVIDERS_SWAP(data_keys);
		PROVIDERS_SWAP(pass_env);
		PROVIDERS_SWAP(set_env);
		PROVIDERS_SWAP(keep);
		PROVIDERS_SWAP(private_dirs);
		PROVIDERS_SWAP(telemetry);
#undef PROVIDERS_SWAP
	}
	for (i = 0; rc == 0 && i < n; i++) {	/* the other names */
		struct config_binding copy;

		if (bi[i].alias_of == NULL || (c = providers_in_config(cfg,
		    bi[i].alias_of)) == NULL)
			continue;
		if (providers_copy(&copy, c, bi[i].key) == -1) {
			free(copy.key);
			free(copy.sandbox);
			config_provider_free(&copy);
			rc = -1;
			break;
		}
		c = realloc(cfg->providers, (cfg->n_providers + 2) * sizeof *c);
		if (c == NULL) {
			free(copy.key);
			free(copy.sandbox);
			config_provider_free(&copy);
			rc = -1;
			break;
		}
		cfg->providers = c;
		cfg->providers[cfg->n_providers++] = copy;
		memset(&cfg->providers[cfg->n_providers], 0, sizeof *c);
	}
	for (i = 0; i < n; i++) {
		free(bi[i].key);
		config_provider_free(&bi[i]);
	}
	free(bi);
	return rc == 0 ? 0 : error_nomem(err);
}
