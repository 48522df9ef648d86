/*
 * jira_backend: the Jira backend of `forgemcp agent --module jira`
 * (doc/sdlc.md, "The Jira backend").  A claimed command is run against
 * Jira Server / Data Center's REST API 2 and Agile 1.0 and reported to the
 * hub; a refresh reads the project's issues (labels = <label>), their
 * comments, links, attachments and changelog, and the board's type,
 * columns and sprints, and sends them to the hub a page at a time.  Jira's
 * 429 is waited out as its Retry-After says and retried; each one is
 * counted for the hub's «429 за сутки».
 */
#ifndef FM_SDLC_JIRA_BACKEND_H
#define FM_SDLC_JIRA_BACKEND_H
#include <json-c/json.h>

#include "sdlc/rest.h"

struct curl_lib;
struct hub_client;

struct jira_backend {
	struct rest_server	 srv;
	const struct curl_lib	*cl;
	void			*curl;
	char			 sp_field[64];		/* the Story Points field's id */
	char			 sprint_field[64];	/* the Sprint field's id */
	int			 fields_read;		/* the two above were looked up */
	long			 rate_limited;		/* 429s since the hub was last told */
};

/* 0, or -1 after a message on stderr. */
int	jira_backend_init(struct jira_backend *jb, const char *url, const char *user,
	    const char *token_file, long timeout);
void	jira_backend_release(struct jira_backend *jb);
/* Runs the claimed command cmd in Jira and tells the hub: 1, or -1 when the hub was not told. */
int	jira_backend_run(const struct hub_client *hub, struct jira_backend *jb,
	    struct json_object *cmd);

#endif
