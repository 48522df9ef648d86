/* confluence_hub: what the Confluence backend asks the hub: the root, the copy, a failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "json.h"
#include "log.h"
#include "sdlc/client.h"
#include "sdlc/confluence-int.h"
#include "sdlc/rest.h"

/*
 * The project's wiki root from the hub into *root (caller frees): 0; -1
 * with why when it has none; -2 with why when the hub could not be asked.
 */
int
confluence_hub_root(const struct hub_client *hub, const char *label, char **root, char *why,
    size_t len)
{
	struct json_object	*o = NULL;
	enum hub_result		 res;
	char			*esc = hub_escape(label), *path = NULL;
	const char		*r;
	long			 status;
	int			 rc = -1;

	*root = NULL;
	if (esc == NULL || asprintf(&path, "/projects/%s?module=wiki", esc) < 0) {
		path = NULL;
		snprintf(why, len, "нехватка памяти");
		goto done;
	}
	res = hub_request(hub, "GET", path, NULL, &status, &o);
	if (res != HUB_ANSWERED || status != 200) {
		snprintf(why, len, "the hub did not answer about project %s (HTTP %ld)", label,
		    status);
		rc = -2;
		goto done;
	}
	if ((r = json_get_str(json_get(o, "project"), "wiki_root")) == NULL) {
		snprintf(why, len, "у проекта %s нет корня вики", label);
		goto done;
	}
	*root = strdup(r);
	rc = *root != NULL ? 0 : -1;
done:
	free(esc);
	free(path);
	json_object_put(o);
	return rc;
}

/* What a byte costs in a JSON string as json-c writes it. */
static size_t
cf_cost(unsigned char c)
{
	return c == '"' || c == '\\' ? 2 : c < 0x20 ? 6 : 1;
}

/*
 * Sends the copy text to the hub in parts of at most CF_PART_BYTES as
 * JSON; the last has it loaded.  *state and *error from the hub's end.
 */
int
confluence_hub_upload(const struct hub_client *hub, int64_t id, int64_t handout,
    const char *root, const char *text, char *why, size_t len)
{
	struct json_object	*body, *r = NULL;
	struct hub_client	 end_hub;
	const char		*p = text, *end = text + strlen(text), *q;
	size_t			 cost, part = 0;
	enum hub_result		 res;
	long			 status;
	int			 last;

	do {
		for (q = p, cost = 0; q < end && cost + cf_cost((unsigned char)*q) <= CF_PART_BYTES;
		    q++)
			cost += cf_cost((unsigned char)*q);
		/* never inside a character */
		while (q < end && q > p && ((unsigned char)*q & 0xc0) == 0x80)
			q--;
		last = q == end;
		body = json_object_new_object();
		json_object_object_add(body, "command", json_object_new_int64(id));
		json_object_object_add(body, "root", json_object_new_string(root));
		json_object_object_add(body, "handout", json_object_new_int64(handout));
		json_object_object_add(body, "part", json_object_new_int64((int64_t)part));
		json_object_object_add(body, "text", json_object_new_string_len(p, (int)(q - p)));
		json_object_object_add(body, "last", json_object_new_boolean(last));
		/* the last part has the whole copy checked and loaded: nginx's 60 s, not a reader's wait */
		end_hub = *hub;
		if (last && end_hub.timeout < CF_LOAD_TIMEOUT)
			end_hub.timeout = CF_LOAD_TIMEOUT;
		res = hub_request(&end_hub, "POST", "/agent/wiki_pages", body, &status, &r);
		json_object_put(body);
		if (res != HUB_ANSWERED || status != 200) {
			snprintf(why, len, "хаб не принял часть %zu копии (HTTP %ld%s%s)", part, status,
			    json_get_str(r, "error") != NULL ? ": " : "",
			    json_get_str(r, "error") != NULL ? json_get_str(r, "error") : "");
			json_object_put(r);
			return -1;
		}
		if (json_get_str(r, "state") != NULL) {
			/* the end: done, or failed (the hub said why) */
			snprintf(why, len, "%s%s%s", json_get_str(r, "state"),
			    json_get_str(r, "error") != NULL ? ": " : "",
			    json_get_str(r, "error") != NULL ? json_get_str(r, "error") : "");
			json_object_put(r);
			return 0;
		}
		json_object_put(r);
		r = NULL;
		p = q;
		part++;
	} while (!last);
	snprintf(why, len, "хаб не сказал, чем кончилась синхронизация");
	return -1;
}

/* Tells the hub the sync failed with why. */
int
confluence_hub_fail(const struct hub_client *hub, int64_t id, int64_t handout,
    const char *root, const char *why)
{
	struct json_object	*body = json_object_new_object(), *r = NULL;
	enum hub_result		 res;
	long			 status;

	json_object_object_add(body, "command", json_object_new_int64(id));
	json_object_object_add(body, "root", json_object_new_string(root));
	json_object_object_add(body, "handout", json_object_new_int64(handout));
	json_object_object_add(body, "error", json_new_string_repaired(why, strlen(why)));
	res = hub_request(hub, "POST", "/agent/wiki_pages", body, &status, &r);
	json_object_put(body);
	json_object_put(r);
	if (res != HUB_ANSWERED || status != 200) {
		log_error("agent: the hub was not told the sync failed (HTTP %ld): %s", status, why);
		return -1;
	}
	return 0;
}

