/*
 * protocol: the names and numbers of the wire that the HTTP gate, the MCP
 * layer and the table of refusals share: the protocol versions, the _meta
 * keys of the 2026-07-28 era, the bounds of a batch, and the answer while
 * the database is unreachable.  It includes nothing, so any of them may.
 */
#ifndef FM_PROTOCOL_H
#define FM_PROTOCOL_H

#define MCP_MODERN_VERSION	"2026-07-28"
#define MCP_NEWEST_LEGACY	"2025-11-25"
/* A 2025-03-26 batch holds at most this many calls; a larger one is refused whole. */
#define MCP_BATCH_MAX		20
/* A batch's answer stops growing past this many bytes: later calls are not run. */
#define MCP_BATCH_ANSWER_MAX	(8u << 20)

#define META_VERSION	"io.modelcontextprotocol/protocolVersion"
#define META_CAPS	"io.modelcontextprotocol/clientCapabilities"
#define META_LOGLEVEL	"io.modelcontextprotocol/logLevel"
#define META_SERVER	"io.modelcontextprotocol/serverInfo"

/*
 * The answer while the database cannot be reached, wherever a request
 * needs it (token check, or a tool's own queries): HTTP 503 with
 * Retry-After (seconds) and a JSON-RPC error (-32603) carrying this text.
 */
#define CORE_UNAVAILABLE_STATUS		503
#define CORE_UNAVAILABLE_RETRY_AFTER	"1"
#define CORE_UNAVAILABLE_MESSAGE \
	"Service unavailable: the forge's database cannot be reached; retry shortly"
/*
 * The same 503 and code when the database refuses the server's login (a
 * configuration error): no Retry-After, since retrying cannot help.
 */
#define CORE_MISCONFIGURED_MESSAGE \
	"Service unavailable: the forge's database refuses the server's login, a " \
	"configuration error that retrying will not mend; tell the forge's operator"

#endif
