/* rmtree.h: removing a folder tree a sandbox may have filled with anything. */
#ifndef SBOX_RMTREE_H
#define SBOX_RMTREE_H

/* Remove path and everything below it, never following links nor crossing
 * into other mounts; folders made unreadable are made readable first. */
void rmtree(const char *path);

#endif
