/* toolconf-find.c: where npm and Yarn are installed for the person, whatever
 * PATH sboxd started with (a systemd user service gets a minimal one): its
 * PATH, then the version managers' folders in the home folder (nvm, volta,
 * fnm), ~/.local/bin, corepack's shims beside each node, /usr/local/bin and
 * /usr/bin; and, when npm cannot answer, its registry as its own files say:
 * its global npmrc, its built-in npmrc, then its built-in default. */
#include "daemon/session/toolconf.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/registries.h"
#include "policy/strv.h"

#define TOOLCONF_FIND_MAX 8
#define TOOLCONF_FILE_MAX (4 * 1024 * 1024)

/* Add dir/tool to *out when it is an executable not seen yet (by its real
 * path; *real keeps those). */
static void
toolconf_find_add(char ***out, char ***real, const char *dir, const char *tool)
{
	char path[PATH_MAX], rp[PATH_MAX];
	struct stat st;

	if (strv_len(*out) >= TOOLCONF_FIND_MAX || dir == NULL || dir[0] != '/')
		return;
	if (snprintf(path, sizeof path, "%s/%s", dir, tool) >= (int)sizeof path)
		return;
	if (stat(path, &st) == -1 || !S_ISREG(st.st_mode) ||
	    access(path, X_OK) == -1 || realpath(path, rp) == NULL ||
	    strv_contains(*real, rp))
		return;
	if (strv_append(real, rp) == 0)
		strv_append(out, path);
}

/* The entries of dir, sorted as versions (newest last); NULL when none. */
static char **
toolconf_find_versions(const char *dir)
{
	struct dirent *de;
	char **out = NULL;
	size_t n, i, j;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL && strv_len(out) < 64)
		if (de->d_name[0] != '.')
			strv_append(&out, de->d_name);
	closedir(d);
	n = strv_len(out);
	for (i = 1; i < n; i++)	/* insertion sort, by strverscmp */
		for (j = i; j > 0 && strverscmp(out[j - 1], out[j]) > 0; j--) {
			char *t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return out;
}

/* Add tool from each version folder of base (newest first): base/V/tail. */
static void
toolconf_find_managed(char ***out, char ***real, const char *base,
    const char *tail, const char *tool)
{
	char **v = toolconf_find_versions(base), dir[PATH_MAX];
	size_t i = strv_len(v);

	while (i-- > 0) {
		if (snprintf(dir, sizeof dir, "%s/%s%s", base, v[i], tail) <
		    (int)sizeof dir)
			toolconf_find_add(out, real, dir, tool);
	}
	strv_free(v);
}

/* Every installed copy of tool, as absolute paths (NULL-terminated). */
char **
toolconf_find(const char *tool, const char *home)
{
	const char *path = getenv("PATH");
	char **out = NULL, **real = NULL, *copy, *dir, *save, buf[PATH_MAX];

	if (path != NULL && (copy = strdup(path)) != NULL) {
		for (dir = strtok_r(copy, ":", &save); dir != NULL;
		    dir = strtok_r(NULL, ":", &save))
			toolconf_find_add(&out, &real, dir, tool);
		free(copy);
	}
	if (home != NULL && home[0] == '/') {
		snprintf(buf, sizeof buf, "%s/.nvm/versions/node", home);
		toolconf_find_managed(&out, &real, buf, "/bin", tool);
		snprintf(buf, sizeof buf, "%s/.volta/bin", home);
		toolconf_find_add(&out, &real, buf, tool);
		snprintf(buf, sizeof buf, "%s/.local/share/fnm/node-versions", home);
		toolconf_find_managed(&out, &real, buf, "/installation/bin", tool);
		snprintf(buf, sizeof buf, "%s/.fnm/node-versions", home);
		toolconf_find_managed(&out, &real, buf, "/installation/bin", tool);
		snprintf(buf, sizeof buf, "%s/.local/bin", home);
		toolconf_find_add(&out, &real, buf, tool);
		snprintf(buf, sizeof buf, "%s/.yarn/bin", home);
		toolconf_find_add(&out, &real, buf, tool);
	}
	toolconf_find_add(&out, &real, "/usr/local/bin", tool);
	toolconf_find_add(&out, &real, "/usr/bin", tool);
	strv_free(real);
	return out;
}

