/* format: how the sdlc tools write times, dates and cut texts (sdlc.h). */
#include <inttypes.h>
#include <limits.h>
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

struct json_object *
sdlc_array(struct json_object *o, const char *key)
{
	static struct json_object	*empty;
	struct json_object		*v;

	if (json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_array))
		return v;
	if (empty == NULL)
		empty = json_object_new_array();
	return empty;
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
sdlc_mcp_fragment(struct buf *out, const char *module, const char *label)
{
	struct json_object	*frag, *servers, *srv, *argv;
	char			 self[PATH_MAX], name[32];
	ssize_t			 n = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n <= 0)
		snprintf(self, sizeof self, "forgemcp");
	else
		self[n] = '\0';
	argv = json_object_new_array();
	json_object_array_add(argv, json_object_new_string("mcp"));
	json_object_array_add(argv, json_object_new_string(module));
	json_object_array_add(argv, json_object_new_string("--project"));
	json_object_array_add(argv, json_object_new_string(label));
	srv = json_object_new_object();
	json_object_object_add(srv, "command", json_object_new_string(self));
	json_object_object_add(srv, "args", argv);
	servers = json_object_new_object();
	snprintf(name, sizeof name, "sdlc-%s", module);
	json_object_object_add(servers, name, srv);
	frag = json_object_new_object();
	json_object_object_add(frag, "mcpServers", servers);
	buf_printf(out, "фрагмент .mcp.json:\n%s\n", json_object_to_json_string_ext(frag,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	buf_puts(out, "положите его в корень репозитория проекта (слейте с имеющимся "
	    ".mcp.json) и переподключите MCP: /mcp → reconnect, одобрите сервер проекта");
	json_object_put(frag);
}

void
sdlc_size(struct buf *out, uint64_t n)
{
	if (n < 1024)
		buf_printf(out, "%" PRIu64 " Б", n);
	else if (n < 1024 * 1024)
		buf_printf(out, "%" PRIu64 ",%" PRIu64 " КБ", n / 1024, n % 1024 * 10 / 1024);
	else
		buf_printf(out, "%" PRIu64 ",%" PRIu64 " МБ", n >> 20, (n & 0xfffff) * 10 >> 20);
}
