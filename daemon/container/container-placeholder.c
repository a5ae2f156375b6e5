/* container-placeholder.c: removing the empty placeholder files and folders
 * that earlier versions of sboxd made in projects for missing protected
 * paths (the file guard keeps those uncreatable now, with nothing on the
 * host). A crash note of such a version lists them; the next start removes
 * each while it is still empty, walking from its folder's root without
 * following symlinks. */
#include "daemon/container/container.h"
#include "daemon/container/container-bind.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Open the folder holding path's last component, walking from root without
 * following symlinks; *name points at that component. -1 with errno. */
static int
container_ph_parent(const char *root, const char *path, char *buf,
    size_t size, const char **name)
{
	size_t rl = strlen(root);
	char *comp, *slash;
	sbox_error ignored;
	int fd, nfd;

	if (strcmp(root, "/") == 0)
		rl = 0;
	if (strncmp(path, root, rl) != 0 || path[rl] != '/' ||
	    strlen(path + rl) >= size) {
		errno = EINVAL;
		return -1;
	}
	strcpy(buf, path + rl + 1);
	/* walked without following any symlink (a sandbox may have swapped
	 * one in) */
	fd = container_bind_open(root, 0, NULL, &ignored);
	if (fd < 0)
		return -1;
	for (comp = buf; (slash = strchr(comp, '/')) != NULL;
	    comp = slash + 1) {
		*slash = '\0';
		if (strcmp(comp, "..") == 0 || strcmp(comp, ".") == 0 ||
		    *comp == '\0') {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		nfd = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		close(fd);
		if (nfd < 0)
			return -1;
		fd = nfd;
	}
	if (*comp == '\0' || strcmp(comp, "..") == 0 || strcmp(comp, ".") == 0) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	*name = comp;
	return fd;
}

/* Remove one placeholder if it is still an empty file or folder. */
static void
container_ph_unmake(const char *root, const char *path)
{
	char buf[4096];
	const char *name;
	struct stat st;
	int dfd;

	if ((dfd = container_ph_parent(root, path, buf, sizeof buf, &name)) < 0)
		return;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			unlinkat(dfd, name, AT_REMOVEDIR); /* fails if not empty */
		else if (S_ISREG(st.st_mode) && st.st_size == 0)
			unlinkat(dfd, name, 0);
	}
	close(dfd);
}

/* Remove placeholders listed by container_placeholders() (crash recovery). */
void
container_placeholders_remove(json_t *list)
{
	const char *root, *path;
	size_t i;

	if (!json_is_array(list))
		return;
	for (i = json_array_size(list); i-- > 0;) {
		root = json_string_value(json_object_get(json_array_get(list, i),
		    "root"));
		path = json_string_value(json_object_get(json_array_get(list, i),
		    "path"));
		if (root != NULL && path != NULL && root[0] == '/')
			container_ph_unmake(root, path);
	}
}
