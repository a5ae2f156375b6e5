/* ttysize.h: a terminal's size as the protocol carries it: {rows, cols}
 * (command.exec's "tty", command.resize, the spawn message to sbox-init). */
#ifndef SBOX_TTYSIZE_H
#define SBOX_TTYSIZE_H

#include <jansson.h>
#include "protocol/error.h"

#define TTYSIZE_MAX 4096   /* rows and cols are 1..TTYSIZE_MAX */

struct ttysize {
	unsigned short rows;
	unsigned short cols;
};

/* Check one dimension (rows or cols) of a size: an integer 1..TTYSIZE_MAX.
 * Returns it, or 0 with err (naming field) when v is not one. */
unsigned short ttysize_dim(const json_t *v, const char *name,
    const char *field, sbox_error *err);
/* Parse a {rows, cols} object (no other members); -1 with err naming
 * field when it is not one. */
int ttysize_parse(const json_t *v, const char *field, struct ttysize *out,
    sbox_error *err);

#endif
