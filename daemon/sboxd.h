/* sboxd.h: the daemon's global state and clock (sboxd.c), shared by every
 * daemon/ file. */
#ifndef SBOX_SBOXD_H
#define SBOX_SBOXD_H

#include <stddef.h>
#include <time.h>

struct event_base;
struct evdns_base;
struct store;
struct config;

struct sboxd_limits {
	size_t max_line;          /* bytes in one request line (1 MiB) */
	int    max_conns;         /* connections in total */
	int    max_conns_per_uid; /* connections per peer uid */
	int    max_inflight;      /* requests in flight per connection */
	size_t max_output_queue;  /* bytes queued for a client before it is dropped */
	int    max_sessions;      /* live sessions in total */
	int    max_children;      /* live sessions created from inside one session */
	int    proxy_max_conns;   /* client connections of one session's proxy
	                             (--proxy-max-conns, lowered to fit nofile) */
	long   nofile;            /* soft RLIMIT_NOFILE after raising it */
	int    host_sessions;     /* sessions only host clients may create */
	long long idle_timeout_ms;/* a client connection with nothing in flight
	                             is closed after this (0: never) */
};

struct sboxd {
	struct event_base *base;
	struct evdns_base *dns;
	struct store      *store;
	struct config     *config;       /* current config (replaced on SIGHUP) */
	unsigned           config_gen;   /* bumped each time it is replaced */
	char              *socket_path;
	char              *state_dir;
	char              *config_path;
	char              *db_path;
	char              *init_path;    /* the sbox-init binary */
	char              *bwrap_path;   /* the bwrap binary */
	time_t             started;      /* wall clock at start */
	struct timespec    started_mono;
	int                stopping;
	int                connections;  /* live client connections */
	struct sboxd_limits lim;
};

extern struct sboxd sboxd;

/* Begin an orderly shutdown (stop accepting, close sessions, close store):
 * told on the event bus (daemon.stopping {why}), which main.c hears. */
void sboxd_shutdown(const char *why);
/* Milliseconds on the monotonic clock. */
long long sboxd_now_ms(void);

#endif
