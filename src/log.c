/* log: stderr log lines with a timestamp, the request id and escaped text. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static enum log_level	 log_level = LOG_INFO;
static const char	*log_prog = "forgemcp";
static char		 log_rid[40];
static int		 log_quiet;

static const char *const log_names[] = {
	"error",	/* LOG_ERROR */
	"warn",		/* LOG_WARN */
	"info",		/* LOG_INFO */
	"debug",	/* LOG_DEBUG */
};

void
log_set_level(enum log_level lv)
{
	log_level = lv;
}

void
log_set_quiet(int quiet)
{
	log_quiet = quiet;
}

void
log_set_prog(const char *prog)
{
	log_prog = prog;
}

void
log_set_request(const char *request_id)
{
	if (request_id == NULL)
		log_rid[0] = '\0';
	else
		snprintf(log_rid, sizeof(log_rid), "%s", request_id);
}

void
log_msg(enum log_level lv, const char *fmt, ...)
{
	char		 raw[2048], line[4096 + 128];
	va_list		 ap;
	size_t		 i, o;
	time_t		 now;
	struct tm	 tm;
	int		 n;

	if (lv > log_level || log_quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);

	now = time(NULL);
	gmtime_r(&now, &tm);
	n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02dZ %s[%ld] %s%s%s%s: ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	    log_prog, (long)getpid(), log_names[lv],
	    log_rid[0] ? " rid=" : "", log_rid, "");
	o = n > 0 ? (size_t)n : 0;
	/* Escape control characters so request data cannot forge log lines. */
	for (i = 0; raw[i] != '\0' && o + 5 < sizeof(line) - 1; i++) {
		unsigned char c = (unsigned char)raw[i];
		if (c < 0x20 || c == 0x7f || c == '\\') {
			if (c == '\\')
				o += (size_t)snprintf(line + o, sizeof(line) - o, "\\\\");
			else
				o += (size_t)snprintf(line + o, sizeof(line) - o, "\\x%02x", c);
		} else
			line[o++] = (char)c;
	}
	line[o++] = '\n';
	(void)!write(STDERR_FILENO, line, o);
}
