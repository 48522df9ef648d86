/* client: requests to the hub API (client.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include <json-c/json.h>
#include <openssl/evp.h>

#include "err.h"
#include "json.h"
#include "log.h"
#include "sdlc/client.h"
#include "store/curl_lib.h"

#define HUB_ANSWER_MAX		(16L * 1024 * 1024)	/* bytes of one answer */
#define HUB_CONNECT_TIMEOUT	5L

static const struct curl_lib	*hub_cl;
static CURL			*hub_curl;

int
hub_client_init(void)
{
	struct err	e;

	err_clear(&e);
	if ((hub_cl = curl_lib(&e)) == NULL) {
		fprintf(stderr, "forgemcp: %s\n", e.msg);
		return -1;
	}
	if (hub_cl->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK ||
	    (hub_curl = hub_cl->easy_init()) == NULL) {
		fputs("forgemcp: cannot initialise libcurl\n", stderr);
		return -1;
	}
	return 0;
}

void
hub_client_shutdown(void)
{
	if (hub_cl == NULL)
		return;
	if (hub_curl != NULL)
		hub_cl->easy_cleanup(hub_curl);
	hub_curl = NULL;
	hub_cl->global_cleanup();
}

char *
hub_escape(const char *s)
{
	char	*x, *out;

	if ((x = hub_cl->easy_escape(hub_curl, s, (int)strlen(s))) == NULL)
		return NULL;
	out = strdup(x);
	hub_cl->free(x);
	return out;
}

/*
 * Sends the request; the answer's bytes (at most a->max) in *a and its
 * status in *status.  HUB_ANSWERED when an answer came, HUB_GARBLED when
 * it was too large, HUB_DOWN otherwise.
 */
static enum hub_result
hub_perform(const struct hub_client *c, const char *method, const char *path,
    struct json_object *body, long *status, struct curl_body *a)
{
	struct curl_slist	*hdrs = NULL, *h;
	const struct curl_lib	*cl = hub_cl;
	enum hub_result		 res = HUB_DOWN;
	CURLcode		 cc;
	char			*url = NULL;
	const char		*text = NULL;

	*status = 0;
	if (asprintf(&url, "%s%s", c->url, path) < 0) {
		url = NULL;
		goto done;
	}
	if (curl_json_headers(cl, &hdrs, c->token) != 0)
		goto done;
	if (body != NULL) {
		text = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN |
		    JSON_C_TO_STRING_NOSLASHESCAPE);
		if ((h = cl->slist_append(hdrs, "Content-Type: application/json")) == NULL)
			goto done;
		hdrs = h;
		if ((h = cl->slist_append(hdrs, "Expect:")) == NULL)
			goto done;
		hdrs = h;
	}
	curl_request_setup(cl, hub_curl, url, hdrs, HUB_CONNECT_TIMEOUT, c->timeout, a);
	if (body != NULL) {
		cl->easy_setopt(hub_curl, CURLOPT_POSTFIELDS, text);
		cl->easy_setopt(hub_curl, CURLOPT_POSTFIELDSIZE, (long)strlen(text));
	}
	cl->easy_setopt(hub_curl, CURLOPT_CUSTOMREQUEST, method);
	cc = cl->easy_perform(hub_curl);
	cl->easy_getinfo(hub_curl, CURLINFO_RESPONSE_CODE, status);
	if (cc != CURLE_OK) {
		log_debug("hub %s %s: %s", method, path, cl->easy_strerror(cc));
		res = a->too_big ? HUB_GARBLED : HUB_DOWN;
		goto done;
	}
	res = HUB_ANSWERED;
done:
	if (hdrs != NULL)
		cl->slist_free_all(hdrs);
	free(url);
	return res;
}

/* The answer's bytes as a JSON object into *out: HUB_ANSWERED, else HUB_GARBLED. */
static enum hub_result
hub_parse(const struct curl_body *a, struct json_object **out)
{
	enum json_perr	perr;

	if (a->buf != NULL && (*out = json_parse_strict(a->buf, a->len, &perr)) != NULL &&
	    json_object_is_type(*out, json_type_object))
		return HUB_ANSWERED;
	json_object_put(*out);
	*out = NULL;
	return HUB_GARBLED;
}

