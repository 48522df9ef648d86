/* users: `forgemcp user add|list`, the forge's accounts. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "cli/cli.h"
#include "err.h"
#include "store/db.h"

static const char usage[] =
    "usage: forgemcp user add LOGIN [--name NAME] [--email EMAIL]\n"
    "       forgemcp user list\n"
    "\n"
    "  add    creates an account; LOGIN is [A-Za-z0-9][A-Za-z0-9_.-]{0,63}\n"
    "  list   prints login, name, email and creation time, tab-separated\n";

/* [A-Za-z0-9][A-Za-z0-9_.-]{0,63} */
static int
valid_login(const char *s)
{
	size_t	 i;

	for (i = 0; s[i] != '\0'; i++) {
		char	 c = s[i];
		int	 alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9');

		if (i >= 64 || (!alnum && (i == 0 || (c != '_' && c != '.' && c != '-'))))
			return 0;
	}
	return i > 0;
}

static int
user_add(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "email", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char	*name = NULL, *email = NULL, *login;
	struct db	*db = NULL;
	struct err	 e;
	uint64_t	 id;
	int		 ch, rc = 1;

	err_clear(&e);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			name = optarg;
			break;
		case 'e':
			email = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case ':':
			return cli_usage("user add: option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage("user add: unknown option '%s'", cli_bad_option(argv));
		}
	}
	if (argc - optind != 1)
		return cli_usage("user add: expected one LOGIN");
	login = argv[optind];
	if (!valid_login(login))
		return cli_usage("invalid login '%s': use letters, digits, '_', '.', '-' "
		    "(up to 64, starting with a letter or digit)", login);
	if (name != NULL && strlen(name) > 255)
		return cli_usage("--name is longer than 255 bytes");
	if (email != NULL && strlen(email) > 255)
		return cli_usage("--email is longer than 255 bytes");
	if (db_new(&db, &cli->cfg, &e) != 0 ||
	    db_user_add(db, &id, login, name, email, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	printf("added user '%s'\n", login);
	rc = 0;
done:
	db_free(db);
	return rc;
}

static int
user_list(struct cli *cli, int argc, char **argv)
{
	struct db	*db = NULL;
	struct db_user	*v = NULL;
	struct err	 e;
	size_t		 n = 0, i;
	int		 rc = 1;

	err_clear(&e);
	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc > 1)
		return cli_usage("user list: unexpected argument '%s'", argv[1]);
	if (db_new(&db, &cli->cfg, &e) != 0 || db_user_list(db, &v, &n, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	for (i = 0; i < n; i++) {
		cli_put_field(v[i].login, "");
		putchar('\t');
		cli_put_field(v[i].name, "");
		putchar('\t');
		cli_put_field(v[i].email, "");
		printf("\t%s\n", v[i].created_at);
	}
	rc = 0;
done:
	db_user_list_free(v, n);
	db_free(db);
	return rc;
}

int
cli_user(struct cli *cli, int argc, char **argv)
{
	if (argc < 2)
		return cli_usage("user: expected a subcommand (add, list)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "add") == 0)
		return user_add(cli, argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return user_list(cli, argc - 1, argv + 1);
	return cli_usage("user: unknown subcommand '%s'", argv[1]);
}
