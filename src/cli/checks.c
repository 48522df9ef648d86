/* checks: `forgemcp branch-rule set|list` and `forgemcp check report`. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "cli/cli.h"
#include "err.h"
#include "json.h"
#include "store/db.h"
#include "store/forge.h"
#include "store/repo.h"

static const char rule_usage[] =
    "usage: forgemcp branch-rule set OWNER/NAME BRANCH [--require-check NAME]...\n"
    "       forgemcp branch-rule list OWNER/NAME\n"
    "\n"
    "  set      makes the checks named by --require-check (repeatable) the checks\n"
    "           a pull request into BRANCH must pass before it can be merged,\n"
    "           replacing the branch's earlier rule; with no --require-check the\n"
    "           rule is cleared.  BRANCH need not exist yet\n"
    "  list     prints branch and required check, tab-separated, one check a line\n";

static const char check_usage[] =
    "usage: forgemcp check report OWNER/NAME COMMIT NAME STATUS [--details TEXT]\n"
    "\n"
    "  report   records the result of check NAME on COMMIT (a full 40-digit commit\n"
    "           id, or a branch name for the commit it points at now), replacing\n"
    "           an earlier result of that check on that commit.  STATUS is\n"
    "           pending, running, success, failure or cancelled; --details is a\n"
    "           text of at most 4096 bytes (a summary, a link to the log).  A pull\n"
    "           request counts a result only when it was reported after its\n"
    "           target last changed\n";

/* Whether s is exactly 40 hex digits. */
static int
full_commit_id(const char *s)
{
	size_t	 i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		    (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	return i == 40;
}

static int
rule_set(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "require-check", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char		 owner[65], name[101];
	const char	**names = NULL;
	struct db	*db = NULL;
	struct repo_cache *repos = NULL;
	struct db_repo	 repo;
	struct err	 e;
	size_t		 n = 0, i;
	int		 ch, exists = 0, rc;

	err_clear(&e);
	memset(&repo, 0, sizeof repo);
	if ((names = calloc((size_t)argc + 1, sizeof *names)) == NULL)
		return cli_fail("out of memory");
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			if (forge_check_name_valid(optarg, &e) != 0) {
				rc = cli_usage("%s", e.msg);
				goto done;
			}
			names[n++] = optarg;
			break;
		case 'h':
			fputs(rule_usage, stdout);
			rc = 0;
			goto done;
		case ':':
			rc = cli_usage("branch-rule set: option '%s' needs a value",
			    argv[optind - 1]);
			goto done;
		default:
			rc = cli_usage("branch-rule set: unknown option '%s'", cli_bad_option(argv));
			goto done;
		}
	}
	if (argc - optind != 2) {
		rc = cli_usage("branch-rule set: expected OWNER/NAME BRANCH");
		goto done;
	}
	if ((rc = cli_split_full(owner, sizeof owner, name, sizeof name, argv[optind])) != 0)
		goto done;
	if (config_check_repo_root(&cli->cfg, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	rc = 1;
	if (db_new(&db, &cli->cfg, &e) != 0 || db_repo_find(db, &repo, owner, name, &e) != 0 ||
	    repo_cache_new(&repos, cli->cfg.repo_root, &e) != 0)
		goto fail;
	/* Only the name's form matters: a rule may guard a branch made later. */
	if (repo_branch_exists(repos, &exists, repo.owner, repo.name, argv[optind + 1],
	    &e) != 0) {
		if (e.code == ERR_INVALID)
			rc = cli_usage("branch-rule set: '%s' is not a valid branch name",
			    argv[optind + 1]);
		else
			rc = cli_fail("%s", e.msg);
		goto done;
	}
	if (forge_branch_rule_set(db, repo.id, argv[optind + 1], names, n, &e) != 0)
		goto fail;
	if (n == 0) {
		printf("branch '%s' of %s/%s requires no checks now\n", argv[optind + 1],
		    repo.owner, repo.name);
	} else {
		printf("branch '%s' of %s/%s now requires:", argv[optind + 1], repo.owner,
		    repo.name);
		for (i = 0; i < n; i++)
			printf(" %s", names[i]);
		putchar('\n');
	}
	rc = 0;
	goto done;
fail:
	rc = cli_fail("%s", e.msg);
done:
	repo_cache_free(repos);
	db_repo_release(&repo);
	db_free(db);
	free(names);
	return rc;
}

static int
rule_list(struct cli *cli, int argc, char **argv)
{
	char				 owner[65], name[101];
	struct db			*db = NULL;
	struct db_repo			 repo;
	struct forge_branch_rule	*v = NULL;
	struct err			 e;
	size_t				 n = 0, i;
	int				 rc;

	err_clear(&e);
	memset(&repo, 0, sizeof repo);
	if (argc != 2)
		return cli_usage("branch-rule list: expected one OWNER/NAME");
	if ((rc = cli_split_full(owner, sizeof owner, name, sizeof name, argv[1])) != 0)
		return rc;
	if (db_new(&db, &cli->cfg, &e) != 0 || db_repo_find(db, &repo, owner, name, &e) != 0 ||
	    forge_branch_rule_list(db, &v, &n, repo.id, NULL, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	for (i = 0; i < n; i++) {
		cli_put_field(v[i].branch, "");
		putchar('\t');
		cli_put_field(v[i].check_name, "");
		putchar('\n');
	}
	rc = 0;
done:
	free(v);
	db_repo_release(&repo);
	db_free(db);
	return rc;
}

int
cli_branch_rule(struct cli *cli, int argc, char **argv)
{
	int	 i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(rule_usage, stdout);
			return 0;
		}
	if (argc < 2)
		return cli_usage("branch-rule: expected a subcommand (set, list)");
	if (strcmp(argv[1], "set") == 0)
		return rule_set(cli, argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return rule_list(cli, argc - 1, argv + 1);
	return cli_usage("branch-rule: unknown subcommand '%s'", argv[1]);
}

/* Resolves COMMIT (a full id, or a branch) of repo to a lower-case commit id. */
static int
resolve_commit(struct repo_cache *repos, char out[41], const struct db_repo *repo,
    const char *commit, struct err *e)
{
	char	 ref[300];
	int	 exists = 0, rc;
	size_t	 i;

	if (full_commit_id(commit)) {
		rc = repo_resolve(repos, out, repo->owner, repo->name, commit, e);
		for (i = 0; rc == 0 && out[i] != '\0'; i++)
			if (out[i] >= 'A' && out[i] <= 'F')
				out[i] = (char)(out[i] - 'A' + 'a');
		if (rc == 0 && strncasecmp(out, commit, 40) != 0)
			rc = ERR_NOTFOUND;	/* a branch named like a commit id */
		if (rc == ERR_NOTFOUND) {
			err_clear(e);
			return err_set(e, ERR_NOTFOUND, "commit %s not found in %s/%s", commit,
			    repo->owner, repo->name);
		}
		return rc;
	}
	rc = repo_branch_exists(repos, &exists, repo->owner, repo->name, commit, e);
	if (rc == ERR_INVALID || (rc == 0 && !exists)) {
		err_clear(e);
		return err_set(e, ERR_NOTFOUND, "'%s' is neither a branch of %s/%s nor a full "
		    "40-digit commit id", commit, repo->owner, repo->name);
	}
	if (rc != 0)
		return rc;
	snprintf(ref, sizeof ref, "refs/heads/%s", commit);
	return repo_resolve(repos, out, repo->owner, repo->name, ref, e);
}

static int
check_report(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "details", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char		 owner[65], name[101], commit[41];
	const char	*details = NULL, *check, *status;
	struct db	*db = NULL;
	struct repo_cache *repos = NULL;
	struct db_repo	 repo;
	struct err	 e;
	size_t		 len;
	int		 ch, rc;

	err_clear(&e);
	memset(&repo, 0, sizeof repo);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			details = optarg;
			break;
		case 'h':
			fputs(check_usage, stdout);
			return 0;
		case ':':
			return cli_usage("check report: option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage("check report: unknown option '%s'", cli_bad_option(argv));
		}
	}
	if (argc - optind != 4)
		return cli_usage("check report: expected OWNER/NAME COMMIT NAME STATUS");
	if ((rc = cli_split_full(owner, sizeof owner, name, sizeof name, argv[optind])) != 0)
		return rc;
	check = argv[optind + 2];
	status = argv[optind + 3];
	if (forge_check_name_valid(check, &e) != 0)
		return cli_usage("%s", e.msg);
	if (!forge_check_status_valid(status))
		return cli_usage("unknown check status '%s' (use pending, running, success, "
		    "failure or cancelled)", status);
	if (details != NULL) {
		len = strlen(details);
		if (len > FORGE_CHECK_DETAILS_MAX)
			return cli_usage("--details is %zu bytes: at most %d are kept", len,
			    FORGE_CHECK_DETAILS_MAX);
		if (!json_utf8_valid(details, len))
			return cli_usage("--details must be UTF-8 text");
		if (len == 0)
			details = NULL;
	}
	if (config_check_repo_root(&cli->cfg, &e) != 0)
		return cli_fail("%s", e.msg);
	rc = 1;
	if (db_new(&db, &cli->cfg, &e) != 0 || db_repo_find(db, &repo, owner, name, &e) != 0 ||
	    repo_cache_new(&repos, cli->cfg.repo_root, &e) != 0 ||
	    resolve_commit(repos, commit, &repo, argv[optind + 1], &e) != 0 ||
	    forge_check_report(db, repo.id, commit, check, status, details, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	printf("check '%s' of %s/%s is %s on commit %s\n", check, repo.owner, repo.name, status,
	    commit);
	rc = 0;
done:
	repo_cache_free(repos);
	db_repo_release(&repo);
	db_free(db);
	return rc;
}

int
cli_check(struct cli *cli, int argc, char **argv)
{
	int	 i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(check_usage, stdout);
			return 0;
		}
	if (argc < 2)
		return cli_usage("check: expected a subcommand (report)");
	if (strcmp(argv[1], "report") == 0)
		return check_report(cli, argc - 1, argv + 1);
	return cli_usage("check: unknown subcommand '%s'", argv[1]);
}
