/* tokens: `forgemcp token create|list|revoke`, writing the token cache. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "auth.h"
#include "cli/cli.h"
#include "err.h"
#include "store/db.h"

#define TOKEN_MAX_TTL	(10LL * 366 * 24 * 3600)	/* ten years */

static const char usage[] =
    "usage: forgemcp token create --user LOGIN --scopes LIST [--expires TIME] [--name NAME]\n"
    "       forgemcp token list [--user LOGIN]\n"
    "       forgemcp token revoke ID\n"
    "\n"
    "  create   makes a token and prints it once on stdout; only its SHA-256 is stored.\n"
    "           LIST is a comma list of read, write, execute, merge (execute and\n"
    "           merge include write).  TIME is a number with d, h, m or s (30d, 12h,\n"
    "           90m, 3600s), or never (the default).\n"
    "  list     prints id, user, name, scopes, created, expires, last used and\n"
    "           status (active, expired, revoked), tab-separated; never the token\n"
    "  revoke   stops a token from working at once\n";

static const char *const scope_names[] = { "read", "write", "execute", "merge" };

/* Canonicalizes "read,write" into out (stored SET order); reports an unknown name. */
static int
parse_scopes(char *out, size_t len, const char *list)
{
	int	 want[4] = { 0 };
	size_t	 i, n;
	const char *p = list, *end;

	out[0] = '\0';
	for (; ; p = end + 1) {
		end = strchr(p, ',');
		n = end != NULL ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < 4; i++)
			if (strlen(scope_names[i]) == n && strncmp(scope_names[i], p, n) == 0)
				break;
		if (i == 4)
			return cli_usage("unknown scope '%.*s' (use read, write, execute, merge)",
			    (int)(n > 64 ? 64 : n), p);
		want[i] = 1;
		if (end == NULL)
			break;
	}
	for (i = 0; i < 4; i++)
		if (want[i]) {
			if (out[0] != '\0')
				strncat(out, ",", len - strlen(out) - 1);
			strncat(out, scope_names[i], len - strlen(out) - 1);
		}
	return 0;
}

/* "30d", "12h", "90m", "3600s" or "never" (0) into seconds. */
static int
parse_expires(int64_t *out, const char *s)
{
	char		*end;
	long long	 v, mul;

	*out = 0;
	if (strcmp(s, "never") == 0)
		return 0;
	if (s[0] < '0' || s[0] > '9')
		return cli_usage("invalid --expires '%s' (use 30d, 12h, 90m, 3600s or never)", s);
	errno = 0;
	v = strtoll(s, &end, 10);
	switch (end[0]) {
	case 'd':
		mul = 86400;
		break;
	case 'h':
		mul = 3600;
		break;
	case 'm':
		mul = 60;
		break;
	case 's':
		mul = 1;
		break;
	default:
		return cli_usage("invalid --expires '%s' (use 30d, 12h, 90m, 3600s or never)", s);
	}
	if (errno != 0 || end[1] != '\0' || v <= 0 || v > TOKEN_MAX_TTL / mul)
		return cli_usage("invalid --expires '%s' (a positive time up to ten years)", s);
	*out = v * mul;
	return 0;
}