enum hub_result
hub_request(const struct hub_client *c, const char *method, const char *path,
    struct json_object *body, long *status, struct json_object **out)
{
	struct curl_body	 a = { .max = HUB_ANSWER_MAX };
	enum hub_result		 res;

	*out = NULL;
	if ((res = hub_perform(c, method, path, body, status, &a)) == HUB_ANSWERED)
		res = hub_parse(&a, out);
	free(a.buf);
	return res;
}

enum hub_result
hub_download(const struct hub_client *c, const char *path, size_t max, long *status,
    char **data, size_t *len, struct json_object **out)
{
	struct curl_body	 a = { .max = max };
	enum hub_result		 res;

	*out = NULL;
	*data = NULL;
	*len = 0;
	if ((res = hub_perform(c, "GET", path, NULL, status, &a)) != HUB_ANSWERED)
		goto done;
	if (*status != 200) {
		res = hub_parse(&a, out);
		goto done;
	}
	*data = a.buf != NULL ? a.buf : strdup("");
	*len = a.len;
	a.buf = NULL;
	if (*data == NULL)
		res = HUB_DOWN;
done:
	free(a.buf);
	return res;
}

/* POST path body (put): 0 with the hub's end of the file in end ("" before the last part). */
static int
hub_file_send(const struct hub_client *hub, const char *path, struct json_object *body,
    char *end, size_t end_len, char *why, size_t why_len)
{
	struct json_object	*r = NULL;
	long			 status = 0;
	int			 rc;

	rc = hub_request(hub, "POST", path, body, &status, &r) == HUB_ANSWERED && status == 200 ?
	    0 : -1;
	json_object_put(body);
	if (rc != 0)
		snprintf(why, why_len, "хаб не принял файл (HTTP %ld%s%s)", status,
		    json_get_str(r, "error") != NULL ? ": " : "", json_get_str(r, "error") != NULL ?
		    json_get_str(r, "error") : "");
	else
		snprintf(end, end_len, "%s%s%s", json_get_str(r, "state") != NULL ?
		    json_get_str(r, "state") : "", json_get_str(r, "error") != NULL ? ": " : "",
		    json_get_str(r, "error") != NULL ? json_get_str(r, "error") : "");
	json_object_put(r);
	return rc;
}

int
hub_send_file(const struct hub_client *hub, const char *path, int64_t id, int64_t handout,
    const unsigned char *data, size_t len, char *end, size_t end_len, char *why,
    size_t why_len)
{
	struct json_object	*body;
	unsigned char		 b64[HUB_FILE_PART / 3 * 4 + 1];
	size_t			 off = 0, n, part = 0;

	do {
		n = len - off < HUB_FILE_PART ? len - off : HUB_FILE_PART;
		body = json_object_new_object();
		json_object_object_add(body, "command", json_object_new_int64(id));
		json_object_object_add(body, "handout", json_object_new_int64(handout));
		json_object_object_add(body, "part", json_object_new_int64((int64_t)part));
		json_object_object_add(body, "data", json_object_new_string_len((char *)b64,
		    EVP_EncodeBlock(b64, data + off, (int)n)));
		json_object_object_add(body, "last", json_object_new_boolean(off + n == len));
		if (hub_file_send(hub, path, body, end, end_len, why, why_len) != 0)
			return -1;
		off += n;
		part++;
	} while (off < len);
	return 0;
}

int64_t
hub_handout(struct json_object *cmd)
{
	return json_object_get_int64(json_get(cmd, "handouts"));
}

int
hub_send_failure(const struct hub_client *hub, const char *path, int64_t id, int64_t handout,
    const char *error, char *end, size_t end_len, char *why, size_t why_len)
{
	struct json_object	*body = json_object_new_object();

	json_object_object_add(body, "command", json_object_new_int64(id));
	json_object_object_add(body, "handout", json_object_new_int64(handout));
	/* a reason cut by bytes may end inside a character: the hub takes UTF-8 only */
	json_object_object_add(body, "error", json_new_string_repaired(error, strlen(error)));
	return hub_file_send(hub, path, body, end, end_len, why, why_len);
}
