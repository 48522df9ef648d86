/*
 * api_parts: a file an agent sends the hub in base64 parts (api-int.h):
 * the wiki's and the tracker's attachments read from a server the hub
 * cannot reach itself.  Each part is a request body the hub's max_body
 * takes and names the hand-out it is of, so that an agent whose lease ran
 * out cannot add to the upload of the one that claimed the command next;
 * they wait in wiki_upload_parts, keyed by the command, until the last.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <openssl/evp.h>

#include "core_io.h"
#include "err.h"
#include "hub/api-int.h"
#include "hub/wiki-int.h"
#include "store/db.h"
#include "store/db_agent.h"
#include "store/db_wiki.h"

int
hub_part_parse(struct json_object *body, struct hub_part *in, struct core_response *resp)
{
	struct json_object	*v;

	memset(in, 0, sizeof *in);
	in->part = -1;
	in->command = hub_agent_id(body, "command");
	in->handout = hub_agent_id(body, "handout");
	if (json_object_is_type((v = json_object_object_get(body, "data")), json_type_string))
		in->data = json_object_get_string(v);
	if (json_object_is_type((v = json_object_object_get(body, "error")), json_type_string))
		in->error = json_object_get_string(v);
	if (json_object_is_type((v = json_object_object_get(body, "part")), json_type_int))
		in->part = json_object_get_int64(v);
	in->last = json_object_get_boolean(json_object_object_get(body, "last"));
	if (in->command == 0 || in->handout == 0 || (in->error == NULL && (in->data == NULL ||
	    in->part < 0 || in->part > 1000000))) {
		hub_refuse_msg(resp, 422, "нужны command, " HUB_HANDOUT_NEEDED " и либо error, "
		    "либо part (0, 1, …), data (base64) и last");
		return -1;
	}
	return 0;
}

/* The base64 text (len bytes) decoded into a new buffer: *out and *n; -1 when it is not base64. */
static int
part_decode(const char *text, size_t len, char **out, size_t *n)
{
	unsigned char	*buf;
	int		 k;

	*out = NULL;
	*n = 0;
	if (len % 4 != 0 || len > INT32_MAX || (buf = malloc(len / 4 * 3 + 1)) == NULL)
		return -1;
	if (len > 0 && (k = EVP_DecodeBlock(buf, (const unsigned char *)text, (int)len)) < 0) {
		free(buf);
		return -1;
	}
	*n = len / 4 * 3;
	/* EVP_DecodeBlock counts the padding's bytes too */
	if (len > 0 && text[len - 1] == '=')
		(*n)--;
	if (len > 1 && text[len - 2] == '=')
		(*n)--;
	*out = (char *)buf;
	return 0;
}

enum hub_part_end
hub_part_take(struct db *db, const struct hub_part *in, size_t max, char **bytes, size_t *n,
    char *why, size_t why_len, struct core_response *resp)
{
	struct json_object	*o;
	const char		*said;
	struct tracker_handout	 h = { in->handout, 0, "" };
	char			*text = NULL, msg[100];
	size_t			 total = 0, len;
	struct err		 e;
	int			 rc;

	*bytes = NULL;
	*n = 0;
	if (in->error != NULL) {
		said = in->error[0] != '\0' ? in->error : "агент не сказал причины";
		snprintf(why, why_len, "%.*s", hub_utf8_prefix(said, 600), said);
		return HUB_PART_FAILED;
	}
	err_clear(&e);
	rc = wiki_upload_part(db, in->command, &h, (unsigned)in->part, in->data,
	    strlen(in->data), (max + 2) / 3 * 4, &total, &e);
	if (rc == ERR_INVALID && hub_agent_refused(resp, HUB_ASK_PART, in->command, &h))
		return HUB_PART_ANSWERED;
	if (rc == ERR_CONFLICT && !db_tx_gave_up(db)) {
		snprintf(msg, sizeof msg, "часть %lld не по порядку: начните с части 0",
		    (long long)in->part);
		hub_refuse_msg(resp, 409, msg);
	} else if (rc == ERR_TOOBIG) {
		snprintf(why, why_len, "файл больше %zu МБ", max >> 20);
		return HUB_PART_FAILED;
	} else if (rc != 0)
		hub_failed(resp, rc, &e);
	else if (!in->last) {
		o = json_object_new_object();
		json_object_object_add(o, "command", json_object_new_uint64(in->command));
		json_object_object_add(o, "part", json_object_new_int64(in->part));
		json_object_object_add(o, "bytes", json_object_new_uint64(total));
		core_response_json(resp, 200, o);
	} else if ((rc = wiki_upload_read(db, in->command, &text, &len, &e)) != 0)
		hub_failed(resp, rc, &e);
	else {
		rc = part_decode(text, len, bytes, n);
		free(text);
		if (rc == 0)
			return HUB_PART_FILE;
		snprintf(why, why_len, "агент прислал не base64");
		return HUB_PART_FAILED;
	}
	return HUB_PART_ANSWERED;
}
