/*
 * wiki: the hub API's wiki (doc/sdlc.md, "The wiki"): the routes under
 * /hub/wiki/, a project's wiki root, and the git backend that syncs a
 * project's copy from a forge repository.
 */
#ifndef FM_HUB_WIKI_H
#define FM_HUB_WIKI_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct config;
struct core_response;
struct db;
struct principal;

/* /hub/wiki/...: path is "wiki/<rest>". */
void	hub_wiki_route(struct db *db, const struct principal *who, const char *method,
	    const char *path, const char *query, struct json_object *body,
	    struct core_response *resp);
/*
 * Whether root is a wiki root whose repository (when it names one) the
 * principal can see: 1, or 0 after answering the refusal (422).
 */
int	hub_wiki_root_ok(struct db *db, const struct principal *who, const char *root,
	    struct core_response *resp);
/* PATCH /hub/projects/{label} {wiki_root, author?}: the root and its sync batch. */
void	hub_wiki_root_set(struct db *db, const struct principal *who, const char *label,
	    struct json_object *body, struct core_response *resp);
/*
 * POST /hub/agent/wiki_git {command, handout}: the git backend runs the
 * wiki_sync command id, claimed in hand-out handout: {command, state,
 * error, pages}.
 */
void	hub_wiki_git(struct db *db, const struct config *cfg, uint64_t id, uint64_t handout,
	    struct core_response *resp);
/*
 * /hub/wiki/attachments/<rest> (wiki_fetch.c): GET {id}, POST {id}/fetch,
 * GET {id}/content.
 */
void	hub_wiki_attachments(struct db *db, const struct principal *who, const char *method,
	    const char *path, const char *rest, const char *query, struct core_response *resp);
/*
 * The git backend's end of the wiki_fetch command id, claimed in hand-out
 * handout: the file stored as the attachment's copy, or the reason it is
 * not: {command, state, error, bytes}.
 */
void	hub_wiki_git_fetch(struct db *db, const struct config *cfg, uint64_t id,
	    uint64_t handout, struct core_response *resp);
/*
 * POST /hub/agent/wiki_fetch {command, handout, part, data, last} or
 * {command, handout, error}: a part (base64) of the file an agent read
 * for the claimed wiki_fetch command; the last has it stored
 * (wiki_fetch.c), within the project's wiki_copies_mb.
 */
void	hub_wiki_fetch_part(struct db *db, const struct config *cfg, struct json_object *body,
	    struct core_response *resp);
/*
 * POST /hub/agent/wiki_pages {command, root, handout, part, text, last}
 * or {command, root, handout, error}: a part of the copy an agent read
 * from its source (wiki_upload.c); the last part has the copy checked and
 * loaded, or an error ends the sync failed.
 */
void	hub_wiki_pages(struct db *db, struct json_object *body, struct core_response *resp);

/* Code points in s. */
size_t	hub_wiki_chars(const char *s);
/* Whether s (len bytes) is UTF-8 without NULs, overlong forms or surrogates. */
int	hub_wiki_utf8_ok(const char *s, size_t len);
/* The media type of a file by its name's extension; application/octet-stream when unknown. */
const char *hub_wiki_mime(const char *name);
/* Whether code is a page code: a letter, letters, digits or _, '-', digits (DOC-12). */
int	hub_wiki_code_ok(const char *code);
/* The first part of a root a Confluence-style server's agent reads: confluence:DOC-98310. */
#define HUB_WIKI_CONFLUENCE	"confluence"
/*
 * Splits a wiki root "[owner/name[@branch]:]CODE" in place: owner, name
 * and branch NULL for a bare code; branch "main" when not given.  For
 * "confluence:CODE", owner is HUB_WIKI_CONFLUENCE and name and branch
 * NULL.  0, or -1 when it is not one.
 */
int	hub_wiki_root_parse(char *root, const char **owner, const char **name,
	    const char **branch, const char **code);

#endif
