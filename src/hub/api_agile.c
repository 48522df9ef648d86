/* api_agile: a project's board in the hub API, GET /hub/agile[/sprint|/backlog] (api-int.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "core_io.h"
#include "err.h"
#include "hub/api-int.h"
#include "store/db_tracker.h"

#define AGILE_BACKLOG_DEFAULT	50
#define AGILE_BACKLOG_MAX	500

void
hub_agile_route(struct db *db, const char *method, const char *path, const char *query,
    struct core_response *resp)
{
	struct json_object	*out = NULL;
	char			 label[HUB_QUERY_MAX], name[HUB_QUERY_MAX], lim[16], *end;
	const char		*p, *n;
	long			 limit = AGILE_BACKLOG_DEFAULT;
	struct err		 e;
	int			 rc, bad = 0;

	if (strcmp(path, "agile") != 0 && strcmp(path, "agile/sprint") != 0 &&
	    strcmp(path, "agile/backlog") != 0) {
		hub_refuse(resp, 404, HT_HUB_NO_PATH, method, path);
		return;
	}
	if (strcmp(method, "GET") != 0) {
		core_response_header(resp, "Allow", "GET");
		hub_refuse(resp, 405, HT_HUB_METHOD, method, path);
		return;
	}
	p = hub_query(query, "project", label, sizeof label, &bad);
	n = hub_query(query, "name", name, sizeof name, &bad);
	if (p == NULL || bad) {
		hub_refuse(resp, 422, HT_HUB_NO_PROJECT_ARG);
		return;
	}
	if (hub_query(query, "limit", lim, sizeof lim, &bad) != NULL &&
	    ((limit = strtol(lim, &end, 10)) < 1 || limit > AGILE_BACKLOG_MAX || *end != '\0')) {
		hub_refuse(resp, 422, HT_HUB_BAD_LIMIT, lim);
		return;
	}
	err_clear(&e);
	if (strcmp(path, "agile") == 0)
		rc = tracker_agile(db, &out, p, &e);
	else if (strcmp(path, "agile/sprint") == 0)
		rc = tracker_sprint(db, &out, p, n, &e);
	else
		rc = tracker_backlog(db, &out, p, (int)limit, &e);
	if (rc == ERR_NOTFOUND)
		hub_refuse(resp, 404, HT_HUB_UNKNOWN_PROJECT, p);
	else if (rc != 0)
		hub_failed(resp, rc, &e);
	else
		core_response_json(resp, 200, out);
}
