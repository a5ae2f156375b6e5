/* registries.c: registry hosts from the user's tool configuration and the
 * installer's defaults file. */
#include "policy/registries.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/hostpat.h"
#include "policy/path.h"
#include "policy/strv.h"

#define REGISTRIES_FILE_MAX (256 * 1024)

/* The host pattern of a URL, written to buf. */
int
registries_url_host(const char *url, char *buf, size_t len)
{
	char host[300];
	const char *p, *end, *at;
	struct hostpat hp;
	size_t n;

	if (strncmp(url, "sparse+", 7) == 0)
		url += 7;
	else if (strncmp(url, "git+", 4) == 0)
		url += 4;
	if ((p = strstr(url, "://")) == NULL)
		return -1;
	p += 3;
	end = p + strcspn(p, "/?# \t\"'");
	at = memchr(p, '@', (size_t)(end - p));
	if (at != NULL)
		p = at + 1;	/* drop user:password@ */
	n = (size_t)(end - p);
	if (n == 0 || n >= sizeof host)
		return -1;
	memcpy(host, p, n);
	host[n] = '\0';
	if (hostpat_parse(host, &hp, NULL) == -1 || hp.wildcard)
		return -1;
	return hostpat_format(&hp, buf, len);
}

/* Add the host of url to *out (ignoring URLs without one); -1 on ENOMEM. */
static int
registries_add_url(char ***out, const char *url)
{
	char buf[300];

	if (registries_url_host(url, buf, sizeof buf) == -1)
		return 0;
	return strv_add_unique(out, buf);
}

/* Add every whitespace-separated URL of s. */
static int
registries_add_urls(char ***out, const char *s)
{
	char url[1024];
	size_t n;

	while (*s != '\0') {
		s += strspn(s, " \t\r\n,|");
		n = strcspn(s, " \t\r\n,|");
		if (n == 0)
			break;
		if (n < sizeof url) {
			memcpy(url, s, n);
			url[n] = '\0';
			if (registries_add_url(out, url) == -1)
				return -1;
		}
		s += n;
	}
	return 0;
}

