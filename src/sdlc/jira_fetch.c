/*
 * jira_fetch: the Jira backend's fetch_attachment (jira_backend-int.h):
 * the attachment's metadata from Jira, its file read from the address Jira
 * gives only when that is on the configured server (the credentials go
 * nowhere else), never more than 10 MB nor more than Jira said, and sent
 * to the hub in base64 parts (POST /hub/agent/jira_fetch), whose last has
 * the hub keep the copy; a failure is told to the hub with its reason.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "json.h"
#include "log.h"
#include "sdlc/client.h"
#include "sdlc/jira_backend.h"
#include "sdlc/jira_backend-int.h"
#include "sdlc/rest.h"
#include "store/curl_lib.h"

int
jb_fetch(const struct hub_client *hub, struct jira_backend *jb, struct json_object *cmd,
    char *why, size_t len)
{
	struct json_object	*o = NULL, *size;
	struct curl_body	 a = { 0 };
	int64_t			 id = json_object_get_int64(json_get(cmd, "id"));
	int64_t			 att = json_object_get_int64(json_get(json_get(cmd, "params"),
				    "attachment"));
	const char		*src;
	char			 path[100], end[800] = "";
	size_t			 base = strlen(jb->srv.url);
	int			 rc = -1;

	snprintf(path, sizeof path, "/rest/api/2/attachment/%lld", (long long)att);
	if (jb_call(jb, "GET", path, NULL, &o, why, len) != 0)
		goto failed;
	size = json_get(o, "size");
	src = json_get_str(o, "content");
	if (!json_object_is_type(size, json_type_int) || json_object_get_int64(size) < 0)
		snprintf(why, len, "Jira: вложение %lld: нет размера", (long long)att);
	else if (json_object_get_int64(size) > JIRA_FILE_MAX)
		snprintf(why, len, "вложение %lld больше 10 МБ — только в Jira", (long long)att);
	else if (src == NULL || strncmp(src, jb->srv.url, base) != 0 || src[base] != '/')
		snprintf(why, len, "адрес файла вложения %.300s — не на сервере %s (jira_url): "
		    "туда агент учётные данные не отправит", src != NULL ? src : "(нет)",
		    jb->srv.url);
	/* one byte more than Jira said: a file that is larger shows as larger */
	else if (rest_get_raw(jb->cl, jb->curl, &jb->srv, src + base,
	    (long)json_object_get_int64(size) + 1, &a, why, len) != 0) {
		if (strstr(why, "ответ больше") != NULL)
			snprintf(why, len, "Jira прислала файл вложения %lld больше, чем сказала "
			    "(%lld байт)", (long long)att, (long long)json_object_get_int64(size));
	} else if ((int64_t)a.len != json_object_get_int64(size))
		snprintf(why, len, "Jira прислала %zu байт файла вложения %lld, а сказала %lld",
		    a.len, (long long)att, (long long)json_object_get_int64(size));
	else if (hub_send_file(hub, "/agent/jira_fetch", id, hub_handout(cmd),
	    (const unsigned char *)(a.buf != NULL ? a.buf : ""), a.len, end, sizeof end, why,
	    len) != 0) {
		log_error("agent: command %lld: %s", (long long)id, why);
		goto done;
	} else {
		log_info("agent: command %lld (fetch_attachment, %zu bytes): %s", (long long)id,
		    a.len, end);
		rc = 1;
		goto done;
	}
failed:
	log_info("agent: command %lld (fetch_attachment): failed: %s", (long long)id, why);
	rc = hub_send_failure(hub, "/agent/jira_fetch", id, hub_handout(cmd), why, end, sizeof end,
	    why, len) == 0 ? 1 : -1;
done:
	free(a.buf);
	json_object_put(o);
	return rc;
}
