/* tracker: `forgemcp tracker import FILE.json`, fixtures for the hub's tracker mirror. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "cli.h"
#include "err.h"
#include "json.h"
#include "store/db.h"
#include "store/db_tracker.h"

#define TRACKER_FILE_MAX	(64L * 1024 * 1024)

static void
tracker_usage(FILE *f)
{
	fprintf(f,
	    "usage: forgemcp tracker import FILE.json\n"
	    "\n"
	    "Loads projects and issues (with their labels, fields, links, comments and\n"
	    "change journal, by the ids and keys given) into the hub's tracker mirror in\n"
	    "one transaction; an issue or comment that is there already is replaced.  For\n"
	    "tests and demos; the format is in doc/sdlc.md.  '-' reads standard input.\n");
}

/* The whole file (or stdin for "-"), NUL-terminated; NULL after cli_fail. */
static char *
tracker_slurp(const char *path, size_t *len)
{
	FILE	*f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char	*buf = NULL, *p;
	size_t	 cap = 0, n;

	*len = 0;
	if (f == NULL) {
		cli_fail("tracker import: %s: %s", path, strerror(errno));
		return NULL;
	}
	do {
		if (*len + 65536 + 1 > cap) {
			cap = cap ? cap * 2 : 131072;
			if (cap > (size_t)TRACKER_FILE_MAX + 65536 + 1 ||
			    (p = realloc(buf, cap)) == NULL) {
				cli_fail("tracker import: %s: larger than 64 MiB", path);
				free(buf);
				buf = NULL;
				goto done;
			}
			buf = p;
		}
		n = fread(buf + *len, 1, 65536, f);
		*len += n;
	} while (n > 0);
	buf[*len] = '\0';
done:
	if (f != stdin)
		fclose(f);
	return buf;
}

int
cli_tracker(struct cli *cli, int argc, char **argv)
{
	struct json_object	*doc;
	struct db		*db = NULL;
	struct err		 e;
	enum json_perr		 perr;
	char			*text;
	size_t			 len;
	int			 np, ni, rc;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		tracker_usage(stdout);
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "import") != 0)
		return cli_usage("tracker: expected 'import FILE.json'");
	if ((text = tracker_slurp(argv[2], &len)) == NULL)
		return 1;
	doc = json_parse_strict(text, len, &perr);
	free(text);
	if (doc == NULL)
		return cli_fail("tracker import: %s: not JSON: %s", argv[2],
		    perr != JSON_PERR_NONE ? json_perr_text(perr) : "null");
	err_clear(&e);
	if ((rc = db_new(&db, &cli->cfg, &e)) == 0 && (rc = db_schema_check(db, &e)) == 0)
		rc = tracker_import(db, doc, &np, &ni, &e);
	json_object_put(doc);
	db_free(db);
	if (rc != 0)
		return cli_fail("tracker import: %s", e.msg[0] != '\0' ? e.msg : err_name(rc));
	printf("imported %d projects and %d issues\n", np, ni);
	return 0;
}
