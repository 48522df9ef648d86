/* err: error codes, their names, and the first-message-wins error slot. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

void
err_clear(struct err *e)
{
	e->code = 0;
	e->msg[0] = '\0';
}

int
err_set(struct err *e, int code, const char *fmt, ...)
{
	va_list	ap;

	if (e == NULL || e->code != 0)
		return code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

static const char *const err_names[] = {
	"ok",			/* ERR_OK */
	"out of memory",	/* ERR_NOMEM */
	"invalid argument",	/* ERR_INVALID */
	"not found",		/* ERR_NOTFOUND */
	"permission denied",	/* ERR_DENIED */
	"already exists",	/* ERR_EXISTS */
	"database error",	/* ERR_DB */
	"git error",		/* ERR_GIT */
	"i/o error",		/* ERR_IO */
	"service unavailable",	/* ERR_UNAVAILABLE */
	"configuration error",	/* ERR_CONFIG */
	"limit exceeded",	/* ERR_TOOBIG */
	"internal error",	/* ERR_INTERNAL */
	"upstream failure",	/* ERR_UPSTREAM */
	"transaction conflict",	/* ERR_CONFLICT */
};

const char *
err_name(int code)
{
	if (code > 0 || code <= ERR__MIN)
		return "unknown error";
	return err_names[-code];
}

int
err_is_public(int code)
{
	switch (code) {
	case ERR_INVALID:
	case ERR_NOTFOUND:
	case ERR_DENIED:
	case ERR_EXISTS:
	case ERR_TOOBIG:
	case ERR_CONFIG:
	case ERR_UPSTREAM:
	case ERR_CONFLICT:
		return 1;
	default:
		return 0;
	}
}
