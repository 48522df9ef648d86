/*
 * confluence_fetch: the Confluence backend's wiki_fetch (confluence-int.h):
 * the attachment's address as the hub recorded it (it must be on the
 * server the agent is configured for, so the credentials go nowhere
 * else), its file read with them, at most 10 MB, and sent to the hub in
 * base64 parts (POST /hub/agent/wiki_fetch) that fit its request bodies;
 * the last has the hub store the copy.  A failure is told to the hub with
 * its reason, which the `attachment` tool shows.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include <json-c/json.h>

#include "err.h"
#include "json.h"
#include "log.h"
#include "sdlc/client.h"
#include "sdlc/confluence.h"
#include "sdlc/confluence-int.h"
#include "sdlc/rest.h"
#include "store/curl_lib.h"

#define CF_FETCH_MAX		(10L * 1024 * 1024)	/* bytes of a file (the hub's limit) */

int
confluence_fetch(const struct hub_client *hub, const struct rest_server *cf,
    struct json_object *cmd)
{
	struct json_object	*o = NULL;
	struct curl_body	 a = { 0 };
	const struct curl_lib	*cl;
	CURL			*curl = NULL;
	struct err		 e;
	int64_t			 id = json_object_get_int64(json_get(cmd, "id"));
	int64_t			 att = json_object_get_int64(json_get(json_get(cmd, "params"),
				    "attachment"));
	const char		*label = json_get_str(cmd, "project"), *src;
	char			 path[200], why[800] = "", end[800] = "", *q = NULL;
	size_t			 base = strlen(cf->url);
	long			 status;
	int			 rc = -1;

	err_clear(&e);
	if ((cl = curl_lib(&e)) == NULL || (curl = cl->easy_init()) == NULL) {
		log_error("agent: %s", cl == NULL ? e.msg : "cannot initialise libcurl");
		return -1;
	}
	if (label == NULL || (q = hub_escape(label)) == NULL) {
		snprintf(why, sizeof why, "у команды нет проекта");
		goto failed;
	}
	snprintf(path, sizeof path, "/wiki/attachments/%lld?project=%s", (long long)att, q);
	if (hub_request(hub, "GET", path, NULL, &status, &o) != HUB_ANSWERED || status != 200) {
		snprintf(why, sizeof why, "вложения %lld нет в копии вики (HTTP %ld)", (long long)att,
		    status);
		goto failed;
	}
	src = json_get_str(json_get(o, "attachment"), "source");
	if (src == NULL || strncmp(src, cf->url, base) != 0 || src[base] != '/') {
		snprintf(why, sizeof why, "адрес вложения %.300s — не на сервере %s "
		    "(wiki_confluence_url): туда агент учётные данные не отправит",
		    src != NULL ? src : "(нет)", cf->url);
		goto failed;
	}
	if (rest_get_raw(cl, curl, cf, src + base, CF_FETCH_MAX, &a, why,
	    sizeof why) != 0)
		goto failed;
	if (hub_send_file(hub, "/agent/wiki_fetch", id, hub_handout(cmd),
	    (const unsigned char *)(a.buf != NULL ? a.buf : ""), a.len, end, sizeof end, why,
	    sizeof why) != 0) {
		log_error("agent: command %lld: %s", (long long)id, why);
		goto done;
	}
	log_info("agent: command %lld (wiki_fetch, %zu bytes): %s", (long long)id, a.len, end);
	rc = 1;
	goto done;
failed:
	log_info("agent: command %lld (wiki_fetch): failed: %s", (long long)id, why);
	rc = hub_send_failure(hub, "/agent/wiki_fetch", id, hub_handout(cmd), why, end, sizeof end,
	    why, sizeof why) == 0 ? 1 : -1;
	if (rc < 0)
		log_error("agent: command %lld: the hub was not told: %s", (long long)id, why);
done:
	free(a.buf);
	free(q);
	json_object_put(o);
	cl->easy_cleanup(curl);
	return rc;
}
