/* repos: `forgemcp repo create|import|list` and `forgemcp collaborator add|remove|list`. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "cli/cli.h"
#include "err.h"
#include "store/db.h"
#include "store/repo.h"

static const char repo_usage[] =
    "usage: forgemcp repo create OWNER/NAME [--private] [--description TEXT]\n"
    "                           [--default-branch BRANCH]\n"
    "       forgemcp repo import OWNER/NAME --from PATH [--private] [--description TEXT]\n"
    "       forgemcp repo list\n"
    "\n"
    "  create   makes an empty bare repository under repo_root (default branch main)\n"
    "  import   copies every branch and tag of the repository at PATH; the default\n"
    "           branch is the one its HEAD names\n"
    "  list     prints full name, private or public, default branch and description,\n"
    "           tab-separated\n";

static const char collab_usage[] =
    "usage: forgemcp collaborator add OWNER/NAME USER reader|writer|manager\n"
    "       forgemcp collaborator remove OWNER/NAME USER\n"
    "       forgemcp collaborator list OWNER/NAME\n"
    "\n"
    "  add      gives USER a role on a repository, replacing an earlier one\n"
    "  remove   takes USER's role away; when USER had none it says so and\n"
    "           succeeds (exit 0), so it can be repeated; the owner's role\n"
    "           cannot be removed\n"
    "  list     prints login and role, tab-separated: the owner first (role\n"
    "           owner), then the collaborators by login\n";

static int
repo_make(struct cli *cli, int argc, char **argv, int import)
{
	static const struct option opts[] = {
		{ "private", no_argument, NULL, 'p' },
		{ "description", required_argument, NULL, 'd' },
		{ "default-branch", required_argument, NULL, 'b' },
		{ "from", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char	*cmd = import ? "repo import" : "repo create";
	const char	*desc = NULL, *branch = NULL, *from = NULL, *root = cli->cfg.repo_root;
	char		 owner[65], name[101], head[256];
	struct db	*db = NULL;
	struct err	 e, ignore;
	uint64_t	 uid, id;
	int		 ch, priv = 0, rc = 1, made = 0;

	err_clear(&e);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			priv = 1;
			break;
		case 'd':
			desc = optarg;
			break;
		case 'b':
			if (import)
				return cli_usage("repo import: the default branch is the source's HEAD");
			branch = optarg;
			break;
		case 'f':
			if (!import)
				return cli_usage("repo create: --from belongs to repo import");
			from = optarg;
			break;
		case 'h':
			fputs(repo_usage, stdout);
			return 0;
		case ':':
			return cli_usage("%s: option '%s' needs a value", cmd, argv[optind - 1]);
		default:
			return cli_usage("%s: unknown option '%s'", cmd, cli_bad_option(argv));
		}
	}
	if (argc - optind != 1)
		return cli_usage("%s: expected one OWNER/NAME", cmd);
	if ((rc = cli_split_full(owner, sizeof owner, name, sizeof name, argv[optind])) != 0)
		return rc;
	if (import && from == NULL)
		return cli_usage("repo import: --from PATH is required");
	if (branch == NULL)
		branch = "main";
	if (config_check_repo_root(&cli->cfg, &e) != 0)
		return cli_fail("%s", e.msg);
	rc = 1;
	if (db_new(&db, &cli->cfg, &e) != 0 || db_user_find(db, &uid, owner, &e) != 0)
		goto fail;
	if (import) {
		if (repo_import(root, owner, name, from, &e) != 0)
			goto fail;
		made = 1;
		if (repo_head_branch(root, owner, name, head, sizeof head, &e) != 0)
			goto fail;
		branch = head;
	} else {
		if (repo_create(root, owner, name, branch, &e) != 0)
			goto fail;
		made = 1;
	}
	if (db_repo_insert(db, &id, owner, name, desc, branch, priv, &e) != 0)
		goto fail;
	printf("%s repository %s/%s (%s, default branch %s)\n", import ? "imported" : "created",
	    owner, name, priv ? "private" : "public", branch);
	rc = 0;
	goto done;
fail:
	rc = cli_fail("%s", e.msg);
	if (made) {
		err_clear(&ignore);
		repo_remove(root, owner, name, &ignore);
	}
done:
	db_free(db);
	return rc;
}

static int
repo_list(struct cli *cli, int argc, char **argv)
{
	struct db	*db = NULL;
	struct db_repo	*v = NULL;
	struct err	 e;
	size_t		 n = 0, i;
	int		 rc = 1;

	err_clear(&e);
	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(repo_usage, stdout);
		return 0;
	}
	if (argc > 1)
		return cli_usage("repo list: unexpected argument '%s'", argv[1]);
	if (db_new(&db, &cli->cfg, &e) != 0 || db_repo_list_all(db, &v, &n, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	for (i = 0; i < n; i++) {
		printf("%s/%s\t%s\t%s\t", v[i].owner, v[i].name,
		    v[i].private ? "private" : "public", v[i].default_branch);
		cli_put_field(v[i].description, "");
		putchar('\n');
	}
	rc = 0;
done:
	db_repo_list_free(v, n);
	db_free(db);
	return rc;
}

int
cli_repo(struct cli *cli, int argc, char **argv)
{
	if (argc < 2)
		return cli_usage("repo: expected a subcommand (create, import, list)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(repo_usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "create") == 0)
		return repo_make(cli, argc - 1, argv + 1, 0);
	if (strcmp(argv[1], "import") == 0)
		return repo_make(cli, argc - 1, argv + 1, 1);
	if (strcmp(argv[1], "list") == 0)
		return repo_list(cli, argc - 1, argv + 1);
	return cli_usage("repo: unknown subcommand '%s'", argv[1]);
}

static int
collab_add(struct cli *cli, int argc, char **argv)
{
	char		 owner[65], name[101];
	struct db	*db = NULL;
	struct err	 e;
	const char	*role;
	int		 rc;

	err_clear(&e);
	if (argc != 4)
		return cli_usage("collaborator add: expected OWNER/NAME USER ROLE");
	if ((rc = cli_split_full(owner, sizeof owner, name, sizeof name, argv[1])) != 0)
		return rc;
	role = argv[3];
	if (strcmp(role, "reader") != 0 && strcmp(role, "writer") != 0 &&
	    strcmp(role, "manager") != 0)
		return cli_usage("unknown role '%s' (use reader, writer or manager)", role);
	rc = 1;
	if (db_new(&db, &cli->cfg, &e) != 0 ||
	    db_collaborator_set(db, owner, name, argv[2], role, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	printf("'%s' is now %s on %s/%s\n", argv[2], role, owner, name);
	rc = 0;
done:
	db_free(db);
	return rc;
}

static int
collab_remove(struct cli *cli, int argc, char **argv)
{
	char		 owner[65], name[101];
	struct db	*db = NULL;
	struct err	 e;
	int		 removed = 0, rc;

	err_clear(&e);
	if (argc != 3)
		return cli_usage("collaborator remove: expected OWNER/NAME USER");
	if ((rc = cli_split_full(owner, sizeof owner, name, sizeof name, argv[1])) != 0)
		return rc;
	rc = 1;
	if (db_new(&db, &cli->cfg, &e) != 0 ||
	    db_collaborator_remove(db, &removed, owner, name, argv[2], &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	if (removed)
		printf("'%s' no longer has a role on %s/%s\n", argv[2], owner, name);
	else
		printf("'%s' had no role on %s/%s; nothing changed\n", argv[2], owner, name);
	rc = 0;
done:
	db_free(db);
	return rc;
}

static int
collab_list(struct cli *cli, int argc, char **argv)
{
	char			 owner[65], name[101];
	struct db		*db = NULL;
	struct db_collaborator	*v = NULL;
	struct err		 e;
	size_t			 n = 0, i;
	int			 rc;

	err_clear(&e);
	if (argc != 2)
		return cli_usage("collaborator list: expected one OWNER/NAME");
	if ((rc = cli_split_full(owner, sizeof owner, name, sizeof name, argv[1])) != 0)
		return rc;
	rc = 1;
	if (db_new(&db, &cli->cfg, &e) != 0 ||
	    db_collaborator_list(db, &v, &n, owner, name, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	for (i = 0; i < n; i++)
		printf("%s\t%s\n", v[i].login, v[i].role);
	rc = 0;
done:
	free(v);
	db_free(db);
	return rc;
}

int
cli_collaborator(struct cli *cli, int argc, char **argv)
{
	int	 i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(collab_usage, stdout);
			return 0;
		}
	if (argc < 2)
		return cli_usage("collaborator: expected a subcommand (add, remove, list)");
	if (strcmp(argv[1], "add") == 0)
		return collab_add(cli, argc - 1, argv + 1);
	if (strcmp(argv[1], "remove") == 0)
		return collab_remove(cli, argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return collab_list(cli, argc - 1, argv + 1);
	return cli_usage("collaborator: unknown subcommand '%s'", argv[1]);
}
