/*
 * mcp-int: what the MCP layer's files share (mcp.c: classification, headers
 * and dispatch; mcp_methods.c: the methods); nothing else includes it.
 */
#ifndef FM_MCP_INT_H
#define FM_MCP_INT_H
#include <json-c/json.h>

#include "protocol.h"
#include "refusal.h"
#include "rpc.h"

struct config;
struct core_request;
struct db;
struct principal;
struct repo_cache;

enum mcp_era {
	ERA_LEGACY,	/* ERA_LEGACY: initialize handshake revisions */
	ERA_MODERN,	/* ERA_MODERN: 2026-07-28, per-request _meta */
	ERA__MAX
};

/* One message being answered. */
struct mcp_call {
	struct db			*db;
	struct repo_cache		*repos;
	const struct config		*cfg;
	const struct core_request	*req;
	const struct principal		*who;
	enum mcp_era			 era;
	int				 http;		/* HTTP header rules apply */
	const char			*version;	/* legacy: negotiated or assumed */
	struct rpc_msg			 msg;
	/* The answer: either result or error, plus the HTTP status. */
	int				 status;
	struct json_object		*reply;		/* full JSON-RPC response, or NULL */
	const char			*challenge;	/* WWW-Authenticate on 403 */
	char				 challenge_buf[160];
};

struct mcp_method {
	const char	*name;
	void		(*fn)(struct mcp_call *);
	unsigned	 eras;	/* bit per enum mcp_era */
};

/*
 * Makes a refusal the reply, as refusal.h's table has it (the arguments are
 * what its text's format takes; data taken, may be NULL).
 */
void	mcp_refuse(struct mcp_call *k, struct json_object *data, enum refusal why, ...);
/* Finishes a result for the caller's era and makes it the reply (result taken). */
void	mcp_ok(struct mcp_call *k, struct json_object *result, int cacheable);
/* The serverInfo object (a new reference). */
struct json_object *mcp_server_info(void);
/*
 * The tool gate's lookup and scope checks for a tools/call (tool_admit),
 * nothing run: 0 with *out the tool's index, or -1 with the refusal made
 * k's reply (403 for a scope, else an in-band -32602).
 */
int	mcp_tool_gate(struct mcp_call *k, size_t *out);
/* The method called name in era, or NULL when it has none there. */
const struct mcp_method *mcp_method_find(const char *name, enum mcp_era era);

#endif
