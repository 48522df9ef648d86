/* rpc: the JSON-RPC 2.0 envelope: classification, the id rule, error bodies. */
#ifndef FM_RPC_H
#define FM_RPC_H
#include <json-c/json.h>

/* JSON-RPC and MCP error codes used on the wire. */
#define RPC_PARSE_ERROR		(-32700)
#define RPC_INVALID_REQUEST	(-32600)
#define RPC_METHOD_NOT_FOUND	(-32601)
#define RPC_INVALID_PARAMS	(-32602)
#define RPC_INTERNAL_ERROR	(-32603)
#define RPC_UNAUTHORIZED	(-32001)	/* siGit's 401 body */
#define RPC_RESOURCE_NOT_FOUND	(-32002)	/* legacy only */
#define RPC_SERVER_ERROR	(-32000)	/* legacy transport-level refusals */
#define RPC_HEADER_MISMATCH	(-32020)
#define RPC_MISSING_CLIENT_CAP	(-32021)
#define RPC_UNSUPPORTED_VERSION	(-32022)

enum rpc_kind {
	RPC_REQUEST,		/* RPC_REQUEST: method and a valid id */
	RPC_NOTIFICATION,	/* RPC_NOTIFICATION: method, no id */
	RPC_RESPONSE,		/* RPC_RESPONSE: result or error, no method */
	RPC_INVALID,		/* RPC_INVALID: anything else */
	RPC__MAX
};

/* One classified message; borrows from the parsed object. */
struct rpc_msg {
	enum rpc_kind		 kind;
	struct json_object	*id;		/* the id when readable (valid or not), else NULL */
	int			 id_valid;	/* string, or exact integer within +-(2^53-1) */
	const char		*method;	/* NULL unless a string */
	struct json_object	*params;	/* NULL when absent */
	const char		*why;		/* for RPC_INVALID: what is wrong */
};

/*
 * Classifies one JSON value as a JSON-RPC 2.0 message.  Never fails: shape
 * problems give kind RPC_INVALID with why set.  An id that is present but
 * not a string or exact safe integer (1.0, 1e3, 2^53, true, null, {})
 * makes the message invalid; id is kept only when it is readable as a
 * string or integer so an error can echo it.
 */
void	rpc_classify(struct rpc_msg *out, struct json_object *v);
/* Whether an id value obeys the id rule. */
int	rpc_id_valid(struct json_object *id);

/* Builds {"jsonrpc":"2.0","id":id|null,"result":result}; takes result. */
struct json_object *rpc_result(struct json_object *id, struct json_object *result);
/*
 * Builds an error response; takes data (may be NULL). id NULL gives "id":null.
 * Bytes of message that are not valid UTF-8 become U+FFFD.
 */
struct json_object *rpc_error(struct json_object *id, int code, const char *message,
	    struct json_object *data);

#endif
