// SPDX-License-Identifier: MIT
/*
 * kwarn-server: the REST API and the dashboard over a kwarn database.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "query.h"
#include "server.h"
#include "util.h"
#include "banned.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: kwarn-server --db FILE [--listen HOST:PORT]"
		    " [--web DIR] [--threads N] [--allow-host NAME]... [-n]\n"
		    "  --listen   IPv4 address and port (default"
		    " 127.0.0.1:8080; port 0: any free port)\n"
		    "  --allow-host  on loopback, a Host name accepted besides"
		    " localhost\n"
		    "             and loopback addresses (others get 421)\n"
		    "  --web      the dashboard folder (default: none)\n"
		    "  -n         check the arguments and the database,"
		    " then exit\n");
}

/* Split "HOST:PORT" (or ":PORT", or "PORT") into O. */
static int parse_listen(struct server_opts *o, char *spec)
{
	char *colon = strrchr(spec, ':');
	struct in_addr addr;
	long port;

	if (colon) {
		*colon = '\0';
		if (*spec)
			o->host = spec;
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

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "listen", required_argument, NULL, 'l' },
		{ "web", required_argument, NULL, 'w' },
		{ "threads", required_argument, NULL, 't' },
		{ "allow-host", required_argument, NULL, 'a' },
		{ "check", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct server_opts o = { .host = "127.0.0.1",
				 .port = 8080,
				 .threads = 4 };
	unsigned short port = 0;
	int c, check_only = 0, sig = 0;
	sqlite3 *db = NULL;
	sigset_t set;
	long n;

	util_progname = "kwarn-server";
	while ((c = getopt_long(argc, argv, "nh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.db_path = optarg;
			break;
		case 'l':
			if (parse_listen(&o, optarg))
				return 2;
			break;
		case 'w':
			o.web_dir = optarg;
			break;
		case 't':
			if (util_parse_long(&n, optarg, 1, 64)) {
				error("bad --threads '%s' (1 to 64)", optarg);
				return 2;
			}
			o.threads = (unsigned)n;
			break;
		case 'a':
			if (o.nallow_host == SERVER_MAX_ALLOW_HOST ||
			    !*optarg || strpbrk(optarg, ":/[] ")) {
				error("bad --allow-host '%s' (a host name, at"
				      " most %d of them)",
				      optarg, SERVER_MAX_ALLOW_HOST);
				return 2;
			}
			o.allow_host[o.nallow_host++] = optarg;
			break;
		case 'n':
			check_only = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!o.db_path || optind != argc) {
		usage(stderr);
		return 2;
	}
	/* the database must open read-only, at our schema version */
	if (db_open(&db, o.db_path, DB_READ_ONLY))
		return 2;
	{
		long long runs;

		if (query_run_total(&runs, db)) {
			db_close(db);
			return 2;
		}
	}
	db_close(db);
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
	return 0;
}
