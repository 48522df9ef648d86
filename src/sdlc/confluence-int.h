/*
 * confluence-int: the Confluence backend's requests to the hub
 * (confluence_hub.c), used by its walk of the server (confluence.c).
 */
#ifndef FM_CONFLUENCE_INT_H
#define FM_CONFLUENCE_INT_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct rest_server;
struct curl_body;
struct curl_lib;
struct hub_client;

#define CF_PART_BYTES		40000		/* bytes of one part as JSON in a request body */
#define CF_LOAD_TIMEOUT		65L		/* seconds the hub may take to load the copy */

/*
 * The wiki root of project label from the hub into *root (caller frees):
 * 0; -1 with why when it has none; -2 with why when the hub could not be asked.
 */
int	confluence_hub_root(const struct hub_client *hub, const char *label, char **root,
	    char *why, size_t len);
/*
 * Sends the copy text (JSON) of command id, read from root, to the hub in
 * parts of at most CF_PART_BYTES, each naming handout (the claim's
 * handouts); the last has it checked and loaded.  0 with the end the hub
 * reported in why ("done" or "failed: …"), or -1 with why when the hub did
 * not take a part.
 */
int	confluence_hub_upload(const struct hub_client *hub, int64_t id, int64_t handout,
	    const char *root, const char *text, char *why, size_t len);
/*
 * Tells the hub the sync of command id (of hand-out handout) failed with
 * why: 0, or -1 when it could not.
 */
int	confluence_hub_fail(const struct hub_client *hub, int64_t id, int64_t handout,
	    const char *root, const char *why);

#endif
