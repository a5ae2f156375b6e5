/* sandbox-check.c: sandbox.check: a throwaway session in a fresh folder, one
 * shell script inside that tries each thing, and what the host sees after. */
#define _XOPEN_SOURCE 700
#include "daemon/check/sandbox-check.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon/command/command.h"
#include "daemon/container/container.h"
#include "daemon/container/diskguard.h"
#include "daemon/log.h"
#include "daemon/rpc-call.h"
#include "daemon/container/rmtree.h"
#include "daemon/container/userns.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "policy/profile.h"
#include "protocol/base64.h"
#include "store/store.h"

#define SANDBOX_CHECK_POLL_MS    50
#define SANDBOX_CHECK_DEADLINE_MS 60000
#define SANDBOX_CHECK_CMD_TIMEOUT_S 30
#define SANDBOX_CHECK_PROBE ".sbox-check-probe"
#define SANDBOX_CHECK_SECRET "sbox-check: this file must stay out of reach\n"

/* The script run inside: $1 writable folder, $2 a folder outside, $3 the
 * host's home, $4 sbox's config, $5 its state folder, $6 its socket, $7 the
 * proxy port. Each line "STEP\tkey\tok|fail\tdetail". */
static const char sandbox_check_script[] =
	"W=$1 O=$2 H=$3 CFG=$4 ST=$5 SOCK=$6 PORT=$7\n"
	"step() { printf 'STEP\\t%s\\t%s\\t%s\\n' \"$1\" \"$2\" \"$(printf '%s' \"$3\" | tr '\\t\\r\\n' '   ' | cut -c1-400)\"; }\n"
	"step shell ok \"sh runs as uid $(id -u 2>/dev/null) in $(pwd)\"\n"
	"ok=ok d=\n"
	"for t in python3 git make cc node; do\n"
	"\tcommand -v \"$t\" >/dev/null 2>&1 || continue\n"
	"\tif v=$(\"$t\" --version 2>&1 </dev/null); then\n"
	"\t\td=\"$d$(printf '%s\\n' \"$v\" | head -n 1); \"\n"
	"\telse ok=fail d=\"$d$t --version failed: $v; \"; fi\n"
	"done\n"
	"d=${d%; }\n"
	"[ -n \"$d\" ] || d=\"none of python3, git, make, cc, node is installed\"\n"
	"step tools \"$ok\" \"$d\"\n"
	"f=\"$W/.sbox-check-write\"\n"
	"if e=$( { printf 'sbox-check\\n' >\"$f\"; } 2>&1 ) && [ \"$(cat \"$f\" 2>/dev/null)\" = sbox-check ]; then\n"
	"\tstep write_in ok \"wrote $f\"\n"
	"else step write_in fail \"cannot write $f: $e\"; fi\n"
	"d=\n"
	"for f in \"$O/probe\" \"$H/.sbox-check-probe\"; do\n"
	"\tif e=$( { printf x >\"$f\"; } 2>&1 ); then d=\"$d$f: written inside the sandbox only; \"\n"
	"\telse d=\"$d$f: refused ($e); \"; fi\n"
	"done\n"
	"step write_out ok \"${d%; }\"\n"
	"if c=$(cat \"$O/secret\" 2>/dev/null) && [ -n \"$c\" ]; then step read_out fail \"read $O/secret\"\n"
	"else step read_out ok \"$O/secret is out of reach\"; fi\n"
	"bad= d=\n"
	"for f in \"$CFG\" \"$ST/sbox.db\"; do\n"
	"\t[ -s \"$f\" ] && cat \"$f\" >/dev/null 2>&1 && bad=\"$bad $f\"\n"
	"done\n"
	"[ -n \"$(ls -A \"$ST\" 2>/dev/null)\" ] && bad=\"$bad $ST\"\n"
	"[ -S \"$SOCK\" ] && bad=\"$bad $SOCK\"\n"
	"if [ -n \"$bad\" ]; then step sbox fail \"readable inside:$bad\"\n"
	"else step sbox ok \"$CFG, $ST and $SOCK are out of reach\"; fi\n"
	"bad=\n"
	"for f in .ssh .aws .gnupg .kube .docker .netrc .npmrc .pypirc .git-credentials .config/gh; do\n"
	"\tif [ -d \"$H/$f\" ]; then [ -n \"$(ls -A \"$H/$f\" 2>/dev/null)\" ] && bad=\"$bad $H/$f\"\n"
	"\telif [ -s \"$H/$f\" ] && cat \"$H/$f\" >/dev/null 2>&1; then bad=\"$bad $H/$f\"; fi\n"
	"done\n"
	"if [ -n \"$bad\" ]; then step creds fail \"readable inside:$bad\"\n"
	"else step creds ok \"~/.ssh, ~/.aws, ~/.gnupg, ~/.netrc and the like are out of reach\"; fi\n"
	"q='CONNECT not-allowed.invalid:443 HTTP/1.1\\r\\nHost: not-allowed.invalid:443\\r\\n\\r\\n'\n"
	"if command -v bash >/dev/null 2>&1; then how=bash\n"
	"\tr=$(bash -c 'exec 3<>\"/dev/tcp/127.0.0.1/$1\" || exit 1; printf \"$2\" >&3; IFS= read -r -t 10 l <&3; printf \"%s\" \"$l\"' sh \"$PORT\" \"$q\" 2>&1)\n"
	"elif command -v python3 >/dev/null 2>&1; then how=python3\n"
	"\tr=$(python3 -c 'import socket,sys\n"
	"s=socket.create_connection((\"127.0.0.1\",int(sys.argv[1])),10)\n"
	"s.sendall(b\"CONNECT not-allowed.invalid:443 HTTP/1.1\\r\\nHost: not-allowed.invalid:443\\r\\n\\r\\n\")\n"
	"print(s.recv(256).split(b\"\\r\\n\")[0].decode(\"latin-1\"))' \"$PORT\" 2>&1)\n"
	"elif command -v curl >/dev/null 2>&1; then how=curl\n"
	"\tr=$(curl -sS -o /dev/null -w 'HTTP %{http_connect}' --max-time 10 -p -x \"http://127.0.0.1:$PORT\" https://not-allowed.invalid/ 2>/dev/null)\n"
	"else how= r=; fi\n"
	"r=$(printf '%s' \"$r\" | tr -d '\\r')\n"
	"if [ -z \"$how\" ]; then step network fail \"no bash, python3 or curl to reach the proxy with\"\n"
	"else case \"$r\" in\n"
	"\t*\" 403\"*) step network ok \"the proxy at 127.0.0.1:$PORT refused not-allowed.invalid:443: $r ($how)\";;\n"
	"\t*) step network fail \"the proxy at 127.0.0.1:$PORT did not refuse not-allowed.invalid:443: ${r:-no answer} ($how)\";;\n"
	"esac; fi\n";