/* The first `registry=` URL of an npmrc file as a host pattern. */
static int
toolconf_find_npmrc(const char *file, char *host, size_t len)
{
	char line[4096], *k, *v, *e;
	int rc = -1;
	FILE *f;

	if ((f = fopen(file, "re")) == NULL)
		return -1;
	while (rc == -1 && fgets(line, sizeof line, f) != NULL) {
		k = line + strspn(line, " \t");
		if (strncmp(k, "registry", 8) != 0)
			continue;
		v = k + 8 + strspn(k + 8, " \t");
		if (*v != '=')
			continue;
		v += 1 + strspn(v + 1, " \t\"'");
		e = v + strcspn(v, " \t\r\n\"'");
		*e = '\0';
		rc = registries_url_host(v, host, len);
	}
	fclose(f);
	return rc;
}

/* The default of npm's `registry` setting in its definitions file. */
static int
toolconf_find_definition(const char *file, char *host, size_t len)
{
	char *buf = NULL, *p, *q, *e;
	size_t n = 0;
	int rc = -1;
	FILE *f;

	if ((f = fopen(file, "re")) == NULL)
		return -1;
	if ((buf = malloc(TOOLCONF_FILE_MAX + 1)) != NULL)
		n = fread(buf, 1, TOOLCONF_FILE_MAX, f);
	fclose(f);
	if (buf == NULL)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "new Definition('registry'");
	if (p == NULL)
		p = strstr(buf, "new Definition(\"registry\"");
	if (p != NULL && (q = strstr(p, "default:")) != NULL && q - p < 200) {
		q += 8 + strspn(q + 8, " \t");
		if (*q == '\'' || *q == '"') {
			e = strchr(q + 1, *q);
			if (e != NULL && e - q < 1024) {
				*e = '\0';
				rc = registries_url_host(q + 1, host, len);
			}
		}
	}
	free(buf);
	return rc;
}

/* npm's registry from its own files: its global npmrc (PREFIX/etc/npmrc),
 * its built-in npmrc, then the built-in default of its config definitions.
 * 0 with host and source (the file it came from), or -1. */
int
toolconf_find_npm_default(const char *npm, char *host, size_t len,
    char *source, size_t slen)
{
	char rp[PATH_MAX], pkg[PATH_MAX], prefix[PATH_MAX], file[PATH_MAX + 128];
	char *slash;
	int i;

	/* npm is PREFIX/bin/npm -> PREFIX/lib/node_modules/npm/bin/npm-cli.js */
	snprintf(prefix, sizeof prefix, "%s", npm);
	for (i = 0; i < 2; i++)
		if ((slash = strrchr(prefix, '/')) != NULL && slash != prefix)
			*slash = '\0';
	if (realpath(npm, rp) == NULL)
		return -1;
	snprintf(pkg, sizeof pkg, "%s", rp);
	for (i = 0; i < 2; i++)
		if ((slash = strrchr(pkg, '/')) != NULL && slash != pkg)
			*slash = '\0';
	snprintf(file, sizeof file, "%s/etc/npmrc", prefix);
	if (toolconf_find_npmrc(file, host, len) == 0)
		goto found;
	snprintf(file, sizeof file, "%s/npmrc", pkg);
	if (toolconf_find_npmrc(file, host, len) == 0)
		goto found;
	snprintf(file, sizeof file, "%s/node_modules/@npmcli/config/lib/"
	    "definitions/definitions.js", pkg);
	if (toolconf_find_definition(file, host, len) == 0)
		goto found;
	return -1;
found:
	snprintf(source, slen, "%s", file);
	return 0;
}

/* The host of the first quoted URL after p (within 200 bytes), or -1. */
static int
toolconf_find_quoted(const char *p, char *host, size_t len)
{
	const char *q = p + strcspn(p, "\"'"), *e;
	char url[1024];

	if (*q == '\0' || q - p > 200 || (e = strchr(q + 1, *q)) == NULL ||
	    (size_t)(e - q - 1) >= sizeof url)
		return -1;
	memcpy(url, q + 1, (size_t)(e - q - 1));
	url[e - q - 1] = '\0';
	return registries_url_host(url, host, len);
}

/* The host of the quoted URL of buf that holds tail (the URL runs from the
 * quote before it); -1 when there is none. */
static int
toolconf_find_url_with(const char *buf, const char *tail, char *host,
    size_t len)
{
	const char *t = strstr(buf, tail), *q;
	char url[1024];
	size_t n;

	if (t == NULL)
		return -1;
	for (q = t; q > buf && q[-1] != '"' && q[-1] != '\'' && t - q < 512; q--)
		;
	if (q == buf || (n = (size_t)(t - q)) == 0 || n >= sizeof url)
		return -1;
	memcpy(url, q, n);
	url[n] = '\0';
	return registries_url_host(url, host, len);
}

