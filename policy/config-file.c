/* config-file.c: the config file itself: reading it (a regular file only,
 * never hanging on a FIFO), loading it at start and at reload, and writing
 * it back atomically when a host is saved into a custom profile. */
#include "policy/config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/hostpat.h"
#include "policy/jsonpath.h"
#include "policy/providers.h"
#include "policy/strv.h"

#define CONFIG_FIELD_MAX 256

/* Read and parse the JSON file at path; *missing set when it does not exist.
 * Only a regular file is read: it is opened O_NONBLOCK (a FIFO or device
 * cannot hang the daemon) and checked with fstat before any read. */
static json_t *
config_read(const char *path, int *missing, sbox_error *err)
{
	json_error_t jerr;
	struct stat st;
	json_t *root;
	char *buf;
	size_t got;
	ssize_t n;
	int fd;

	*missing = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd == -1) {
		if (errno == ENOENT) {
			*missing = 1;
			return NULL;
		}
		error_set_errno(err, E_CONFIG, errno, "%s: cannot open", path);
		return NULL;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > CONFIG_MAX_BYTES) {
		close(fd);
		error_set(err, E_CONFIG, "%s: not a regular file of at most %d bytes",
		    path, CONFIG_MAX_BYTES);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		close(fd);
		error_nomem(err);
		return NULL;
	}
	for (got = 0; got < (size_t)st.st_size; got += (size_t)n) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n == -1 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n <= 0)
			break;
	}
	close(fd);
	root = json_loadb(buf, got, JSON_REJECT_DUPLICATES, &jerr);
	free(buf);
	if (root == NULL)
		error_set(err, E_CONFIG, "%s:%d:%d: invalid JSON: %s", path,
		    jerr.line, jerr.column, jerr.text);
	return root;
}

/* Load and validate the config at path with an explicit home; a missing
 * file is the empty config unless must_exist (then E_CONFIG, err->field
 * "missing"). */
static struct config *
config_load_flags(const char *path, const char *home, int must_exist,
    sbox_error *err)
{
	struct config *cfg;
	char *def = NULL;
	json_t *root;
	int missing;

	if (path == NULL && (path = def = config_default_path(home)) == NULL) {
		error_set(err, E_CONFIG, "no home folder: cannot find the config");
		return NULL;
	}
	root = config_read(path, &missing, err);
	if (root == NULL && missing && must_exist) {
		error_set_field(err, E_CONFIG, "missing", "%s: the config file "
		    "is gone", path);
		free(def);
		return NULL;
	}
	if (root == NULL && !missing) {
		free(def);
		return NULL;
	}
	if (root == NULL)
		root = json_object();
	cfg = root ? config_parse(root, path, home, err) : NULL;
	if (root == NULL)
		error_nomem(err);
	/* the built-in providers (providers.h), extended by the config's */
	if (cfg != NULL && providers_merge(cfg, err) == -1) {
		config_free(cfg);
		cfg = NULL;
	}
	json_decref(root);
	free(def);
	return cfg;
}

/* Load and validate the config at path with an explicit home. */
struct config *
config_load_home(const char *path, const char *home, sbox_error *err)
{
	return config_load_flags(path, home, 0, err);
}

/* Load the config at path again; a missing file is an error (a reload
 * never turns a config into the empty one). */
struct config *
config_load_existing(const char *path, sbox_error *err)
{
	return config_load_flags(path, NULL, 1, err);
}

/* Load and validate the config at path (NULL: the default path). */
struct config *
config_load(const char *path, sbox_error *err)
{
	return config_load_home(path, NULL, err);
}

