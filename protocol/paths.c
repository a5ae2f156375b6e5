/* paths.c: the default socket path shared by sboxd and its clients. */
#include "paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* $XDG_RUNTIME_DIR/sbox/sboxd.sock, or /tmp/sbox-UID/sboxd.sock. */
char *
paths_default_socket(void)
{
	const char *run = getenv("XDG_RUNTIME_DIR");
	char *out;

	if (run != NULL && run[0] == '/') {
		if (asprintf(&out, "%s/sbox/sboxd.sock", run) == -1)
			return NULL;
	} else if (asprintf(&out, "/tmp/sbox-%u/sboxd.sock",
	    (unsigned)geteuid()) == -1)
		return NULL;
	return out;
}