/* A file of at most TOOLCONF_FILE_MAX bytes, or NULL. */
static char *
toolconf_find_slurp(const char *file)
{
	char *buf;
	size_t n;
	FILE *f;

	if ((f = fopen(file, "re")) == NULL)
		return NULL;
	if ((buf = malloc(TOOLCONF_FILE_MAX + 1)) != NULL) {
		n = fread(buf, 1, TOOLCONF_FILE_MAX, f);
		buf[n] = '\0';
	}
	fclose(f);
	return buf;
}

/* Yarn's registry and the host its releases come from, as corepack's own
 * bundled configuration names them (the URL of Yarn 1's package, on Yarn's
 * registry, and of Yarn 2+'s program): corepack is PREFIX/bin/corepack ->
 * .../corepack/dist/corepack.js, its configuration is bundled in
 * dist/lib/corepack.cjs. 0 with reg (and rel, "" when not found) and the
 * file in source, or -1. Nothing is run. */
int
toolconf_find_corepack_yarn(const char *corepack, char *reg, size_t rlen,
    char *rel, size_t relen, char *source, size_t slen)
{
	char rp[PATH_MAX], file[PATH_MAX + 64], *slash, *buf;
	int rc;

	if (realpath(corepack, rp) == NULL ||
	    (slash = strrchr(rp, '/')) == NULL)
		return -1;
	*slash = '\0';		/* .../corepack/dist */
	snprintf(file, sizeof file, "%s/lib/corepack.cjs", rp);
	if ((buf = toolconf_find_slurp(file)) == NULL)
		return -1;
	rc = toolconf_find_url_with(buf, "/yarn/-/yarn-{}.tgz", reg, rlen);
	if (toolconf_find_url_with(buf, "/packages/yarnpkg-cli/bin/yarn.js",
	    rel, relen) == -1 && relen > 0)
		rel[0] = '\0';
	free(buf);
	if (rc == -1)
		return -1;
	snprintf(source, slen, "%s", file);
	return 0;
}

/* Yarn's registry as a Yarn that corepack installed says (its default
 * registry in Yarn 1's lib/cli.js, or npmRegistryServer's default in Yarn
 * 2+'s yarn.js), in corepack's cache (COREPACK_HOME, else
 * ~/.cache/node/corepack): 0 with host and the file in source, or -1. */
int
toolconf_find_yarn_cached(const char *home, char *host, size_t len,
    char *source, size_t slen)
{
	const char *ch = getenv("COREPACK_HOME");
	static const char *const sub[] = { "v1/yarn", "yarn", NULL };
	char base[PATH_MAX], dir[PATH_MAX + 16], file[PATH_MAX + 400], **v, *buf, *p;
	size_t i, j;
	int rc = -1;

	if (ch != NULL && ch[0] == '/')
		snprintf(base, sizeof base, "%s", ch);
	else if (home != NULL && home[0] == '/')
		snprintf(base, sizeof base, "%s/.cache/node/corepack", home);
	else
		return -1;
	for (i = 0; rc == -1 && sub[i] != NULL; i++) {
		snprintf(dir, sizeof dir, "%s/%s", base, sub[i]);
		v = toolconf_find_versions(dir);
		for (j = strv_len(v); rc == -1 && j-- > 0; ) {
			snprintf(file, sizeof file, "%s/%s/lib/cli.js", dir, v[j]);
			if ((buf = toolconf_find_slurp(file)) != NULL) {
				p = strstr(buf, "YARN_REGISTRY = ");
				if (p != NULL)
					rc = toolconf_find_quoted(p, host, len);
				free(buf);
			}
			if (rc == -1) {
				snprintf(file, sizeof file, "%s/%s/yarn.js", dir,
				    v[j]);
				if ((buf = toolconf_find_slurp(file)) != NULL) {
					p = strstr(buf, "npmRegistryServer:{");
					if (p != NULL && (p = strstr(p, "default:")) !=
					    NULL)
						rc = toolconf_find_quoted(p, host, len);
					free(buf);
				}
			}
		}
		strv_free(v);
	}
	if (rc == 0)
		snprintf(source, slen, "%s", file);
	return rc;
}
