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

#endif
