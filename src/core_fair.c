/* core_fair: the 429s (an account over its rate or its share of the workers), and the test hook that holds a worker. */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core-int.h"
#include "core_io.h"
#include "json.h"
#include "log.h"

/*
 * The 429 for a request over its principal's limit (kind 'u' an account,
 * 'a' a client network without a valid token) in the window at start;
 * full when it was refused because no bucket could be had.
 */
void
core_over_limit(struct core_response *resp, struct json_object *id, char kind, int full,
    unsigned limit, int64_t start, int64_t window)
{
	struct json_object	*data;
	int64_t			 left;
	char			 ra[24];

	if ((left = start + window - (int64_t)time(NULL)) < 1)
		left = 1;
	snprintf(ra, sizeof(ra), "%lld", (long long)left);
	core_response_header(resp, "Retry-After", ra);
	data = json_object_new_object();
	json_object_object_add(data, "limit", json_object_new_int64(limit));
	json_object_object_add(data, "window", json_object_new_int64(window));
	json_object_object_add(data, "retryAfter", json_object_new_int64(left));
	if (full)
		core_refuse(resp, id, data, REFUSAL_NO_BUCKET, (long long)left);
	else
		core_refuse(resp, id, data, REFUSAL_OVER_LIMIT, limit,
		    (long long)window,
		    kind == 'u' ? "per account" : "per client network without a valid token",
		    (long long)left);
}

void
core_busy(struct core_response *resp, struct json_object *id, int limit, int last)
{
	struct json_object	*data;

	data = json_object_new_object();
	json_object_object_add(data, "concurrency", json_object_new_int(limit));
	json_object_object_add(data, "retryAfter", json_object_new_int(1));
	core_response_header(resp, "Retry-After", "1");
	if (last)
		core_refuse(resp, id, data, REFUSAL_LAST_WORKER);
	else
		core_refuse(resp, id, data, REFUSAL_ACCOUNT_BUSY, limit);
}

void
core_debug_pause(struct json_object *body)
{
#ifdef FM_DEBUG_HOOKS
	const char	*tool = getenv("FORGEMCP_PAUSE_TOOL");
	const char	*path = getenv("FORGEMCP_PAUSE_FILE");
	const char	*method, *name;
	struct timespec	 tick = { 0, 10 * 1000 * 1000 };
	struct stat	 st;
	int		 i;

	if (tool == NULL || path == NULL || !json_is_type(body, json_type_object))
		return;
	method = json_get_str(body, "method");
	name = json_get_str(json_get(body, "params"), "name");
	if (method == NULL || strcmp(method, "tools/call") != 0 || name == NULL ||
	    strcmp(name, tool) != 0)
		return;
	log_warn("FORGEMCP_PAUSE_TOOL=%s: waiting for %s to go", tool, path);
	for (i = 0; i < 6000 && stat(path, &st) == 0; i++)
		nanosleep(&tick, NULL);
#else
	(void)body;
#endif
}
