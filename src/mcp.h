/* mcp: era classification and the MCP methods of both protocol eras. */
#ifndef FM_MCP_H
#define FM_MCP_H
#include <json-c/json.h>

#include "protocol.h"

struct config;
struct core_request;
struct core_response;
struct db;
struct principal;
struct repo_cache;


/*
 * Handles one parsed body (an object or a batch array) from an
 * authenticated caller and fills resp: 200 with a JSON-RPC body, 202 with
 * none, or a 4xx with a JSON-RPC error, as mcp-wire.md section 1 orders.
 * On CORE_STDIO the HTTP header checks are skipped and statuses only
 * decide whether a line is written.  db, repos and cfg are what a tool
 * call may use (tool_call).
 */
void	mcp_handle(struct db *db, struct repo_cache *repos, const struct config *cfg,
	    const struct core_request *req, const struct principal *who, struct json_object *body,
	    struct core_response *resp);

/*
 * How many requests a body counts as for the rate limit: the calls of a
 * batch the server would run (1 to MCP_BATCH_MAX), else 1.
 */
unsigned mcp_cost(struct json_object *body);

/* Whether a legacy protocol version is one this server speaks. */
int	mcp_legacy_version_known(const char *v);

#endif
