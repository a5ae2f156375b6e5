/* plan-fs.c: the real filesystem as the planner sees it (struct plan_fs). */
#include "policy/plan-fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/strv.h"

/* stat(2) for the real filesystem. */
static int
plan_fs_stat(void *arg, const char *path, struct stat *st)
{
	(void)arg;
	return stat(path, st);
}

/* The first max bytes of a real file. */
static char *
plan_fs_read(void *arg, const char *path, size_t max)
{
	char *buf;
	ssize_t n;
	int fd;

	(void)arg;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return NULL;
	if ((buf = malloc(max + 1)) == NULL) {
		close(fd);
		return NULL;
	}
	n = read(fd, buf, max);
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* The names in a real folder. */
static char **
plan_fs_list(void *arg, const char *dir)
{
	struct dirent *de;
	char **out = NULL;
	DIR *d;

	(void)arg;
	if ((d = opendir(dir)) == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (strv_append(&out, de->d_name) == -1)
			break;
	}
	closedir(d);
	return out;
}

/* Where a real path leads through symbolic links (of itself or a parent),
 * or NULL when it leads nowhere else. */
static char *
plan_fs_resolve(void *arg, const char *path)
{
	char *to;

	(void)arg;
	if ((to = realpath(path, NULL)) != NULL && strcmp(to, path) == 0) {
		free(to);
		to = NULL;
	}
	return to;
}

const struct plan_fs plan_fs_real = {
	plan_fs_stat, plan_fs_read, plan_fs_list, NULL, plan_fs_resolve
};