enum sandbox_check_phase { CHECK_STARTING, CHECK_RUNNING };

struct sandbox_check {
	struct rpc_call *call;
	char            *profile;
	char            *provider;    /* --provider: its steps too, or NULL */
	char            *root;        /* the fresh folder: project/ and outside/ */
	char            *project;
	char            *outside;
	char            *work;        /* where the write must work (project or scratch) */
	char            *home_probe;  /* HOME/.sbox-check-probe, NULL if it existed */
	char             session[17];
	long long        command;
	enum sandbox_check_phase phase;
	struct event    *timer;
	long long        started_ms;
	int              cancelled;
	json_t          *steps;
};

/* What each key of the script's output is called, in order. */
static const struct {
	const char *key, *name;
} sandbox_check_names[] = {
	{ "shell", "shell" },
	{ "tools", "developer tools" },
	{ "write_in", "write in the project" },
	{ "write_out", "write outside the project" },
	{ "read_out", "read outside the project" },
	{ "sbox", "sbox's own files" },
	{ "creds", "credentials" },
	{ "network", "network" },
};
#define SANDBOX_CHECK_NSTEPS \
	(sizeof sandbox_check_names / sizeof sandbox_check_names[0])

/* The bwrap binary sessions use, written to buf; -1 when it is missing. */
int
sandbox_check_bwrap(char *buf, size_t len)
{
	const char *path, *p, *colon;
	size_t n;

	if (sboxd.bwrap_path != NULL && sboxd.bwrap_path[0] != '\0') {
		snprintf(buf, len, "%s", sboxd.bwrap_path);
		return access(buf, X_OK) == 0 ? 0 : -1;
	}
	if ((path = getenv("PATH")) == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = colon + 1) {
		colon = strchr(p, ':');
		n = colon ? (size_t)(colon - p) : strlen(p);
		if (n > 0 && p[0] == '/' && n + 7 <= len) {
			memcpy(buf, p, n);
			memcpy(buf + n, "/bwrap", 7);
			if (access(buf, X_OK) == 0)
				return 0;
		}
		if (colon == NULL)
			break;
	}
	snprintf(buf, len, "bwrap");
	return -1;
}

