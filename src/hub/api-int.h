/* api-int: what the hub API's files share (api.c, api_batches.c). */
#ifndef FM_HUB_API_INT_H
#define FM_HUB_API_INT_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "hub/ask.h"
#include "hub/texts.h"

struct config;
struct core_response;
struct db;
struct err;
struct principal;

#define HUB_LIMIT_DEFAULT	50
#define HUB_LIMIT_MAX		500
#define HUB_QUERY_MAX		1024	/* bytes of one decoded query value */

/* A refusal: status and {"error": text} with the text of t and its arguments. */
void	hub_refuse(struct core_response *resp, int status, enum hub_text t, ...);
/* A refusal: status and {"error": msg}. */
void	hub_refuse_msg(struct core_response *resp, int status, const char *msg);
/* A store failure (rc, e): 503 for the database's outage, else 500; logged, never shown. */
void	hub_failed(struct core_response *resp, int rc, const struct err *e);
/*
 * The value of name in a query string, percent-decoded into buf; NULL
 * when absent or empty; NULL with *bad set when it does not fit or holds
 * a NUL.
 */
const char *hub_query(const char *query, const char *name, char *buf, size_t len, int *bad);
/* The member name of body as a string (NULL otherwise); *present says whether it is there. */
const char *hub_member(struct json_object *body, const char *name, int *present);
/*
 * POST .../attachments/{id}/fetch once the store has answered (rc, e, out
 * {attachment, queued}): 202 or 200, 413 naming where a file over max_mb
 * stays (only_in), the store's failure; 0, or -1 for ERR_NOTFOUND, which
 * the caller answers.
 */
int	hub_fetch_answer(struct core_response *resp, int rc, const struct err *e,
	    struct json_object *out, uint64_t id, unsigned max_mb, const char *only_in);
/*
 * GET .../attachments/{id}/content: the copy's bytes (taken), or 409 saying
 * its state and the fetch path (fetch_path, "/hub/.../attachments").
 */
void	hub_copy_answer(struct core_response *resp, char *bytes, size_t len, uint64_t id,
	    const char *state, const char *fetch_path);
/* The id in "<id>" or "<id>/<what>": 0 when it is not one; *what after it ("" for none). */
uint64_t hub_path_id(const char *rest, const char **what);
/* /hub/attachments/{id}[/fetch|/content]: rest is what follows "attachments/" (api_attachments.c). */
void	hub_attachments_route(struct db *db, const struct principal *who, const char *method,
	    const char *path, const char *rest, struct core_response *resp);
/* /hub/files and /hub/files/{id}[/parts]: path is "files..." (api_attachments.c). */
void	hub_files_route(struct db *db, const struct principal *who, const char *method,
	    const char *path, struct json_object *body, struct core_response *resp);
/* GET /hub/agile[/sprint|/backlog]?project=P: a project's board (api_agile.c). */
void	hub_agile_route(struct db *db, const char *method, const char *path, const char *query,
	    struct core_response *resp);
/* GET /hub/changes: the change feed of a period (api_changes.c). */
void	hub_changes(struct db *db, const char *query, struct core_response *resp);
/* GET /hub/commands: the command registry. */
void	hub_commands(struct core_response *resp);
/* /hub/batches and /hub/batches/...: path is "batches" or "batches/<rest>". */
void	hub_batches_route(struct db *db, const struct principal *who, const char *method,
	    const char *path, const char *query, struct json_object *body,
	    struct core_response *resp);

/* /hub/commands/{id}/cancel and /retry: path is "commands/<rest>". */
void	hub_commands_route(struct db *db, const struct principal *who, const char *method,
	    const char *path, struct json_object *body, struct core_response *resp);
/* /hub/agent/...: the agent protocol (claim, report, local). */
void	hub_agent_route(struct db *db, const struct config *cfg, const struct principal *who,
	    const char *method, const char *path, const char *query, struct json_object *body,
	    struct core_response *resp);

/* The positive integer member name of body (command, handout), or 0: absent or not one. */
uint64_t hub_agent_id(struct json_object *body, const char *name);
/* How the 422 of an agent's request names the hand-out it must carry. */
#define HUB_HANDOUT_NEEDED	"handout (handouts из claim)"
/* The 409 (404 when state is "") for a command that is not the agent's to report. */
void	hub_agent_not_claimed(struct core_response *resp, uint64_t id, const char *state);
/*
 * After ERR_INVALID from a store function given h (store/db_agent.h) for
 * command id: answers 404 when there is no such command, 409 «команда N
 * не у агента: она S» when it is not claimed, 409 «часть от выдачи 1 не
 * принята: команда N выдана заново, сейчас выдача 2» (ask names what was
 * refused) when it is claimed in another hand-out, and returns 1; 0 when
 * the request was the holder's, the ERR_INVALID the caller's to answer.
 */
struct tracker_handout;
int	hub_agent_refused(struct core_response *resp, enum hub_ask ask, uint64_t id,
	    const struct tracker_handout *h);

/*
 * A file an agent sends for a command in base64 parts of at most a
 * request body each (api_parts.c): {command, handout, part: 0, 1, …,
 * data, last} or {command, handout, error}; handout is the claim's
 * handouts, and a part of another hand-out is refused (409).
 * hub_part_parse reads the body (-1 after answering 422); hub_part_take
 * stores the part (of a file of at most max bytes) and after the last
 * decodes the whole into *bytes (*n; caller frees).
 */
struct hub_part {
	uint64_t	 command, handout;
	int64_t		 part;
	const char	*data, *error;
	int		 last;
};
enum hub_part_end {
	HUB_PART_ANSWERED,	/* answered: a part stored, or refused */
	HUB_PART_FILE,		/* the whole file is in *bytes */
	HUB_PART_FAILED,	/* the agent's error, too big, not base64: why */
};
int	hub_part_parse(struct json_object *body, struct hub_part *in, struct core_response *resp);
enum hub_part_end hub_part_take(struct db *db, const struct hub_part *in, size_t max,
	    char **bytes, size_t *n, char *why, size_t why_len, struct core_response *resp);
/*
 * The Jira backend's ends in the hub (api_jira.c): GET agent/file[/content]
 * (an ensure_attachment's file), POST agent/jira_issues (a page of a
 * refresh), POST agent/jira_fetch (a fetch_attachment's file in parts).
 */
void	hub_agent_file(struct db *db, const char *path, const char *query,
	    struct core_response *resp);
void	hub_jira_issues(struct db *db, struct json_object *body, struct core_response *resp);
void	hub_jira_fetch(struct db *db, const struct config *cfg, struct json_object *body,
	    struct core_response *resp);

/* POST /hub/issues/{key}/notes (api_misc.c). */
void	hub_notes(struct db *db, const struct principal *who, const char *key,
	    struct json_object *body, struct core_response *resp);
/* /hub/settings and /hub/settings/{name} (name NULL: all). */
void	hub_settings_route(struct db *db, const struct principal *who, const char *method,
	    const char *name, struct json_object *body, struct core_response *resp);
/* GET /hub/sync_runs. */
void	hub_sync_runs(struct db *db, const char *query, struct core_response *resp);

#endif
