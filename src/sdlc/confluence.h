/*
 * confluence: the wiki agent's Confluence backend (doc/sdlc.md, "The
 * Confluence backend"): a claimed wiki_sync command is run by reading the
 * page tree under the project's root page from a Confluence-style REST
 * server, converting each page's storage format to Markdown, and sending
 * the whole copy to the hub in parts (POST /hub/agent/wiki_pages), where
 * it is checked as strictly as a git copy and loaded in one transaction.
 */
#ifndef FM_CONFLUENCE_H
#define FM_CONFLUENCE_H
#include <json-c/json.h>

struct hub_client;
struct rest_server;

/*
 * Runs the claimed wiki_sync command cmd (the claim's object): 1 when the
 * hub has its end (done or failed), -1 when the hub could not be told.
 */
int	confluence_run(const struct hub_client *hub, const struct rest_server *cf,
	    struct json_object *cmd);
/*
 * Runs the claimed wiki_fetch command cmd: the attachment's file from the
 * server, uploaded to the hub in parts (confluence_fetch.c).  1 when the
 * hub has its end, -1 when it could not be told.
 */
int	confluence_fetch(const struct hub_client *hub, const struct rest_server *cf,
	    struct json_object *cmd);

#endif