/* Append one step {id, step, ok, detail}. */
static void
sandbox_check_step(struct sandbox_check *chk, const char *id,
    const char *name, int ok, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	json_array_append_new(chk->steps, json_pack("{s:s, s:s, s:b, s:s}",
	    "id", id, "step", name, "ok", ok, "detail", detail));
}

/* The limits step: where the sandboxes' memory and processes are bounded
 * (a cgroup), or that no cgroup could be had and what holds instead. */
static void
sandbox_check_limits(struct sandbox_check *chk)
{
	sandbox_check_step(chk, "limits", "limits", 1, "cgroup: %s",
	    container_cgroup_mode());
}

/* The disk step: free space on the state file system against the
 * reserve sboxd keeps there for its own records, and cache roots stopped
 * for being over their limits. Not ok while space is short. */
static void
sandbox_check_disk(struct sandbox_check *chk)
{
	json_t *d = diskguard_describe(), *f;
	char full[512] = "";
	size_t i, n = 0;
	int shrt = json_is_true(json_object_get(d, "short"));

	json_array_foreach(json_object_get(d, "full_caches"), i, f)
		n += (size_t)snprintf(full + n, n < sizeof full ? sizeof full - n :
		    0, "%s%s", i ? ", " : "; caches over their limit (stopped): ",
		    json_string_value(json_object_get(f, "root")));
	sandbox_check_step(chk, "disk", "state disk", !shrt, "%s: %lld MiB free "
	    "of %lld MiB; sboxd keeps %lld MiB for its own records (%s)%s%s",
	    json_string_value(json_object_get(d, "state_dir")),
	    (long long)(json_integer_value(json_object_get(d, "free_bytes")) >>
	    20), (long long)(json_integer_value(json_object_get(d,
	    "total_bytes")) >> 20), (long long)(json_integer_value(
	    json_object_get(d, "reserve_bytes")) >> 20), json_is_true(
	    json_object_get(d, "reserve_held")) ? "held" : "not held",
	    shrt ? "; short of space: free some (sbox cache clear) or set "
	    "daemon.disk_reserve_mb" : "", full);
	json_decref(d);
}

/* The userns_probe step: the settings that restrict user namespaces and
 * a namespace made as bwrap makes it; what restricts them and the one
 * command that fixes it, or what applies as root. */
static void
sandbox_check_userns(struct sandbox_check *chk, const char *bwrap)
{
	struct userns_state st;
	char why[900];
	int ok;

	userns_read(&st);
	userns_probe(&st);
	ok = userns_explain(&st, bwrap, why, sizeof why);
	sandbox_check_step(chk, "userns_probe", "user namespace probe", ok,
	    "%s", why);
}

/* Free a check (its session and folder are gone already). */
static void
sandbox_check_free(struct sandbox_check *chk)
{
	if (chk->timer != NULL)
		event_free(chk->timer);
	free(chk->profile);
	free(chk->provider);
	free(chk->root);
	free(chk->project);
	free(chk->outside);
	free(chk->work);
	free(chk->home_probe);
	json_decref(chk->steps);
	free(chk);
}

