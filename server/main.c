// SPDX-License-Identifier: MIT
/*
 * kwarn-server: the REST API and the dashboard over a kwarn database.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "db.h"
#include "options.h"
#include "query.h"
#include "server.h"
#include "util.h"
#include "version.h"
#include "banned.h"

static const char *const server_usage[] = {
	"kwarn-server --db FILE [--listen HOST:PORT] [--web DIR] [--threads N]",
	"             [--max-connections N] [--triage-tokens FILE]",
	"             [--allow-host NAME]... [-n]",
	NULL,
};

/*
 * Split "HOST:PORT" (or ":PORT", or "PORT") into O; the host is copied
 * into a static buffer, which an IPv4 address always fits.
 */
static int parse_listen(struct server_opts *o, const char *spec)
{
	static char host[INET_ADDRSTRLEN];
	const char *colon = strrchr(spec, ':');
	struct in_addr addr;
	long port;

	if (colon) {
		size_t len = (size_t)(colon - spec);

		if (len >= sizeof(host))
			return error("bad address '%.*s' in --listen"
				     " (an IPv4 address)",
				     (int)len, spec);
		if (len) {
			memcpy(host, spec, len);
			host[len] = '\0';
			o->host = host;
		}
		spec = colon + 1;
	}
	if (util_parse_long(&port, spec, 0, 65535))
		return error("bad port '%s' in --listen (0 to 65535)", spec);
	if (inet_pton(AF_INET, o->host, &addr) != 1)
		return error("bad address '%s' in --listen (an IPv4 address)",
			     o->host);
	o->port = (unsigned short)port;
	return 0;
}

/*
 * Raise the soft limit on open files to what MAX connections need (each
 * connection one descriptor, a relayed one three, and the database's and
 * the daemon's own): 0, or -1 with the error reported.
 */
static int fd_budget(unsigned max)
{
	rlim_t need = (rlim_t)max + 3 * SERVER_RELAYS + 256;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return error("cannot read the open-files limit: %s",
			     strerror(errno));
	if (rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		return error("--max-connections %u needs %llu open files, and"
			     " the hard limit is %llu (ulimit -Hn)",
			     max, (unsigned long long)need,
			     (unsigned long long)rl.rlim_max);
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return error("cannot raise the open-files limit to %llu: %s",
			     (unsigned long long)need, strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	struct server_opts o = { .host = "127.0.0.1",
				 .port = 8080,
				 .threads = 4,
				 .max_connections = SERVER_MAX_CONNECTIONS };
	const char *listen = NULL, *threads = NULL, *maxconn = NULL;
	struct opt_list allow = { 0 };
	int argi, rc, check_only = 0, sig = 0;
	const struct opt opts[] = {
		OPT_STRING(0, "db", &o.db_path, "FILE", "the database"),
		OPT_STRING(0, "listen", &listen, "HOST:PORT",
			   "IPv4 address and port (default 127.0.0.1:8080;"
			   " port 0: any free port)"),
		OPT_STRING(0, "web", &o.web_dir, "DIR",
			   "the dashboard folder (default: none)"),
		OPT_STRING(0, "threads", &threads, "N",
			   "worker threads, 1 to 64 (default: 4)"),
		OPT_STRING(0, "max-connections", &maxconn, "N",
			   "connections open at once, 1 to 65536 (default:"
			   " 512); more are answered 503 and closed"),
		OPT_STRING(0, "triage-tokens", &o.triage_tokens, "FILE",
			   "take triage (POST) from the holders of these"
			   " tokens, one \"NAME TOKEN\" a line; mode 600"),
		OPT_LIST(0, "allow-host", &allow, "NAME",
			 "on loopback, a Host name accepted besides localhost"
			 " and loopback addresses (others get 421)"),
		OPT_FLAG('n', "check", &check_only,
			 "check the arguments and the database, then exit"),
		OPT_END,
	};
	unsigned short port = 0;
	sqlite3 *db = NULL;
	sigset_t set;
	long n;

	util_progname = "kwarn-server";
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("kwarn-server %s (schema %d)\n", KWARN_VERSION,
		       db_schema_version());
		return 0;
	}
	static_assert(SERVER_MAX_ALLOW_HOST == ARRAY_SIZE(allow.v),
		      "every --allow-host the table takes fits the server");
	rc = opt_parse(&argi, argc, argv, opts, server_usage);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (!o.db_path || argi != argc) {
		opt_usage(stderr, opts, server_usage);
		return 2;
	}
	if (listen && parse_listen(&o, listen))
		return 2;
	if (threads) {
		if (util_parse_long(&n, threads, 1, 64)) {
			error("bad --threads '%s' (1 to 64)", threads);
			return 2;
		}
		o.threads = (unsigned)n;
	}
	if (maxconn) {
		if (util_parse_long(&n, maxconn, 1, 65536)) {
			error("bad --max-connections '%s' (1 to 65536)",
			      maxconn);
			return 2;
		}
		o.max_connections = (unsigned)n;
	}
	if (fd_budget(o.max_connections))
		return 2;
	for (size_t i = 0; i < allow.nr; i++) {
		if (!*allow.v[i] || strpbrk(allow.v[i], ":/[] ")) {
			error("bad --allow-host '%s' (a host name, at"
			      " most %d of them)",
			      allow.v[i], SERVER_MAX_ALLOW_HOST);
			return 2;
		}
		o.allow_host[o.nallow_host++] = allow.v[i];
	}
	/*
	 * The database must open read-only, at our schema version; -n also
	 * reads every page of it, which is too slow for every start.
	 */
	if (db_open(&db, o.db_path, DB_READ_ONLY))
		return 2;
	{
		long long runs;

		if (query_run_total(&runs, db) ||
		    (check_only && db_quick_check(db))) {
			db_close(db);
			return 2;
		}
	}
	db_close(db);
	db = NULL;
	if (o.triage_tokens) {
		if (api_triage_tokens(o.triage_tokens, o.db_path))
			return 2;
		/* the server writes triage: it must be able to, from now */
		if (db_open(&db, o.db_path, DB_READ_WRITE)) {
			error("--triage-tokens: '%s' cannot be written by this"
			      " user",
			      o.db_path);
			api_triage_free();
			return 2;
		}
		db_close(db);
	}
	if (o.web_dir && !util_is_dir(o.web_dir)) {
		error("web folder '%s' is not a directory", o.web_dir);
		return 2;
	}
	if (check_only) {
		printf("kwarn-server: '%s' (schema %d) and arguments OK\n",
		       o.db_path, db_schema_version());
		return 0;
	}
	/* the pool's threads inherit this mask: signals come to sigwait() */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (http_start(&o, &port))
		return 1;
	printf("kwarn-server: listening on http://%s:%u/\n", o.host,
	       (unsigned)port);
	fflush(stdout);
	sigwait(&set, &sig);
	fprintf(stderr, "kwarn-server: %s, stopping\n",
		sig == SIGINT ? "SIGINT" : "SIGTERM");
	http_stop();
	api_cache_free();
	api_triage_free();
	return 0;
}
