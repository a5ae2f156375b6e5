/* gitwatch.c: removing a `commondir` a sandbox creates in a git folder of
 * its project, which would point host git at another config and hooks. */
#include "daemon/gitwatch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon/command.h"
#include "daemon/events.h"
#include "daemon/log.h"
#include "daemon/rmtree.h"
#include "daemon/sboxd.h"
#include "daemon/session.h"
#include "policy/plan.h"
#include "policy/profile.h"

#define GITWATCH_MAX 64   /* git folders watched per session */

struct gitwatch {
	struct session *s;
	int             fd;                 /* inotify */
	struct event   *ev;
	int             wd[GITWATCH_MAX];
	char           *dir[GITWATCH_MAX];  /* the git folder of each watch */
	int             n;
};

/* Remove dir/commondir that appeared during the session, and say so. */
static void
gitwatch_remove(struct gitwatch *w, const char *dir)
{
	char path[PATH_MAX], msg[PATH_MAX + 128];
	struct stat st;

	snprintf(path, sizeof path, "%s/commondir", dir);
	if (lstat(path, &st) == -1)
		return;
	rmtree(path);
	snprintf(msg, sizeof msg, "write to %s refused: %s (removed)", path,
	    PLAN_RULE_RUNS_LATER);
	log_warn("session %s: %s", w->s->id, msg);
	command_note_file(w->s, path, PLAN_RULE_RUNS_LATER, msg);
	events_publish("file.refused", w->s->id, json_pack("{s:s, s:s, s:s}",
	    "path", path, "rule", PLAN_RULE_RUNS_LATER, "message", msg));
}

/* inotify: something was created or moved into a watched git folder. */
static void
gitwatch_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct gitwatch *w = arg;
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ie;
	ssize_t n;
	char *p;
	int i;

	(void)what;
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		for (p = buf; p < buf + n; p += sizeof *ie + ie->len) {
			ie = (const struct inotify_event *)p;
			if (ie->len == 0 || strcmp(ie->name, "commondir") != 0)
				continue;
			for (i = 0; i < w->n; i++) {
				if (w->wd[i] == ie->wd)
					gitwatch_remove(w, w->dir[i]);
			}
		}
	}
}

/* Watch one git folder (only one that does not have a commondir: an
 * existing one is read-only in the sandbox). */
static void
gitwatch_add(struct gitwatch *w, const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (w->n == GITWATCH_MAX)
		return;
	snprintf(path, sizeof path, "%s/commondir", dir);
	if (lstat(path, &st) == 0)
		return;
	w->wd[w->n] = inotify_add_watch(w->fd, dir, IN_CREATE | IN_MOVED_TO |
	    IN_ONLYDIR | IN_DONT_FOLLOW);
	if (w->wd[w->n] < 0 || (w->dir[w->n] = strdup(dir)) == NULL)
		return;
	w->n++;
}

/* Watch the git folders of a session's project. */
struct gitwatch *
gitwatch_start(struct session *s)
{
	char git[PATH_MAX], mods[PATH_MAX + 16], sub[PATH_MAX + 16 + 258];
	struct gitwatch *w;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (!s->plan->sandboxed || !s->profile->project_access)
		return NULL;
	snprintf(git, sizeof git, "%s/.git", s->project);
	if (lstat(git, &st) == -1 || !S_ISDIR(st.st_mode))
		return NULL;
	if ((w = calloc(1, sizeof *w)) == NULL)
		return NULL;
	w->s = s;
	if ((w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		log_error("session %s: inotify: %s", s->id, strerror(errno));
		free(w);
		return NULL;
	}
	gitwatch_add(w, git);
	snprintf(mods, sizeof mods, "%s/modules", git);
	if ((d = opendir(mods)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(sub, sizeof sub, "%s/%s", mods, de->d_name);
			if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
				gitwatch_add(w, sub);
		}
		closedir(d);
	}
	w->ev = event_new(sboxd.base, w->fd, EV_READ | EV_PERSIST,
	    gitwatch_read_cb, w);
	if (w->ev == NULL || event_add(w->ev, NULL) == -1) {
		gitwatch_stop(w);
		return NULL;
	}
	return w;
}

/* Handle what is pending, then stop watching. */
void
gitwatch_stop(struct gitwatch *w)
{
	int i;

	if (w == NULL)
		return;
	gitwatch_read_cb(w->fd, EV_READ, w);
	for (i = 0; i < w->n; i++) {
		gitwatch_remove(w, w->dir[i]);
		free(w->dir[i]);
	}
	if (w->ev)
		event_free(w->ev);
	close(w->fd);
	free(w);
}