/* Make the fresh folder: ROOT/project, and ROOT/outside with a secret. */
static int
sandbox_check_folder(struct sandbox_check *chk, sbox_error *err)
{
	const char *tmp = getenv("TMPDIR");
	char *path = NULL;
	FILE *f;

	if (tmp == NULL || tmp[0] != '/')
		tmp = "/tmp";
	if (asprintf(&chk->root, "%s/sbox-check-XXXXXX", tmp) == -1) {
		chk->root = NULL;
		return error_nomem(err);
	}
	if (mkdtemp(chk->root) == NULL) {
		error_set_errno(err, E_IO, errno, "cannot create a test folder "
		    "under %s", tmp);
		free(chk->root);
		chk->root = NULL;
		return -1;
	}
	if (asprintf(&chk->project, "%s/project", chk->root) == -1 ||
	    asprintf(&chk->outside, "%s/outside", chk->root) == -1 ||
	    asprintf(&path, "%s/secret", chk->outside) == -1)
		return error_nomem(err);
	if (mkdir(chk->project, 0700) == -1 || mkdir(chk->outside, 0700) == -1 ||
	    (f = fopen(path, "w")) == NULL) {
		error_set_errno(err, E_IO, errno, "cannot make the test folders "
		    "in %s", chk->root);
		free(path);
		return -1;
	}
	fputs(SANDBOX_CHECK_SECRET, f);
	fclose(f);
	free(path);
	return 0;
}

/* The host's home folder, as sessions see it. */
static const char *
sandbox_check_home(void)
{
	const char *home = getenv("HOME");

	return home != NULL && home[0] == '/' ? home : "/";
}

/* End the check: close the session, remove the folder, answer, free. */
static void
sandbox_check_finish(struct sandbox_check *chk)
{
	struct session *s = session_find(chk->session, NULL);
	sbox_error err;
	json_t *st;
	size_t i;
	int ok = 1;

	if (s != NULL)
		session_close(s, "sandbox check finished");
	rmtree(chk->root);
	if (chk->home_probe != NULL)
		unlink(chk->home_probe);
	if (chk->cancelled || sboxd.stopping) {
		if (chk->cancelled)
			error_set(&err, E_CANCELLED, "sandbox.check was cancelled");
		else
			error_set(&err, E_SHUTTING_DOWN, "sboxd is shutting down");
		rpc_call_on_cancel(chk->call, NULL, NULL);
		rpc_call_fail(chk->call, &err);
		sandbox_check_free(chk);
		return;
	}
	sandbox_check_limits(chk);
	sandbox_check_disk(chk);
	json_array_foreach(chk->steps, i, st) {
		if (!json_is_true(json_object_get(st, "ok")))
			ok = 0;
	}
	rpc_call_on_cancel(chk->call, NULL, NULL);
	rpc_call_reply(chk->call, json_pack("{s:s, s:b, s:O}", "profile",
	    chk->profile, "ok", ok, "steps", chk->steps));
	sandbox_check_free(chk);
}

/* Does path exist on the host? */
static int
sandbox_check_exists(const char *path)
{
	struct stat st;

	return path != NULL && lstat(path, &st) == 0;
}

/* A script step, checked again from the host where the host can tell. */
static void
sandbox_check_verify(struct sandbox_check *chk, const char *key,
    const char *name, int ok, const char *detail)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;
	int fd;

	if (strcmp(key, "write_in") == 0 && ok) {
		snprintf(path, sizeof path, "%s/.sbox-check-write", chk->work);
		n = -1;
		if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			n = read(fd, buf, sizeof buf - 1);
			close(fd);
		}
		if (n < 0 || (size_t)n != strlen("sbox-check\n") ||
		    memcmp(buf, "sbox-check\n", (size_t)n) != 0) {
			sandbox_check_step(chk, key, name, 0, "%s, but the "
			    "file is not in %s on the host", detail, chk->work);
			return;
		}
	}
	if (strcmp(key, "write_out") == 0) {
		snprintf(path, sizeof path, "%s/probe", chk->outside);
		if (sandbox_check_exists(path) ||
		    sandbox_check_exists(chk->home_probe)) {
			sandbox_check_step(chk, key, name, 0, "a write from the "
			    "sandbox reached the host: %s",
			    sandbox_check_exists(path) ? path : chk->home_probe);
			return;
		}
	}
	sandbox_check_step(chk, key, name, ok, "%s", detail);
}

