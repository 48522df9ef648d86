/* core_fair: the answer to an account over its share of the workers, and the test hook that holds one. */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core-int.h"
#include "core_io.h"
#include "json.h"
#include "log.h"
#include "rpc.h"

void
core_busy(struct core_response *resp, struct json_object *id, int limit)
{
	struct json_object	*data;
	char			 msg[240];

	snprintf(msg, sizeof(msg), "Too Many Requests: this account already has %d requests "
	    "in progress on this server (account_concurrency); retry in 1 second", limit);
	data = json_object_new_object();
	json_object_object_add(data, "concurrency", json_object_new_int(limit));
	json_object_object_add(data, "retryAfter", json_object_new_int(1));
	core_response_header(resp, "Retry-After", "1");
	core_response_error(resp, 429, id, RPC_INVALID_REQUEST, msg, data);
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
