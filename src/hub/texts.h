/*
 * texts: every text the sdlc hub and its module servers answer with, in one
 * table (the specification's Russian texts, byte for byte; the parts in
 * angle brackets of the specification are the printf arguments).  The
 * forge's own tools speak English and do not use it.
 */
#ifndef FM_HUB_TEXTS_H
#define FM_HUB_TEXTS_H
#include <stdarg.h>
#include <stddef.h>

enum hub_text {
	HT_HUB_DOWN,		/* the hub cannot be reached */
	HT_UNBOUND,		/* a tool that needs --project in a session without one */
	HT_NO_PROJECT,		/* --project names a label the hub does not know: label */
	HT_NO_MODULE,		/* forgemcp mcp without a module */
	HT_UNKNOWN_MODULE,	/* forgemcp mcp NAME: name */
	HT_MODULES,		/* the list of modules, after either */
	HT_NO_COMMENT,		/* comment: key, number */
	HT_NO_ISSUE,		/* an issue key the mirror lacks: key */
	HT_PROJECT_EXISTS,	/* 409 of POST /projects: label */
	HT_BAD_LABEL,		/* 422: the label given */
	HT_BAD_NAME,		/* 422 */
	HT_BAD_BOARD,		/* 422 */
	HT_HUB_UNKNOWN_PROJECT,	/* 404 of GET /issues?project=: label */
	HT_HUB_NO_PROJECT_ARG,	/* 422 of GET /issues without project */
	HT_HUB_BAD_LIMIT,	/* 422: the limit given */
	HT_HUB_NO_PATH,		/* 404: method, path */
	HT_HUB_METHOD,		/* 405: method, path */
	HT_HUB_BAD_BODY,	/* 400: the parser's reason */
	HT_HUB_SCOPE,		/* 403: the scope needed */
	HT_HUB_ERROR,		/* 500 */
	HT_HUB_BUSY,		/* 503: a change that kept colliding with concurrent ones */
	HT_HUB_ANSWER,		/* the hub's answer cannot be read: HTTP status */
	HT_NO_BATCH,		/* 404 of GET /batches/{id}: id */
	HT_AT_AGENT,		/* a claimed command: its id twice */
	HT_COMMENTS,		/* the card's comments: count */
	HT_NO_COMMENTS,
	HT_MORE,		/* "ещё M": count */
	HT_WIKI_NO_ROOT,	/* a wiki tool of a project without a wiki root: label */
	HT_WIKI_NOT_SYNCED,	/* a wiki tool of a project whose root was never synced */
	HT_WIKI_MORE,		/* page: the offset of the rest */
	HT__MAX
};

/* The text's printf format. */
const char	*hub_text(enum hub_text t);
/*
 * The text t with its arguments into buf (snprintf's return).  A text cut
 * to fit never ends inside a UTF-8 sequence (hub_vsay).
 */
int	hub_textf(char *buf, size_t len, enum hub_text t, ...);
/*
 * vsnprintf for texts that reach a client: when the text is cut to fit
 * buf, it is cut back to a whole UTF-8 character (an argument may be a
 * caller's long Cyrillic value), so the answer stays valid JSON.
 */
int	hub_vsay(char *buf, size_t len, const char *fmt, va_list ap)
	    __attribute__((format(printf, 3, 0)));
/*
 * The bytes of s that a "%.*s" may print to show at most max bytes of it
 * and stay valid UTF-8: up to max, cut back to a whole character, and
 * stopping at the first byte that does not start a valid sequence.
 */
int	hub_utf8_prefix(const char *s, size_t max);
/* hub_vsay with its arguments. */
int	hub_say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