/* Write root to path atomically (temporary file + rename, mode 0600). */
static int
config_write(const char *path, const json_t *root, sbox_error *err)
{
	char *tmp, *copy, *dir;
	int fd, rc;
	FILE *f;

	if ((copy = strdup(path)) == NULL)
		return error_nomem(err);
	dir = dirname(copy);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		error_set_errno(err, E_IO, errno, "%s: cannot create the folder", dir);
		free(copy);
		return -1;
	}
	free(copy);
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) == -1)
		return error_nomem(err);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		error_set_errno(err, E_IO, errno, "%s: cannot create", tmp);
		free(tmp);
		return -1;
	}
	fchmod(fd, 0600);
	if ((f = fdopen(fd, "w")) == NULL) {
		close(fd);
		unlink(tmp);
		free(tmp);
		return error_set_errno(err, E_IO, errno, "%s: fdopen", path);
	}
	rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (rc == 0 && fputc('\n', f) == EOF)
		rc = -1;
	if (fflush(f) != 0 || fsync(fileno(f)) == -1)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) == -1)
		rc = -1;
	if (rc == -1) {
		error_set_errno(err, E_IO, errno, "%s: cannot write", path);
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

/* Get (creating if absent) the object at key of parent; NULL if not an object. */
static json_t *
config_child(json_t *parent, const char *key, int create)
{
	json_t *v = json_object_get(parent, key);

	if (v == NULL && create) {
		v = json_object();
		if (v == NULL || json_object_set_new(parent, key, v) == -1)
			return NULL;
	}
	return json_is_object(v) ? v : NULL;
}

/* Add host to the hosts of a custom profile in the config file. */
int
config_save_host(const char *path, const char *profile, const char *host,
    sbox_error *err)
{
	char buf[300], *def = NULL, f[CONFIG_FIELD_MAX];
	struct hostpat hp, have;
	json_t *root = NULL, *prof, *hosts, *v;
	struct config *check;
	int missing, rc = -1;
	size_t i;

	if (hostpat_parse(host, &hp, err) == -1)
		return error_context(err, "cannot save host");
	hostpat_format(&hp, buf, sizeof buf);
	if (profile == NULL || profile_is_builtin(profile))
		return error_set_field(err, E_CONFIG, "profile",
		    "\"%s\" is a built-in profile and cannot be changed: add a profile to "
		    "sandbox.profiles that extends it, and choose that profile",
		    profile ? profile : "");
	if (path == NULL && (path = def = config_default_path(NULL)) == NULL)
		return error_set(err, E_CONFIG, "no home folder: cannot find the config");
	root = config_read(path, &missing, err);
	if (root == NULL)
		goto out;	/* a missing file has no custom profile either */
	prof = config_child(config_child(root, "sandbox", 0), "profiles", 0);
	prof = config_child(prof, profile, 0);
	if (prof == NULL) {
		error_set_field(err, E_PROFILE_NOT_FOUND, "profile",
		    "%s: no custom profile \"%s\"", path, profile);
		goto out;
	}
	hosts = json_object_get(prof, "hosts");
	if (hosts == NULL) {
		hosts = json_array();
		if (hosts == NULL || json_object_set_new(prof, "hosts", hosts) == -1) {
			error_nomem(err);
			goto out;
		}
	}
	jsonpath_format(f, sizeof f, "sandbox.profiles.%s.hosts", profile);
	if (!json_is_array(hosts)) {
		error_set_field(err, E_CONFIG, f, "%s: %s: must be an array", path, f);
		goto out;
	}
	json_array_foreach(hosts, i, v) {
		if (json_is_string(v) &&
		    hostpat_parse(json_string_value(v), &have, NULL) == 0 &&
		    memcmp(&have, &hp, sizeof hp) == 0) {
			rc = 0;
			goto out;
		}
	}
	if (json_array_append_new(hosts, json_string(buf)) == -1) {
		error_nomem(err);
		goto out;
	}
	if ((check = config_parse(root, path, NULL, err)) == NULL)
		goto out;
	config_free(check);
	rc = config_write(path, root, err);
out:
	if (root == NULL && missing)
		error_set_field(err, E_PROFILE_NOT_FOUND, "profile",
		    "%s does not exist: no custom profile \"%s\"", path, profile);
	json_decref(root);
	free(def);
	return rc;
}
