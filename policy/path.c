/* path.c: absolute path spelling: expansion, normalisation, containment. */
#include "policy/path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Normalise an absolute path: collapse `//`, drop `.`, strip trailing `/`. */
char *
path_normalize(const char *path, const char *field, sbox_error *err)
{
	const char *p = path, *e;
	char *out;
	size_t n = 0, len;

	if (path == NULL || path[0] != '/') {
		error_set_field(err, E_CONFIG, field ? field : "",
		    "path \"%s\" is not absolute", path ? path : "");
		return NULL;
	}
	out = malloc(strlen(path) + 2);
	if (out == NULL) {
		error_nomem(err);
		return NULL;
	}
	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = strchr(p, '/');
		len = e ? (size_t)(e - p) : strlen(p);
		if (len == 1 && p[0] == '.') {
			p += len;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			free(out);
			error_set_field(err, E_CONFIG, field ? field : "",
			    "path \"%s\" has a \"..\" component", path);
			return NULL;
		}
		out[n++] = '/';
		memcpy(out + n, p, len);
		n += len;
		p += len;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return out;
}

/* Expand a leading `~` with home, then normalise. */
char *
path_expand(const char *path, const char *home, const char *field,
    sbox_error *err)
{
	char *tmp, *out;

	if (path == NULL || path[0] != '~')
		return path_normalize(path, field, err);
	if (path[1] != '\0' && path[1] != '/') {
		error_set_field(err, E_CONFIG, field ? field : "",
		    "path \"%s\": ~user is not supported, use ~/ or an absolute path",
		    path);
		return NULL;
	}
	if (home == NULL || home[0] != '/') {
		error_set_field(err, E_CONFIG, field ? field : "",
		    "path \"%s\": the home folder is not known", path);
		return NULL;
	}
	if (asprintf(&tmp, "%s/%s", home, path + 1) == -1) {
		error_nomem(err);
		return NULL;
	}
	out = path_normalize(tmp, field, err);
	free(tmp);
	return out;
}

/* True when path equals dir or lies below it (component-wise). */
int
path_is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	if (strncmp(path, dir, n) != 0)
		return 0;
	return path[n] == '\0' || path[n] == '/';
}

/* Number of components of an absolute normalised path ("/" is 0). */
int
path_depth(const char *path)
{
	int d = 0;

	for (; *path != '\0'; path++) {
		if (*path == '/' && path[1] != '\0')
			d++;
	}
	return d;
}

/* dir + "/" + name as a malloc'd string. */
char *
path_join(const char *dir, const char *name)
{
	char *out;

	if (asprintf(&out, "%s%s%s", dir,
	    dir[0] != '\0' && dir[strlen(dir) - 1] == '/' ? "" : "/", name) == -1)
		return NULL;
	return out;
}

/* rel resolved against base, "." and ".." handled lexically. */
char *
path_resolve(const char *base, const char *rel)
{
	char *joined, *out, *p, *e;
	size_t n = 0, len;

	if (rel == NULL || base == NULL || base[0] != '/')
		return NULL;
	if (rel[0] == '/')
		joined = strdup(rel);
	else
		joined = path_join(base, rel);
	if (joined == NULL)
		return NULL;
	if ((out = malloc(strlen(joined) + 2)) == NULL) {
		free(joined);
		return NULL;
	}
	for (p = joined; *p != '\0'; p = e) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = p + strcspn(p, "/");
		len = (size_t)(e - p);
		if (len == 1 && p[0] == '.')
			continue;
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
			continue;
		}
		out[n++] = '/';
		memcpy(out + n, p, len);
		n += len;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	free(joined);
	return out;
}
