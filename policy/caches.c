/* caches.c: the table of package-cache trees (see caches.h): which folder
 * under the user's home each tool reads and fills, and the folder sbox
 * keeps for it under its state folder. */
#include "policy/caches.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/profile-name.h"
#include "policy/profile-types.h"

/* Every tree here holds, or may hold, programs a tool runs later (npx,
 * corepack, pip wheels, pre-commit, go-build, cargo build scripts...): none
 * is ever shared writable with the host. */
const struct cache_tree caches_table[] = {
	{ "cache", ".cache", "XDG cache: pip, corepack, go-build, uv, "
	  "pre-commit, poetry, Playwright, Hugging Face, yarn 1" },
	{ "npm", ".npm", "npm, npx (_npx)" },
	{ "cargo-registry", ".cargo/registry", "cargo (crates)" },
	{ "cargo-git", ".cargo/git", "cargo (git dependencies)" },
	{ "go-mod", "go/pkg/mod", "Go modules" },
	{ "m2", ".m2/repository", "Maven" },
	{ "gradle", ".gradle/caches", "Gradle" },
	{ "nuget", ".nuget/packages", "NuGet, dotnet" },
	{ "yarn", ".yarn/berry/cache", "Yarn 2+" },
	{ "pnpm", ".pnpm-store", "pnpm" },
	{ "bun", ".bun/install/cache", "bun" },
	{ NULL, NULL, NULL },
};

/* Number of entries of caches_table. */
size_t
caches_count(void)
{
	size_t n = 0;

	while (caches_table[n].name != NULL)
		n++;
	return n;
}

/* The tree called name, or NULL. */
const struct cache_tree *
caches_find(const char *name)
{
	const struct cache_tree *t;

	for (t = caches_table; name != NULL && t->name != NULL; t++) {
		if (strcmp(t->name, name) == 0)
			return t;
	}
	return NULL;
}

/* The tree whose place in home is rel, or NULL. */
const struct cache_tree *
caches_find_rel(const char *rel)
{
	const struct cache_tree *t;

	for (t = caches_table; rel != NULL && t->name != NULL; t++) {
		if (strcmp(t->rel, rel) == 0)
			return t;
	}
	return NULL;
}

/* <state_dir>/caches. */
char *
caches_base(const char *state_dir)
{
	char *out;

	if (state_dir == NULL || state_dir[0] != '/')
		return NULL;
	if (asprintf(&out, "%s/caches", strcmp(state_dir, "/") == 0 ? "" :
	    state_dir) == -1)
		return NULL;
	return out;
}

/* <state_dir>/caches/<profile>. */
char *
caches_profile_root(const char *state_dir, const char *profile,
    sbox_error *err)
{
	char *base, *out;

	if (!profile_name_valid(profile)) {
		error_set_field(err, E_INVALID_PARAMS, "profile", "\"%s\" is not "
		    "a profile name", profile ? profile : "");
		return NULL;
	}
	if (state_dir == NULL || state_dir[0] != '/') {
		error_set(err, E_INTERNAL, "the state folder is not an absolute "
		    "path");
		return NULL;
	}
	if ((base = caches_base(state_dir)) == NULL) {
		error_nomem(err);
		return NULL;
	}
	if (asprintf(&out, "%s/%s", base, profile) == -1) {
		free(base);
		error_nomem(err);
		return NULL;
	}
	free(base);
	return out;
}

/* The key of a project's caches: FNV-1a (64 bits) of its real path. */
void
caches_project_key(const char *project, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const unsigned char *p;

	for (p = (const unsigned char *)(project ? project : ""); *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* Apply the profile key "caches": "project" or "profile". */
int
caches_profile_apply(struct profile *p, const json_t *v, const char *f,
    sbox_error *err)
{
	const char *s = json_string_value(v);

	if (s != NULL && strcmp(s, "project") == 0)
		p->caches_shared = 0;
	else if (s != NULL && strcmp(s, "profile") == 0)
		p->caches_shared = 1;
	else
		return error_set_field(err, E_CONFIG, f, "must be \"project\" "
		    "(each project its own caches) or \"profile\" (every project "
		    "of the profile shares them)");
	return 0;
}

/* Bytes the caches of one project (or shared profile) may hold. */
uint64_t
caches_limit_bytes(const struct profile *p)
{
	int64_t mb = p != NULL && p->limits.cache_mb > 0 ? p->limits.cache_mb :
	    CACHES_LIMIT_MB_DEFAULT;

	return (uint64_t)mb << 20;
}
