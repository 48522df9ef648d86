/* core-int: what core.c shares with the files beside it (core_fair.c). */
#ifndef FM_CORE_INT_H
#define FM_CORE_INT_H

struct core_response;
struct json_object;

#include <stdint.h>

/*
 * The 429 (JSON-RPC id id) for a request over its principal's limit (kind
 * 'u' an account, 'a' a client network without a valid token) in the window
 * at start; full when it was refused because no bucket could be had.
 */
void	core_over_limit(struct core_response *resp, struct json_object *id, char kind, int full,
	    unsigned limit, int64_t start, int64_t window);
/*
 * The 429 (JSON-RPC id id) for a request while its account holds limit
 * workers already, or (last) holds one and would take the last free one.
 */
void	core_busy(struct core_response *resp, struct json_object *id, int limit, int last);
/*
 * Debug builds only: a tools/call of the tool named by FORGEMCP_PAUSE_TOOL
 * waits while the file FORGEMCP_PAUSE_FILE exists (at most a minute), so a
 * test can hold a worker busy for as long as it likes.  Does nothing in
 * other builds.
 */
void	core_debug_pause(struct json_object *body);

struct config;
struct core;
struct core_request;
/* Whether a Content-Type is application/json (parameters allowed). */
int	core_is_json(const char *ct);
/* Whether a Host header is one the server answers (public_hosts, base_url, loopback). */
int	core_host_ok(const struct config *cfg, const char *host);
/* The 401 for a request without a valid token (presented: one was sent). */
void	core_unauthorized(struct core *c, struct core_response *resp, struct json_object *body,
	    int presented);
/* The 503 for a database that cannot be used (a refused login says so, without Retry-After). */
void	core_unavailable(struct core *c, struct core_response *resp, struct json_object *body);
/*
 * Counts a request without a valid token against its client's network;
 * 1 with resp set to the refusal when it is over the limit or cannot be
 * counted, else 0.
 */
int	core_admit_address(struct core *c, struct core_response *resp, struct json_object *body,
	    const char *addr);
/*
 * A request under HUB_PATH (path is what follows it): the same gate as the
 * MCP endpoint's (Origin, Host, size, token, rate limit, the account's
 * share of workers), then hub_handle (core_hub.c).
 */
void	core_hub(struct core *c, const struct core_request *req, struct core_response *resp,
	    const char *path);
#endif
