/* core-int: what core.c shares with the files beside it (core_fair.c). */
#ifndef FM_CORE_INT_H
#define FM_CORE_INT_H

struct core_response;
struct json_object;

/* The 429 (JSON-RPC id id) for a request while its account holds limit workers already. */
void	core_busy(struct core_response *resp, struct json_object *id, int limit);
/*
 * Debug builds only: a tools/call of the tool named by FORGEMCP_PAUSE_TOOL
 * waits while the file FORGEMCP_PAUSE_FILE exists (at most a minute), so a
 * test can hold a worker busy for as long as it likes.  Does nothing in
 * other builds.
 */
void	core_debug_pause(struct json_object *body);

#endif
