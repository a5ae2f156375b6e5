/* init-state.c: the file guard's shared state, below the guard's
 * operations: its spec and whether it is ready, the refusal reports sent
 * to sboxd (rate-limited), and why the guard could not decide a call. */
#include "protocol/ctl.h"
#include "daemon/init/init-msg.h"
#include "daemon/init/init-state.h"
#include "daemon/init/init-types.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INIT_STATE_BURST   64     /* refusal reports: bucket size */
#define INIT_STATE_RATE    20     /* refusal reports per second */

static struct guard_spec init_state_g;
static int init_state_st;            /* 0 no guard yet, 1 ready, -1 broken */
static double init_state_tokens = INIT_STATE_BURST;
static long long init_state_last_ms;
static char init_state_last_report[512];
/* The notification being handled: its reports share one ticket, which
 * sboxd answers with a "told" each (init-tell.c). */
static int init_state_in_call;
static json_int_t init_state_ticket, init_state_next_ticket;
static int init_state_ticket_reports;
static pid_t init_state_ticket_tgid;

/* The guard spec (NULL before the guard message). */
const struct guard_spec *
init_state_spec(void)
{
	return init_state_st == 1 ? &init_state_g : NULL;
}

/* The spec the guard message fills (whatever the state). */
struct guard_spec *
init_state_guard(void)
{
	return &init_state_g;
}

static int init_state_si;

/* Are the hidden areas stand-ins (the guard message's filter says)? */
int
init_state_standins(void)
{
	return init_state_si;
}

/* Say whether they are (the guard message). */
void
init_state_set_standins(int on)
{
	init_state_si = on != 0;
}

/* The guard's state: 0 no guard yet, 1 ready, -1 broken. */
int
init_state_get(void)
{
	return init_state_st;
}

/* Set the guard's state (0, 1 or -1). */
void
init_state_set(int st)
{
	init_state_st = st;
}

/* The caller's process id and name (comm) from /proc/TID/status. */
static void
init_state_process(pid_t tid, pid_t *pid, char *name, size_t len)
{
	char p[40], buf[1024], *s;
	ssize_t n;
	size_t k;
	int fd;

	*pid = tid;
	snprintf(name, len, "?");
	snprintf(p, sizeof p, "/proc/%d/status", (int)tid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (strncmp(buf, "Name:\t", 6) == 0) {
		k = strcspn(buf + 6, "\n");
		snprintf(name, len, "%.*s", (int)k, buf + 6);
	}
	if ((s = strstr(buf, "\nTgid:")) != NULL && atoi(s + 6) > 0)
		*pid = (pid_t)atoi(s + 6);
}

/* Report a refused (or kernel-refused) operation to sboxd, rate-limited;
 * reason NULL: a hidden path refused it (the read reporter). */
void
init_state_report(json_int_t id, pid_t pid, const char *op,
    const char *path, int err, const char *rule, const char *reason)
{
	long long now = init_msg_now_ms();
	char key[sizeof init_state_last_report], clean[CTL_PATH_MAX + 256];
	char name[64];
	pid_t tgid;

	snprintf(key, sizeof key, "%lld %s %s", (long long)id, op, path);
	if (strcmp(key, init_state_last_report) == 0)
		return; /* the same refusal again (a retry loop) */
	init_state_tokens += (double)(now - init_state_last_ms) *
	    INIT_STATE_RATE / 1000;
	if (init_state_tokens > INIT_STATE_BURST)
		init_state_tokens = INIT_STATE_BURST;
	init_state_last_ms = now;
	if (init_state_tokens < 1)
		return;
	init_state_tokens -= 1;
	memcpy(init_state_last_report, key, sizeof key);
	init_msg_utf8(clean, path, sizeof clean);
	init_state_process(pid, &tgid, key, sizeof key);
	init_msg_utf8(name, key, sizeof name);
	if (init_state_in_call) {
		if (init_state_ticket == 0)
			init_state_ticket = ++init_state_next_ticket;
		init_state_ticket_reports++;
		init_state_ticket_tgid = tgid;
	}
	init_msg_send(ctl_msg("refused",
	    "{s:I,s:i,s:s,s:s,s:s,s:i,s:s,s:s,s:b,s:I}",
	    "id", id, "pid", (int)tgid, "process", name, "op", op, "path",
	    clean, "errno", err, "rule", rule ? rule : "", "reason", reason ?
	    reason : "", "hidden", reason == NULL, "ticket", init_state_in_call ?
	    init_state_ticket : 0), NULL, 0);
}

/* A notification's handling begins: its reports get one ticket. */
void
init_state_call_begin(void)
{
	init_state_in_call = 1;
	init_state_ticket = 0;
	init_state_ticket_reports = 0;
}

/* A notification's handling ends: its ticket (0 when it reported nothing),
 * how many reports carry it, and the caller's process. */
json_int_t
init_state_call_end(int *reports, pid_t *tgid)
{
	json_int_t t = init_state_ticket;

	*reports = init_state_ticket_reports;
	*tgid = init_state_ticket_tgid;
	init_state_in_call = 0;
	init_state_ticket = 0;
	init_state_ticket_reports = 0;
	return t;
}

static char init_state_und_path[PATH_MAX];
static char init_state_und_why[256];

/* Keep why the guard cannot decide (for the report). */
int
init_state_undecided(const char *path, const char *why)
{
	if (path != NULL || init_state_und_path[0] == '\0')
		snprintf(init_state_und_path, sizeof init_state_und_path,
		    "%s", path != NULL ? path : "");
	snprintf(init_state_und_why, sizeof init_state_und_why, "%s",
	    why);
	return SV_UNDECIDED;
}

/* The last reason kept (and clear it); path gets its path. */
const char *
init_state_undecided_why(char *path, size_t len)
{
	static char why[sizeof init_state_und_why];

	snprintf(path, len, "%s", init_state_und_path);
	snprintf(why, sizeof why, "%s", init_state_und_why[0] ?
	    init_state_und_why : "an unknown state");
	init_state_und_path[0] = init_state_und_why[0] = '\0';
	return why;
}
