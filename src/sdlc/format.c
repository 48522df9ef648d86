/* format: how the sdlc tools write times, dates and cut texts (sdlc.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "buf.h"
#include "sdlc/sdlc.h"

void
sdlc_time(struct buf *out, const char *utc, int with_time)
{
	struct tm	 tm;
	time_t		 t;
	char		 s[32];

	memset(&tm, 0, sizeof tm);
	if (utc == NULL || strptime(utc, "%Y-%m-%dT%H:%M:%SZ", &tm) == NULL) {
		buf_puts(out, utc != NULL ? utc : "—");
		return;
	}
	t = timegm(&tm);
	localtime_r(&t, &tm);
	strftime(s, sizeof s, with_time ? "%d.%m %H:%M" : "%d.%m", &tm);
	buf_puts(out, s);
}

void
sdlc_date(struct buf *out, const char *ymd)
{
	int	y, m, d;

	if (ymd == NULL || sscanf(ymd, "%4d-%2d-%2d", &y, &m, &d) != 3) {
		buf_puts(out, ymd != NULL ? ymd : "—");
		return;
	}
	buf_printf(out, "%02d.%02d", d, m);
}

void
sdlc_cut(struct buf *out, const char *s, size_t max, int flat)
{
	size_t	n = 0;
	const unsigned char *p = (const unsigned char *)s;

	for (; *p != '\0'; p++) {
		if ((*p & 0xc0) != 0x80 && n++ == max) {
			buf_puts(out, "…");
			return;
		}
		if (flat && (*p == '\n' || *p == '\r' || *p == '\t'))
			buf_putc(out, ' ');
		else
			buf_putc(out, (char)*p);
	}
}

const char *
sdlc_str(struct json_object *o, const char *key, const char *dash)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return dash;
	return json_object_get_string(v);
}

void
sdlc_self(char *path, size_t len)
{
	ssize_t	n = readlink("/proc/self/exe", path, len - 1);

	if (n <= 0)
		snprintf(path, len, "forgemcp");
	else
		path[n] = '\0';
}