/* Read the script's "STEP\tkey\tok|fail\tdetail" lines into steps. */
static void
sandbox_check_parse(struct sandbox_check *chk, const char *out)
{
	int seen[SANDBOX_CHECK_NSTEPS] = { 0 };
	char *copy = strdup(out ? out : ""), *line, *save = NULL, *f[4], *t;
	size_t i;
	int k;

	for (line = copy ? strtok_r(copy, "\n", &save) : NULL; line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		for (k = 0, t = line; k < 4 && t != NULL; k++) {
			f[k] = t;
			if (k < 3 && (t = strchr(t, '\t')) != NULL)
				*t++ = '\0';
		}
		if (k < 4 || t == NULL || strcmp(f[0], "STEP") != 0)
			continue;
		for (i = 0; i < SANDBOX_CHECK_NSTEPS; i++) {
			if (seen[i] || strcmp(f[1], sandbox_check_names[i].key))
				continue;
			seen[i] = 1;
			sandbox_check_verify(chk, f[1], strcmp(f[1], "write_in")
			    == 0 && strcmp(chk->work, chk->project) != 0 ?
			    "write in the scratch folder" :
			    sandbox_check_names[i].name,
			    strcmp(f[2], "ok") == 0, f[3]);
		}
	}
	free(copy);
	for (i = 0; i < SANDBOX_CHECK_NSTEPS; i++) {
		if (!seen[i])
			sandbox_check_step(chk, sandbox_check_names[i].key,
			    sandbox_check_names[i].name, 0, "no answer from the "
			    "test script");
	}
}

/* The kept stdout of a command as a string (caller frees). */
static char *
sandbox_check_stdout(const struct command *c)
{
	json_t *o = command_output(c);
	const char *b64 = json_string_value(json_object_get(o, "stdout"));
	unsigned char *bytes;
	char *s = NULL;
	size_t n;

	if (b64 != NULL && (bytes = base64_decode(b64, strlen(b64), &n)) != NULL) {
		if ((s = malloc(n + 1)) != NULL) {
			memcpy(s, bytes, n);
			s[n] = '\0';
		}
		free(bytes);
	}
	json_decref(o);
	return s;
}

/* The session is ready: run the script inside it. */
static int
sandbox_check_run(struct sandbox_check *chk, struct session *s,
    sbox_error *err)
{
	struct command_params p;
	char port[16];
	json_t *argv, *r = NULL;
	int rc;

	chk->work = strdup(s->profile->project_access ? chk->project :
	    s->scratch);
	snprintf(port, sizeof port, "%d", s->ct ? container_proxy_port(s->ct) : 0);
	char *pscript = sandbox_check_provider_script(sandbox_check_script,
	    chk->provider);

	argv = json_pack("[s, s, s, s, s, s, s, s, s, s, s]", "sh", "-c",
	    pscript ? pscript : sandbox_check_script, "sbox-check", chk->work ? chk->work : "",
	    chk->outside, sandbox_check_home(), sboxd.config_path ?
	    sboxd.config_path : "", sboxd.state_dir, sboxd.socket_path ?
	    sboxd.socket_path : "", port);
	free(pscript);
	if (argv == NULL || chk->work == NULL) {
		json_decref(argv);
		return error_nomem(err);
	}
	memset(&p, 0, sizeof p);
	p.s = s;
	p.argv = argv;
	p.stdio = COMMAND_STDIO_NONE;
	p.timeout_ms = SANDBOX_CHECK_CMD_TIMEOUT_S * 1000LL;
	rc = command_start(&p, NULL, &r, err);
	json_decref(argv);
	if (rc == -1)
		return -1;
	chk->command = json_integer_value(json_object_get(r, "command"));
	json_decref(r);
	return 0;
}

