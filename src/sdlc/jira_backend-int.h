/*
 * jira_backend-int: what the Jira backend's files share (jira_backend.c:
 * requests and the writes; jira_refresh.c: refresh and fetch_attachment).
 */
#ifndef FM_SDLC_JIRA_BACKEND_INT_H
#define FM_SDLC_JIRA_BACKEND_INT_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct hub_client;
struct jira_backend;

#define JIRA_ANSWER_MAX		(32L << 20)	/* bytes of one JSON answer */
#define JIRA_FILE_MAX		(10L * 1024 * 1024)	/* the attachments' limit (§2.7) */

/*
 * method path of Jira with body (JSON, borrowed; NULL: none): 0 with a
 * 2xx answer's JSON in *out (NULL when it had no body), or -1 with the
 * reason in why: no answer, a redirect, another status (with Jira's own
 * messages), an answer that is not JSON, or 429s past the retries.
 */
int	jb_call(struct jira_backend *jb, const char *method, const char *path,
	    struct json_object *body, struct json_object **out, char *why, size_t len);
/* method path with a body (rest.h; NULL: none), as jb_call. */
struct rest_body;
int	jb_send(struct jira_backend *jb, const char *method, const char *path,
	    const struct rest_body *body, struct json_object **out, char *why, size_t len);
/*
 * The claimed ensure_* command cmd run in Jira (jira_writes.c): 0, with
 * *result for the report (ensure_issue: {temp_key, key}), or -1 with why.
 */
int	jb_write(const struct hub_client *hub, struct jira_backend *jb, struct json_object *cmd,
	    struct json_object **result, char *why, size_t len);
/* The project's board id from the hub (0: none); -1 with why when the hub could not say. */
int	jb_board(const struct hub_client *hub, const char *label, uint64_t *board, char *why,
	    size_t len);
/* Every sprint of the board (Jira's pages read in turn) into *all: 0, or -1 with why. */
int	jb_sprints(struct jira_backend *jb, uint64_t board, struct json_object **all,
	    char *why, size_t len);
/* The Story Points and Sprint fields' ids looked up once: 0, or -1 with why. */
int	jb_fields(struct jira_backend *jb, char *why, size_t len);
/*
 * jira_convert.c: issue ji of Jira's search in the hub's fixture shape
 * (rank 0: none; NULL when it lacks what the hub needs: id, key, summary,
 * status, created); jb_add adds the string s as key (NULL: nothing),
 * jb_add_day the date part (YYYY-MM-DD) of Jira's time s.
 */
struct json_object *jb_issue_json(const struct jira_backend *jb, struct json_object *ji,
	    int64_t rank);
void	jb_add(struct json_object *o, const char *key, const char *s);
void	jb_add_day(struct json_object *o, const char *key, const char *s);
/*
 * refresh (jira_refresh.c) and fetch_attachment (jira_fetch.c): 0 done, with *result for
 * the report (refresh: {issues}); 1 when the hub was told the end itself
 * (fetch_attachment); -1 with why.
 */
int	jb_refresh(const struct hub_client *hub, struct jira_backend *jb, struct json_object *cmd,
	    struct json_object **result, char *why, size_t len);
int	jb_fetch(const struct hub_client *hub, struct jira_backend *jb, struct json_object *cmd,
	    char *why, size_t len);

#endif
