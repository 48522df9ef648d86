/*
 * commands: the hub's command registry: every command type a batch may
 * hold, its parameters (required, optional) and their value formats.  It
 * checks a batch's commands, rewrites them for a project (its label on
 * ensure_issue, its board on the sprint commands, the trailing refresh),
 * and writes the batch_create description and the GET /hub/commands
 * answer, so the three never disagree.
 */
#ifndef FM_HUB_COMMANDS_H
#define FM_HUB_COMMANDS_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct buf;

#define HUB_BATCH_MAX	50	/* commands a batch may hold, the trailing refresh included */

/* What a batch is checked against: its project (NULL: none) and the known labels. */
struct hub_batch_ctx {
	const char		*project;	/* the batch's project label, or NULL */
	uint64_t		 board_id;	/* the project's board; 0: none */
	struct json_object	*labels;	/* array of every project's label */
	/* whether key is an own issue of project (1), not (0), or -1 on failure */
	int			(*own)(void *arg, const char *key);
	void			*own_arg;
};

/*
 * Checks commands (an array) and returns the batch to store: a new array
 * of the commands rewritten for the project, with the trailing refresh of
 * the keys they touch; *estimate gets the seconds they should take.
 * NULL with the reason (a text for a 422) in msg, or "" when checking
 * failed for another reason (ctx->own returned -1).
 */
struct json_object *hub_batch_check(const struct hub_batch_ctx *ctx, struct json_object *commands,
	    double *estimate, char *msg, size_t len);
/* Seconds a command of this type should take (for what is left of a batch). */
double	hub_command_seconds(const char *type);
/* The registry for GET /hub/commands: [{type, params: [{name, required, format}]}]. */
struct json_object *hub_commands_json(void);
/* Appends the batch_create description, generated from the registry. */
void	hub_commands_describe(struct buf *out);

#endif