/* The sandbox did not start: say why, from the store's record. */
static void
sandbox_check_start_failed(struct sandbox_check *chk)
{
	sbox_error err;
	json_t *rec;
	const char *why = NULL;

	error_clear(&err);
	rec = store_session_get(sboxd.store, chk->session, &err);
	if (rec != NULL)
		why = json_string_value(json_object_get(rec, "close_reason"));
	sandbox_check_step(chk, "userns", "user namespaces", 0,
	    "the sandbox did not start: %s", why ? why : "it ended");
	json_decref(rec);
}

/* Poll: the session becoming ready, then the script ending. */
static void
sandbox_check_tick(evutil_socket_t fd, short what, void *arg)
{
	struct sandbox_check *chk = arg;
	struct command *c;
	struct session *s;
	sbox_error err;
	char *out;

	(void)fd; (void)what;
	if (chk->cancelled || sboxd.stopping) {
		sandbox_check_finish(chk);
		return;
	}
	s = session_find(chk->session, NULL);
	if (sboxd_now_ms() - chk->started_ms > SANDBOX_CHECK_DEADLINE_MS) {
		sandbox_check_step(chk, "deadline", "deadline", 0, "the check "
		    "did not finish within %d s", SANDBOX_CHECK_DEADLINE_MS / 1000);
		sandbox_check_finish(chk);
		return;
	}
	if (chk->phase == CHECK_STARTING) {
		if (s == NULL) {
			sandbox_check_start_failed(chk);
			sandbox_check_finish(chk);
			return;
		}
		if (s->state != SESSION_READY)
			return;
		sandbox_check_step(chk, "userns", "user namespaces", 1,
		    "the sandbox started in %lld ms (container pid %d)",
		    s->ct ? container_start_ms(s->ct) : 0LL,
		    s->ct ? (int)container_pid(s->ct) : 0);
		error_clear(&err);
		if (sandbox_check_run(chk, s, &err) == -1) {
			sandbox_check_step(chk, "shell", "shell", 0,
			    "cannot run sh in the sandbox: %s", err.message);
			sandbox_check_finish(chk);
			return;
		}
		chk->phase = CHECK_RUNNING;
		return;
	}
	if ((c = command_find(chk->command, NULL)) == NULL || c->s != s) {
		sandbox_check_step(chk, "shell", "shell", 0, "the test script "
		    "ended with its sandbox");
		sandbox_check_finish(chk);
		return;
	}
	if (c->state != COMMAND_DONE)
		return;
	if (c->failed) {
		sandbox_check_step(chk, "shell", "shell", 0, "sh did not start "
		    "in the sandbox: %s", c->fail_msg ? c->fail_msg : "?");
		sandbox_check_finish(chk);
		return;
	}
	out = sandbox_check_stdout(c);
	sandbox_check_parse(chk, out);
	if (chk->provider != NULL) {
		sandbox_check_provider_parse(chk->steps, out);
		sandbox_check_provider_aside(chk->steps, chk->provider);
	}
	free(out);
	sandbox_check_finish(chk);
}

/* The client went away or cancelled: stop at the next tick. */
static void
sandbox_check_cancel(struct rpc_call *call, void *arg)
{
	struct sandbox_check *chk = arg;

	(void)call;
	chk->cancelled = 1;
}

/* Run the check for a sandboxed profile. */
int
sandbox_check_start(const char *profile, struct rpc_call *call,
    json_t **result, sbox_error *err)
{
	return sandbox_check_start_provider(profile, NULL, call, result, err);
}

/* Run the check for a sandboxed profile, as a session of provider. */
int
sandbox_check_start_provider(const char *profile, const char *provider,
    struct rpc_call *call, json_t **result, sbox_error *err)
{
	struct sandbox_check *chk;
	struct session_params sp;
	struct timeval tv = { 0, SANDBOX_CHECK_POLL_MS * 1000 };
	char bwrap[PATH_MAX], *probe = NULL;
	json_t *env, *r = NULL;
	sbox_error serr;
	int rc, ok, init_ok;

