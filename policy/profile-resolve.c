/* profile-resolve.c: a profile's static host table (config "resolve"):
 * freeing and copying it. */
#include "policy/profile-resolve.h"

#include <stdlib.h>
#include <string.h>

#include "policy/strv.h"

/* Free a host table. */
void
profile_resolve_free(struct profile_resolve *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].host);
		strv_free(r[i].addrs);
	}
	free(r);
}

/* Deep-copy a host table into *out; -1 on ENOMEM. */
int
profile_resolve_copy(const struct profile_resolve *r, size_t n,
    struct profile_resolve **out)
{
	size_t i;
	int ok = 1;

	*out = NULL;
	if (n == 0)
		return 0;
	*out = calloc(n, sizeof **out);
	if (*out == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		(*out)[i].host = strdup(r[i].host);
		(*out)[i].addrs = strv_copy(r[i].addrs, &ok);
		if ((*out)[i].host == NULL)
			ok = 0;
	}
	if (!ok) {
		profile_resolve_free(*out, n);
		*out = NULL;
		return -1;
	}
	return 0;
}
