/*
 * sdlc: the stdio MCP servers of the hub's modules (forgemcp mcp jira|wiki):
 * a module is a table of tools; each tool is a hub API client that answers
 * with the specification's text (hub/texts.h).  The server checks the
 * session's project binding and the hub's reachability before a tool runs.
 */
#ifndef FM_SDLC_H
#define FM_SDLC_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "buf.h"
#include "hub/texts.h"
#include "sdlc/client.h"

enum sdlc_flag {
	SDLC_BOUND = 1 << 0,	/* refused in a session without --project, no hub request */
	SDLC_ANY = 1 << 1,	/* no binding check (projects, project_create) */
	SDLC_READ = 1 << 2,	/* readOnlyHint */
	SDLC_ROOT = 1 << 3,	/* refused in a project without a wiki root */
	SDLC_SYNCED = 1 << 4,	/* refused in a project whose wiki root was never synced */
};

/* What a tool gets: the hub, the session's project (NULL: none), its answer's text. */
struct sdlc_ctx {
	const struct hub_client	*hub;
	const char		*project;
	const char		*module;	/* "jira" */
	struct buf		*out;		/* the answer's text */
	struct json_object	*proj;		/* the session's project as GET /projects has it, or NULL */
	const char		*data_dir;	/* downloads go under it; NULL: none */
};

/*
 * A tool's handler: writes its answer into ctx->out and returns 0, or 1
 * for an answer that is a refusal (isError).  The arguments passed the
 * tool's schema.  A hub that cannot be reached is SDLC_DOWN (the server
 * answers HT_HUB_DOWN).
 */
#define SDLC_DOWN	2
typedef int (*sdlc_fn)(struct sdlc_ctx *ctx, struct json_object *args);

struct sdlc_tool {
	const char	*name;
	const char	*title;
	const char	*description;
	const char	*schema;	/* inputSchema, JSON */
	unsigned	 flags;		/* enum sdlc_flag */
	sdlc_fn		 fn;
	void		(*describe)(struct buf *out);	/* non-NULL: writes the description */
};

struct sdlc_module {
	const char		*name;		/* "jira" */
	const char		*server;	/* serverInfo.name: "sdlc-jira" */
	const char		*instructions;
	const struct sdlc_tool	*tools;
	size_t			 n_tools;
	const char		*projects;	/* the binding check's query (GET /projects/<label>?...), or NULL */
};

extern const struct sdlc_module sdlc_jira;
extern const struct sdlc_module sdlc_wiki;

/*
 * Serves the module over stdin/stdout until end of input; returns the exit
 * status (0).  data_dir (NULL: none) is where attachments are written.
 */
int	sdlc_serve(const struct sdlc_module *m, const struct hub_client *hub, const char *project,
	    const char *data_dir);

/*
 * GET or POST path through the hub; on an answer with a 2xx status, *out
 * is its object and 0 is returned.  Otherwise the text to show is written
 * to ctx->out (the hub's error text, or HT_HUB_ANSWER) and 1 is returned,
 * or SDLC_DOWN when the hub cannot be reached.
 */
int	sdlc_hub(struct sdlc_ctx *ctx, const char *method, const char *path,
	    struct json_object *body, struct json_object **out);
/* Appends the text t with its arguments (hub_text's format). */
void	sdlc_say(struct buf *out, enum hub_text t, ...);

/* ---- formatting (format.c) ---- */
/* A UTC "YYYY-MM-DDTHH:MM:SSZ" as local "ДД.ММ ЧЧ:ММ" (with_time) or "ДД.ММ"; s when unreadable. */
void	sdlc_time(struct buf *out, const char *utc, int with_time);
/* A "YYYY-MM-DD" date as "ДД.ММ"; "—" for NULL. */
void	sdlc_date(struct buf *out, const char *ymd);
/* s cut to max code points, with "…" when cut; line breaks become spaces when flat. */
void	sdlc_cut(struct buf *out, const char *s, size_t max, int flat);
/* A size in bytes as the tools show one: «512 Б», «234,4 КБ», «2,3 МБ» (1 КБ = 1024 Б, cut, not rounded). */
/* Whether there is a data directory to save a download in; the refusal's text when not. */
int	sdlc_can_save(struct sdlc_ctx *ctx);
/*
 * Downloads url (the hub's copy of attachment id, size bytes) into
 * <data directory>/downloads/<sub>/<shown, cleaned> unless a file of that
 * size is there: 0 with its path in path, 1 with the reason in ctx->out,
 * or SDLC_DOWN.
 */
int	sdlc_download(struct sdlc_ctx *ctx, const char *sub, const char *id, const char *shown,
	    uint64_t size, const char *url, char *path, size_t path_len);
void	sdlc_size(struct buf *out, uint64_t n);
/* The agent's state (GET /agent) as agent_status shows it. */
void	sdlc_agent_view(struct buf *out, struct json_object *agent);
/*
 * Appends the .mcp.json fragment of module's server bound to label (the
 * absolute path of this program, "forgemcp" when unknown; never a token)
 * and what to do with it.
 */
void	sdlc_mcp_fragment(struct buf *out, const char *module, const char *label);
/*
 * Waits for batch id to be final, at most seconds, asking the hub once a
 * second; *out is its last GET /batches/{id} answer.  0, or sdlc_hub's.
 */
int	sdlc_batch_poll(struct sdlc_ctx *ctx, long long id, long seconds, struct json_object **out);
/* A member of o as a string, or dash when absent or null. */
const char *sdlc_str(struct json_object *o, const char *key, const char *dash);
/*
 * The member key of a hub answer when it is an array, otherwise an empty
 * one (shared, never to be changed or put): a hub that answers another
 * shape shows as nothing, never as a crash.
 */
struct json_object *sdlc_array(struct json_object *o, const char *key);

#endif