/* A small file's contents (NULL when missing, unreadable or too big). */
static char *
registries_slurp(const char *path)
{
	struct stat st;
	char *buf;
	size_t got;
	FILE *f;

	if ((f = fopen(path, "re")) == NULL)
		return NULL;
	if (fstat(fileno(f), &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > REGISTRIES_FILE_MAX || (buf = malloc((size_t)st.st_size + 1)) == NULL) {
		fclose(f);
		return NULL;
	}
	got = fread(buf, 1, (size_t)st.st_size, f);
	buf[got] = '\0';
	fclose(f);
	return buf;
}

/* The value of NAME in env, or NULL. */
static const char *
registries_getenv(char *const *env, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; env != NULL && env[i] != NULL; i++) {
		if (strncasecmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	}
	return NULL;
}

/* Split a config line "key <sep> value": trims, strips quotes; 0 if none. */
static int
registries_kv(char *line, char **key, char **val)
{
	char *k = line, *v, *e;

	while (isspace((unsigned char)*k))
		k++;
	if (*k == '#' || *k == ';' || *k == '[' || *k == '\0')
		return 0;
	v = strchr(k, '=');
	e = strstr(k, "://");
	if (v != NULL && (e == NULL || v < e)) {	/* ini: key = value */
		e = v;
		while (e > k && isspace((unsigned char)e[-1]))
			e--;
		v++;
	} else {				/* yaml or rc: key: value, key value */
		v = k + strcspn(k, ": \t");
		if (*v == '\0')
			return 0;
		e = v;
	}
	v += strspn(v, "=: \t");
	*e = '\0';
	while (*v == '"' || *v == '\'')
		v++;
	e = v + strlen(v);
	while (e > v && (isspace((unsigned char)e[-1]) || e[-1] == '"' || e[-1] == '\''))
		*--e = '\0';
	*key = k;
	*val = v;
	return 1;
}

/* Read the file at home/rel (or an absolute rel) and add the URL values of
 * lines whose key is in keys (or ends with ":registry" when npm). */
static int
registries_scan(char ***out, const char *home, const char *rel,
    const char *const *keys, int npm)
{
	char *path, *buf, *line, *save = NULL, *k, *v;
	size_t i;
	int rc = 0, cont = 0, match;

	if (rel[0] == '/')
		path = strdup(rel);
	else if (home == NULL)
		return 0;
	else
		path = path_join(home, rel);
	if (path == NULL)
		return -1;
	buf = registries_slurp(path);
	free(path);
	if (buf == NULL)
		return 0;
	for (line = strtok_r(buf, "\n", &save); rc == 0 && line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (cont && isspace((unsigned char)line[0])) {
			/* pip: continuation lines of extra-index-url */
			rc = registries_add_urls(out, line);
			continue;
		}
		cont = 0;
		if (!registries_kv(line, &k, &v))
			continue;
		match = npm && strlen(k) > 9 && strcmp(k + strlen(k) - 9, ":registry") == 0;
		for (i = 0; !match && keys[i] != NULL; i++)
			match = strcmp(k, keys[i]) == 0;
		if (match) {
			rc = registries_add_urls(out, v);
			cont = 1;
		}
	}
	free(buf);
	return rc;
}

/* Add the package source URLs of a NuGet.Config. */
static int
registries_scan_nuget(char ***out, const char *home)
{
	char *path, *buf, *p, *e;
	int rc = 0;

	if (home == NULL || (path = path_join(home, ".nuget/NuGet/NuGet.Config")) == NULL)
		return home == NULL ? 0 : -1;
	buf = registries_slurp(path);
	free(path);
	for (p = buf; rc == 0 && p != NULL && (p = strstr(p, "value=\"")) != NULL; p = e) {
		p += 7;
		if ((e = strchr(p, '"')) == NULL)
			break;
		*e++ = '\0';
		rc = registries_add_url(out, p);
	}
	free(buf);
	return rc;
}

/* Read a defaults file: host patterns one a line. */
int
registries_read_file(const char *path, char ***out, sbox_error *err)
{
	char *buf, *line, *next, *e, pat[300];
	struct hostpat hp;
	int lineno = 0;

	if ((buf = registries_slurp(path)) == NULL)
		return error_set_errno(err, E_IO, errno ? errno : EINVAL,
		    "%s: cannot read the registries file", path);
	for (line = buf; line != NULL; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((e = strchr(line, '#')) != NULL)
			*e = '\0';
		while (isspace((unsigned char)*line))
			line++;
		e = line + strlen(line);
		while (e > line && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (*line == '\0')
			continue;
		if (hostpat_parse(line, &hp, err) == -1) {
			free(buf);
			return error_context(err, "%s:%d", path, lineno);
		}
		hostpat_format(&hp, pat, sizeof pat);
		if (strv_add_unique(out, pat) == -1) {
			free(buf);
			return error_nomem(err);
		}
	}
	free(buf);
	return 0;
}

/* The defaults file to use, or NULL when none exists. */
const char *
registries_defaults_file(const char *fallback)
{
	const char *env = getenv("SBOX_REGISTRIES_FILE");

	if (env != NULL && env[0] != '\0')
		return env;
	if (access(REGISTRIES_SYSTEM_FILE, F_OK) == 0)
		return REGISTRIES_SYSTEM_FILE;
	if (fallback != NULL && access(fallback, F_OK) == 0)
		return fallback;
	return NULL;
}

/* All registry hosts: the user's tool configuration, then the defaults. */
int
registries_collect(const char *home, char *const *env,
    const char *fallback_file, char ***out, sbox_error *err)
{
	static const char *const npm_keys[] = { "registry", NULL };
	static const char *const yarn_keys[] = { "registry", "npmRegistryServer", NULL };
	static const char *const pip_keys[] = { "index-url", "extra-index-url",
	    "index_url", "extra_index_url", NULL };
	static const char *const cargo_keys[] = { "registry", "index", NULL };
	static const char *const env_urls[] = { "NPM_CONFIG_REGISTRY",
	    "YARN_NPM_REGISTRY_SERVER", "YARN_REGISTRY", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
	    "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "GOPROXY", NULL };
	const char *v, *file;
	char **list = NULL;
	size_t i;
	int rc = 0;

	*out = NULL;
	for (i = 0; rc == 0 && env_urls[i] != NULL; i++) {
		if ((v = registries_getenv(env, env_urls[i])) != NULL)
			rc = registries_add_urls(&list, v);
	}
	if (rc == 0)
		rc = registries_scan(&list, home, ".npmrc", npm_keys, 1);
	if (rc == 0)
		rc = registries_scan(&list, home, ".yarnrc", yarn_keys, 0);
	if (rc == 0)
		rc = registries_scan(&list, home, ".yarnrc.yml", yarn_keys, 0);
	if (rc == 0 && (v = registries_getenv(env, "PIP_CONFIG_FILE")) != NULL &&
	    v[0] == '/')
		rc = registries_scan(&list, home, v, pip_keys, 0);
	if (rc == 0)
		rc = registries_scan(&list, home, ".config/pip/pip.conf", pip_keys, 0);
	if (rc == 0)
		rc = registries_scan(&list, home, ".pip/pip.conf", pip_keys, 0);
	if (rc == 0)
		rc = registries_scan(&list, home, "/etc/pip.conf", pip_keys, 0);
	if (rc == 0)
		rc = registries_scan(&list, home, ".cargo/config.toml", cargo_keys, 0);
	if (rc == 0)
		rc = registries_scan(&list, home, ".cargo/config", cargo_keys, 0);
	if (rc == 0)
		rc = registries_scan_nuget(&list, home);
	if (rc == -1) {
		strv_free(list);
		return error_nomem(err);
	}
	if ((file = registries_defaults_file(fallback_file)) != NULL &&
	    registries_read_file(file, &list, err) == -1) {
		strv_free(list);
		return -1;
	}
	*out = list;
	return 0;
}
