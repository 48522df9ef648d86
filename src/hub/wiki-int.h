/*
 * wiki-int: what the wiki's backends share in the hub (wiki_copy.c): a
 * copy of a wiki read from any source, checked whole before one
 * transaction makes it the project's copy.  The git backend (wiki_git.c)
 * and the uploads of the Confluence agent (wiki_upload.c) both build a
 * struct wiki_copy and hand it to the same checks and the same load, so
 * no source can put into the database what another would be refused.
 */
#ifndef FM_HUB_WIKI_INT_H
#define FM_HUB_WIKI_INT_H
#include <stddef.h>
#include <stdint.h>

#include "hub/ask.h"

struct core_response;
struct json_object;
struct db;
struct wiki_attachment_in;
struct wiki_page_in;

#define WIKI_FILES_MAX		20000		/* pages (git: Markdown files) */
#define WIKI_PAGE_BYTES_MAX	(4u << 20)	/* one page's Markdown */
#define WIKI_TOTAL_BYTES_MAX	(256u << 20)	/* all of them */
#define WIKI_TITLE_MAX		500		/* characters */
#define WIKI_NONE		((size_t)-1)
#define WIKI_SOURCE_MAX		1000		/* characters of an address (the column's) */
#define WIKI_NAME_MAX		255		/* characters of an attachment's name */
#define WIKI_MIME_MAX		255		/* bytes of a media type (the column's) */

/* A page of a copy, as its source gave it. */
struct wiki_file {
	const char	*name;		/* how refusals name it: a path, "страница 123" (borrowed) */
	char		*code, *title, *parent_code;	/* owned; parent_code NULL or "": none */
	const char	*body;		/* Markdown, NUL-terminated (borrowed) */
	size_t		 body_len;
	char		*source;	/* its address (owned) */
	size_t		 parent;	/* WIKI_NONE: none */
	size_t		 k;		/* its place among the pages loaded; WIKI_NONE: not loaded */
	int		 mark;		/* cycle check: 0 new, 1 on the walk, 2 done */
};

/* An attachment of a copy: its page's index in the copy. */
struct wiki_file_att {
	size_t		 file;
	const char	*name;		/* borrowed */
	uint64_t	 size;
	const char	*mime;		/* borrowed; NULL: by the name's extension */
	char		*source;	/* owned */
};

struct wiki_copy {
	struct wiki_file	*f;
	size_t			 n;
	struct wiki_file_att	*a;
	size_t			 n_a;
	size_t			*by_code;	/* indices in code order */
	size_t			 total;		/* bytes of Markdown in all */
	char			 why[700];
	/* the result of wiki_copy_order: the root's subtree in pre-order */
	struct wiki_page_in	*pages;
	size_t			 n_pages;
	char			**paths;
	struct wiki_attachment_in *atts;
	size_t			 n_atts;
};

/*
 * Reads the front matter of a git page's text data (NUL-terminated) into f,
 * whose name ("<path>.md") it has: "---" lines around "code: DOC-2",
 * "title: ..." (the file's name without .md when missing or empty) and
 * optionally "parent: DOC-1", one pair of quotes removed.  1 a page (f's
 * code, title and body set), 0 not one (no front matter), -1 with the
 * reason in why.
 */
int	hub_wiki_front(struct wiki_file *f, const char *data, char *why, size_t len);
/*
 * Whether the user by (0: none, as for an import: any) can still see the
 * repository owner/name a wiki root names: 0, or -1 with the reason a
 * sync or a fetch fails with in why.
 */
int	hub_wiki_repo_visible(struct db *db, uint64_t by, const char *owner, const char *name,
	    char *why, size_t len);
/*
 * The agent's command id (tracker_command_get: *cmd, the caller puts it)
 * with its project's label and its type (NULL when it has none): 0, or
 * -1 after answering (404 for no such command, or the store's failure).
 */
int	hub_wiki_command(struct db *db, uint64_t id, struct json_object **cmd,
	    const char **label, const char **type, struct core_response *resp);
/* Frees what c owns (its files' strings, the indices, the result). */
void	wiki_copy_free(struct wiki_copy *c);
/*
 * Checks one page c->f[i] on its own: UTF-8 without NULs, at most
 * WIKI_PAGE_BYTES_MAX bytes (and WIKI_TOTAL_BYTES_MAX in all), a page
 * code, a parent that is a code, a title of 1 to WIKI_TITLE_MAX
 * characters, an address of at most WIKI_SOURCE_MAX.  0, or -1 with
 * the reason in c->why.
 */
int	wiki_copy_page(struct wiki_copy *c, size_t i);
/*
 * Links the pages: codes unique, each parent_code a page, others' parent
 * from parent_of (NULL: none), no cycle.  0, or -1 with c->why.
 */
int	wiki_copy_link(struct wiki_copy *c,
	    size_t (*parent_of)(const struct wiki_copy *c, size_t i, void *arg), void *arg);
/* The page of code, after wiki_copy_link: its index, or WIKI_NONE. */
size_t	wiki_copy_find(const struct wiki_copy *c, const char *code);
/*
 * The subtree of root into c->pages (pre-order, children in the order of
 * c->f), depth at most WIKI_TREE_DEPTH_MAX, and the attachments of the
 * pages kept into c->atts (names UTF-8, at most WIKI_NAME_MAX characters).
 * 0, or -1 with c->why.
 */
int	wiki_copy_order(struct wiki_copy *c, size_t root);
/*
 * Ends the wiki_sync command id of project label, claimed in hand-out
 * handout, and answers the agent {command, state, error, pages}: with why
 * NULL, loads c's result as the copy of root at revision in one
 * transaction; otherwise (or when the root changed meanwhile) records the
 * failed sync with why and keeps the old copy.  409/404 for a command
 * that is not claimed or is in another hand-out (hub_agent_refused, ask).
 */
void	wiki_copy_finish(struct db *db, struct core_response *resp, uint64_t id,
	    uint64_t handout, enum hub_ask ask, const char *label, const char *root,
	    const char *revision, const struct wiki_copy *c, const char *why);

#endif
