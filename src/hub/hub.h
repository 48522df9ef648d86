/*
 * hub: the sdlc hub's HTTP API under /hub/ (doc/sdlc.md, "The hub API"):
 * JSON in and out, the answers the sdlc module servers (forgemcp mcp jira)
 * and agents read.  The core has checked the Origin, the Host, the token
 * and the rate limit, and parsed a body, before hub_handle runs.
 */
#ifndef FM_HUB_H
#define FM_HUB_H
#include <json-c/json.h>

struct config;
struct core_response;
struct db;
struct principal;

/* The path prefix of the hub API. */
#define HUB_PATH	"/hub/"

/*
 * Answers one hub request: method, path (after HUB_PATH: "projects",
 * "issues/AURORA-1"), query (the raw query string, may be NULL), body
 * (the parsed JSON body, or NULL).  Fills resp with a status and a JSON
 * body; a refusal is {"error": text} with 4xx, the text one a tool can
 * show as it is.
 */
void	hub_handle(struct db *db, const struct config *cfg, const struct principal *who,
	    const char *method, const char *path, const char *query, struct json_object *body,
	    struct core_response *resp);

#endif
