/* err: the closed set of error codes and the per-request error slot. */
#ifndef FM_ERR_H
#define FM_ERR_H

enum err_code {
	ERR_OK = 0,
	ERR_NOMEM = -1,		/* allocation failed */
	ERR_INVALID = -2,	/* bad argument from the caller (tool input) */
	ERR_NOTFOUND = -3,	/* object missing or not visible */
	ERR_DENIED = -4,	/* authenticated but not allowed */
	ERR_EXISTS = -5,	/* unique object already there */
	ERR_DB = -6,		/* database failure (detail logged) */
	ERR_GIT = -7,		/* libgit2 failure (detail logged) */
	ERR_IO = -8,		/* system call failed (detail logged) */
	ERR_UNAVAILABLE = -9,	/* a dependency is down: retry later */
	ERR_CONFIG = -10,	/* bad configuration */
	ERR_TOOBIG = -11,	/* a limit was exceeded */
	ERR_INTERNAL = -12,	/* a bug */
	ERR_UPSTREAM = -13,	/* an outside service (e.g. a search provider) failed */
	ERR_CONFLICT = -14,	/* a transaction lost a race (deadlock, lock wait, certification): retry it */
	ERR__MIN = -15
};

/*
 * The error slot: the first message set wins and is passed up unchanged.
 * Messages for ERR_INVALID/NOTFOUND/DENIED/EXISTS/TOOBIG/CONFIG/UPSTREAM/
 * CONFLICT are shown to the client (a conflict says to reload or retry);
 * the others are logged and the client sees a generic text.
 */
struct err {
	int	code;
	char	msg[512];
};

void		 err_clear(struct err *e);
/* Records code and message (printf-style) unless one is already set; returns code. */
int		 err_set(struct err *e, int code, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
const char	*err_name(int code);
/* Whether a message of this code may be shown to the client as is. */
int		 err_is_public(int code);

#endif