	if ((chk = calloc(1, sizeof *chk)) == NULL ||
	    (chk->profile = strdup(profile)) == NULL ||
	    (chk->steps = json_array()) == NULL) {
		if (chk != NULL)
			sandbox_check_free(chk);
		return error_nomem(err);
	}
	chk->call = call;
	chk->started_ms = sboxd_now_ms();
	if (provider != NULL && (chk->provider = strdup(provider)) == NULL) {
		sandbox_check_free(chk);
		return error_nomem(err);
	}
	ok = sandbox_check_bwrap(bwrap, sizeof bwrap) == 0;
	sandbox_check_step(chk, "bwrap", "bwrap", ok, ok ? "%s" :
	    "%s is not installed: apt install bubblewrap (or dnf install "
	    "bubblewrap)", bwrap);
	init_ok = sboxd.init_path != NULL && access(sboxd.init_path, X_OK) == 0;
	sandbox_check_step(chk, "init", "sbox-init", init_ok, init_ok ? "%s" :
	    "sbox-init is not installed at %s: install sbox (make install puts "
	    "it in PREFIX/libexec/sbox) or start sboxd with --init PATH",
	    sboxd.init_path ? sboxd.init_path : "?");
	sandbox_check_userns(chk, ok ? bwrap : NULL);
	if (sandbox_check_folder(chk, err) == -1) {
		rmtree(chk->root);
		sandbox_check_free(chk);
		return -1;
	}
	if (asprintf(&probe, "%s/" SANDBOX_CHECK_PROBE, sandbox_check_home())
	    != -1 && !sandbox_check_exists(probe))
		chk->home_probe = probe;
	else
		free(probe);
	memset(&sp, 0, sizeof sp);
	sp.project = chk->project;
	sp.sandbox = profile;
	sp.provider = provider;
	sp.title = "sandbox check";
	sp.uid = getuid();
	env = json_pack("{s:s}", "PATH", getenv("PATH") ? getenv("PATH") :
	    "/usr/local/bin:/usr/bin:/bin");
	sp.env = env;
	error_clear(&serr);
	rc = session_create(&sp, NULL, &r, &serr);
	json_decref(env);
	if (rc != RPC_LATER) {
		if (rc == 0) {		/* not sandboxed: nothing ran */
			snprintf(chk->session, sizeof chk->session, "%s",
			    json_string_value(json_object_get(r, "session")));
			error_set(&serr, E_INVALID_PARAMS, "profile %s is not "
			    "sandboxed", profile);
		}
		json_decref(r);
		sandbox_check_step(chk, "userns", "user namespaces", 0, "%s",
		    !ok ? "not tried: bwrap is missing" : !init_ok ?
		    "not tried: sbox-init is missing" : serr.message);
		if (chk->session[0] != '\0') {
			struct session *s = session_find(chk->session, NULL);
			if (s != NULL)
				session_close(s, "sandbox check finished");
		}
		rmtree(chk->root);
		*result = json_pack("{s:s, s:b, s:O}", "profile", profile,
		    "ok", 0, "steps", chk->steps);
		sandbox_check_free(chk);
		return 0;
	}
	snprintf(chk->session, sizeof chk->session, "%s",
	    json_string_value(json_object_get(r, "session")));
	json_decref(r);
	chk->timer = event_new(sboxd.base, -1, EV_PERSIST, sandbox_check_tick,
	    chk);
	if (chk->timer == NULL || event_add(chk->timer, &tv) == -1) {
		struct session *s = session_find(chk->session, NULL);
		if (s != NULL)
			session_close(s, "sandbox check failed");
		rmtree(chk->root);
		sandbox_check_free(chk);
		return error_set(err, E_INTERNAL, "cannot start a timer");
	}
	rpc_call_on_cancel(call, sandbox_check_cancel, chk);
	return RPC_LATER;
}