static int
token_create(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "scopes", required_argument, NULL, 's' },
		{ "expires", required_argument, NULL, 'x' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char	*user = NULL, *scopes = NULL, *expires = "never", *name = NULL;
	char		 stored[64], token[64], hash[65];
	struct db	*db = NULL;
	struct err	 e;
	uint64_t	 uid, id;
	int64_t		 ttl;
	int		 ch, rc = 1;

	err_clear(&e);
	memset(token, 0, sizeof token);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (ch) {
		case 'u':
			user = optarg;
			break;
		case 's':
			scopes = optarg;
			break;
		case 'x':
			expires = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case ':':
			return cli_usage("token create: option '%s' needs a value",
			    argv[optind - 1]);
		default:
			return cli_usage("token create: unknown option '%s'", cli_bad_option(argv));
		}
	}
	if (optind != argc)
		return cli_usage("token create: unexpected argument '%s'", argv[optind]);
	if (user == NULL)
		return cli_usage("token create: --user is required");
	if (scopes == NULL)
		return cli_usage("token create: --scopes is required");
	if ((rc = parse_scopes(stored, sizeof stored, scopes)) != 0)
		return rc;
	if ((rc = parse_expires(&ttl, expires)) != 0)
		return rc;
	if (name != NULL && strlen(name) > 255)
		return cli_usage("--name is longer than 255 bytes");
	rc = 1;
	if (db_new(&db, &cli->cfg, &e) != 0 || db_user_find(db, &uid, user, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	if (auth_token_generate(token) != 0) {
		rc = cli_fail("cannot generate a random token");
		goto done;
	}
	auth_token_hash(hash, token, strlen(token));
	if (db_token_create(db, &id, uid, hash, name, stored, ttl, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	printf("%s\n", token);
	fflush(stdout);
	fprintf(stderr, "token %llu for '%s' (%s): store it now, it is not shown again\n",
	    (unsigned long long)id, user, stored);
	rc = 0;
done:
	explicit_bzero(token, sizeof token);
	db_free(db);
	return rc;
}

static int
token_list(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char		*user = NULL;
	struct db		*db = NULL;
	struct db_token_info	*v = NULL;
	struct err		 e;
	size_t			 n = 0, i;
	int			 ch, rc = 1;

	err_clear(&e);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (ch) {
		case 'u':
			user = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case ':':
			return cli_usage("token list: option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage("token list: unknown option '%s'", cli_bad_option(argv));
		}
	}
	if (optind != argc)
		return cli_usage("token list: unexpected argument '%s'", argv[optind]);
	if (db_new(&db, &cli->cfg, &e) != 0 || db_token_list(db, &v, &n, user, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	for (i = 0; i < n; i++) {
		printf("%llu\t", (unsigned long long)v[i].id);
		cli_put_field(v[i].login, "-");
		putchar('\t');
		cli_put_field(v[i].name, "-");
		printf("\t%s\t%s\t%s\t%s\t%s\n", v[i].scopes, v[i].created_at,
		    v[i].expires_at[0] != '\0' ? v[i].expires_at : "never",
		    v[i].last_used_at[0] != '\0' ? v[i].last_used_at : "never",
		    v[i].revoked ? "revoked" : v[i].expired ? "expired" : "active");
	}
	rc = 0;
done:
	db_token_list_free(v, n);
	db_free(db);
	return rc;
}

static int
token_revoke(struct cli *cli, int argc, char **argv)
{
	struct db		*db = NULL;
	struct err		 e;
	unsigned long long	 id;
	char			*end;
	int			 already = 0, rc = 1;

	err_clear(&e);
	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc != 2)
		return cli_usage("token revoke: expected one token ID");
	errno = 0;
	id = strtoull(argv[1], &end, 10);
	if (argv[1][0] < '0' || argv[1][0] > '9' || *end != '\0' || errno != 0 || id == 0)
		return cli_usage("invalid token id '%s'", argv[1]);
	if (db_new(&db, &cli->cfg, &e) != 0 || db_token_revoke(db, id, &already, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	if (already)
		printf("token %llu was already revoked\n", id);
	else
		printf("revoked token %llu\n", id);
	rc = 0;
done:
	db_free(db);
	return rc;
}

int
cli_token(struct cli *cli, int argc, char **argv)
{
	if (argc < 2)
		return cli_usage("token: expected a subcommand (create, list, revoke)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "create") == 0)
		return token_create(cli, argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return token_list(cli, argc - 1, argv + 1);
	if (strcmp(argv[1], "revoke") == 0)
		return token_revoke(cli, argc - 1, argv + 1);
	return cli_usage("token: unknown subcommand '%s'", argv[1]);
}
