/* keepfile.h: the state an agent's CLI keeps in a file of the home outside
 * its account folders (~/.claude.json), reduced to the keys that may pass
 * between the host and the sandbox (keepfile.c). */
#ifndef SBOX_KEEPFILE_H
#define SBOX_KEEPFILE_H

#include <jansson.h>

/* The most a kept file may hold (larger: neither read nor written). */
#define KEEPFILE_MAX_BYTES (4u << 20)

/* A new object holding only what of doc the key patterns allow ("a.b",
 * '*' one key of any name): a scalar, or an object or array of scalars
 * (nothing nested deeper). doc not an object: an empty object. NULL only
 * on ENOMEM. */
json_t *keepfile_filter(const json_t *doc, char *const *patterns);
/* Merge kept (keepfile_filter's) into host: objects member by member,
 * every other value replaced. 1 when host changed, 0 when not, -1 ENOMEM. */
int keepfile_merge(json_t *host, const json_t *kept);
/* A new object of what of now differs from before (both keepfile_filter's):
 * objects member by member, every other value whole. NULL on ENOMEM. */
json_t *keepfile_changed(const json_t *now, const json_t *before);
/* The patterns of file in a profile's account_keep ("FILE\tKEY" entries),
 * as a new NULL-ended list (NULL when none, or ENOMEM: *ok = 0). */
char **keepfile_patterns(char *const *account_keep, const char *file, int *ok);

#endif
