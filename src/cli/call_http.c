/*
 * call_http: one JSON-RPC request of `forgemcp call` over libcurl, and the
 * answer sorted into the exit statuses of enum call_exit.  No redirect is
 * followed (a 3xx is reported with its Location: following one to another
 * host would hand it the token), the whole exchange has a timeout, and only
 * http and https are spoken.  What the server says is printed with its
 * control characters replaced, so an answer cannot write to the terminal.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>
#include <json-c/json.h>

#include "cli/call.h"
#include "err.h"
#include "json.h"
#include "store/curl_lib.h"

#define CALL_ANSWER_MAX		(64L * 1024 * 1024)	/* bytes of one answer */
#define CALL_CONNECT_TIMEOUT	10L			/* seconds, at most the timeout */
#define CALL_SHOWN_MAX		400			/* bytes of a server message shown */

/* The answer: its body (capped) and the headers a status needs. */
struct call_answer {
	struct curl_body body;
	long	 retry_after;	/* -1: none */
	int	 sse;		/* Content-Type: text/event-stream */
};

/* Keeps Retry-After and whether the body is an event stream; a status line starts over. */
static size_t
call_header(char *data, size_t size, size_t nmemb, void *arg)
{
	struct call_answer	*a = arg;
	size_t			 n = size * nmemb;
	char			 line[128], *v, *end;
	long			 secs;

	if (n >= sizeof(line))
		return n;
	memcpy(line, data, n);
	line[n] = '\0';
	if (strncmp(line, "HTTP/", 5) == 0) {
		a->retry_after = -1;
		a->sse = 0;
	} else if (strncasecmp(line, "Retry-After:", 12) == 0) {
		v = line + 12;
		while (*v == ' ' || *v == '\t')
			v++;
		errno = 0;
		secs = strtol(v, &end, 10);
		if (end != v && errno == 0 && secs >= 0 && strspn(end, " \t\r\n") == strlen(end))
			a->retry_after = secs;
	} else if (strncasecmp(line, "Content-Type:", 13) == 0) {
		v = line + 13;
		while (*v == ' ' || *v == '\t')
			v++;
		a->sse = strncasecmp(v, "text/event-stream", 17) == 0;
	}
	return n;
}

/* Prints s to stderr, at most CALL_SHOWN_MAX bytes, control characters as '?'. */
static void
call_put_clean(const char *s)
{
	size_t	 i;

	for (i = 0; s[i] != '\0' && i < CALL_SHOWN_MAX; i++)
		fputc((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i], stderr);
	if (s[i] != '\0')
		fputs("...", stderr);
}

/* One handle for the command's requests, so the second reuses the first's connection. */
static CURL			*call_curl;
static const struct curl_lib	*call_cl;

int
call_http_init(void)
{
	struct err	e;

	err_clear(&e);
	if ((call_cl = curl_lib(&e)) == NULL) {
		fprintf(stderr, "forgemcp: %s\n", e.msg);
		return CALL_PROTOCOL;
	}
	if (call_cl->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK ||
	    (call_curl = call_cl->easy_init()) == NULL) {
		fputs("forgemcp: cannot initialise libcurl\n", stderr);
		call_cl->global_cleanup();
		return CALL_PROTOCOL;
	}
	return CALL_OK;
}

void
call_http_shutdown(void)
{
	call_cl->easy_cleanup(call_curl);
	call_curl = NULL;
	call_cl->global_cleanup();
}

/* The request body: params with the era's _meta, as one JSON text (caller frees). */
static char *
call_body(const struct call_conn *conn, const char *method, struct json_object *params)
{
	struct json_object	*req = NULL, *p = NULL, *meta = NULL;
	char			*out = NULL;

	if ((req = json_object_new_object()) == NULL || (p = json_object_new_object()) == NULL)
		goto done;
	if (!conn->legacy) {
		if ((meta = json_object_new_object()) == NULL)
			goto done;
		json_object_object_add(meta, "io.modelcontextprotocol/protocolVersion",
		    json_object_new_string(CALL_MODERN_VERSION));
		json_object_object_add(meta, "io.modelcontextprotocol/clientCapabilities",
		    json_object_new_object());
		json_object_object_add(p, "_meta", meta);
	}
	if (params != NULL) {
		json_object_object_foreach(params, k, v)
			json_object_object_add(p, k, json_object_get(v));
	}
	json_object_object_add(req, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(req, "id", json_object_new_int(1));
	json_object_object_add(req, "method", json_object_new_string(method));
	json_object_object_add(req, "params", p);
	p = NULL;
	out = strdup(json_object_to_json_string_ext(req,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
done:
	json_object_put(p);
	json_object_put(req);
	return out;
}

/*
 * The JSON-RPC response in an event stream: the data of the first event
 * that parses as an object with a result or an error (caller puts).
 */
static struct json_object *
call_sse(char *buf)
{
	struct json_object	*o;
	enum json_perr		 perr;
	char			*data = NULL, *line, *next, *p;
	size_t			 len = 0, n;

	for (line = buf; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		n = strlen(line);
		if (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		if (strncmp(line, "data:", 5) == 0) {
			line += line[5] == ' ' ? 6 : 5;
			n = strlen(line);
			if ((p = realloc(data, len + n + 2)) == NULL)
				break;
			data = p;
			memcpy(data + len, line, n);
			len += n;
			data[len++] = '\n';
			data[len] = '\0';
			continue;
		}
		if (n != 0 && next != NULL)
			continue;
		/* the end of an event */
		if (len > 0) {
			o = json_parse_strict(data, len, &perr);
			if (json_is_type(o, json_type_object) &&
			    (json_get(o, "result") != NULL || json_get(o, "error") != NULL)) {
				free(data);
				return o;
			}
			json_object_put(o);
			len = 0;
		}
	}
	free(data);
	return NULL;
}

/*
 * "forgemcp: HTTP 404 from URL: <message> (JSON-RPC error <code>)", the
 * message and code when the body is a JSON-RPC error.
 */
static void
call_say(const struct call_conn *conn, long status, struct json_object *rpc)
{
	struct json_object	*err = json_get(rpc, "error"), *code = json_get(err, "code");
	const char		*msg = json_get_str(err, "message");

	fprintf(stderr, "forgemcp: HTTP %ld from ", status);
	call_put_clean(conn->url);
	if (msg != NULL) {
		fputs(": ", stderr);
		call_put_clean(msg);
	}
	if (json_is_type(code, json_type_int))
		fprintf(stderr, " (JSON-RPC error %" PRId64 ")", json_object_get_int64(code));
	fputc('\n', stderr);
}

/* Sorts an answer with status into *out or an exit status, as call_rpc says. */
static int
call_sort(struct json_object **out, const struct call_conn *conn, long status,
    struct call_answer *a, const char *location)
{
	struct json_object	*rpc = NULL, *retry;
	enum json_perr		 perr = JSON_PERR_NONE;
	int			 rc = CALL_PROTOCOL;

	if (status >= 300 && status < 400) {
		fputs("forgemcp: ", stderr);
		call_put_clean(conn->url);
		fprintf(stderr, " answered HTTP %ld, a redirect to ", status);
		call_put_clean(location != NULL ? location : "nowhere");
		fputs("; not followed (give the final URL with --url)\n", stderr);
		return CALL_PROTOCOL;
	}
	if (a->body.len > 0)
		rpc = a->sse ? call_sse(a->body.buf) : json_parse_strict(a->body.buf, a->body.len,
		    &perr);
	if (!json_is_type(rpc, json_type_object)) {
		json_object_put(rpc);
		rpc = NULL;
	}
	if (status == 401 || status == 403) {
		call_say(conn, status, rpc);
		rc = CALL_AUTH;
	} else if (status == 429) {
		retry = json_get(json_get(json_get(rpc, "error"), "data"), "retryAfter");
		if (a->retry_after < 0 && json_is_type(retry, json_type_int))
			a->retry_after = json_object_get_int64(retry);
		if (a->retry_after >= 0)
			fprintf(stderr, "forgemcp: rate limited: retry after %ld s\n", a->retry_after);
		else
			fputs("forgemcp: rate limited: retry later\n", stderr);
		rc = CALL_RATE;
	} else if (status < 200 || status >= 300 || json_get(rpc, "error") != NULL) {
		call_say(conn, status, rpc);
	} else if (rpc == NULL) {
		fputs("forgemcp: ", stderr);
		call_put_clean(conn->url);
		fprintf(stderr, " answered HTTP %ld without a JSON-RPC response\n", status);
	} else if (!json_is_type(json_get(rpc, "result"), json_type_object)) {
		fputs("forgemcp: the answer has no result object\n", stderr);
	} else {
		*out = json_object_get(json_get(rpc, "result"));
		rc = CALL_OK;
	}
	json_object_put(rpc);
	return rc;
}

int
call_rpc(struct json_object **out, const struct call_conn *conn, const char *method,
    const char *name, struct json_object *params)
{
	struct call_answer	 a;
	struct curl_slist	*hdrs = NULL, *h;
	CURL			*curl = call_curl;
	CURLcode		 cc;
	char			 ebuf[CURL_ERROR_SIZE], line[1200];
	char			*body = NULL, *location = NULL;
	long			 status = 0;
	int			 rc = CALL_PROTOCOL, i, nlines = 0;
	const char		*lines[6];

	*out = NULL;
	memset(&a, 0, sizeof a);
	a.body.max = CALL_ANSWER_MAX;
	a.retry_after = -1;
	ebuf[0] = '\0';
	if ((body = call_body(conn, method, params)) == NULL) {
		fputs("forgemcp: out of memory\n", stderr);
		goto done;
	}
	lines[nlines++] = "Content-Type: application/json";
	lines[nlines++] = "Accept: application/json, text/event-stream";
	lines[nlines++] = "Expect:";
	for (i = 0; i < nlines; i++) {
		if ((h = call_cl->slist_append(hdrs, lines[i])) == NULL)
			goto nomem;
		hdrs = h;
	}
	snprintf(line, sizeof line, "MCP-Protocol-Version: %s",
	    conn->legacy ? CALL_LEGACY_VERSION : CALL_MODERN_VERSION);
	if ((h = call_cl->slist_append(hdrs, line)) == NULL)
		goto nomem;
	hdrs = h;
	if (!conn->legacy) {
		snprintf(line, sizeof line, "Mcp-Method: %s", method);
		if ((h = call_cl->slist_append(hdrs, line)) == NULL)
			goto nomem;
		hdrs = h;
		if (name != NULL) {
			snprintf(line, sizeof line, "Mcp-Name: %s", name);
			if ((h = call_cl->slist_append(hdrs, line)) == NULL)
				goto nomem;
			hdrs = h;
		}
	}
	if (conn->token != NULL) {
		snprintf(line, sizeof line, "Authorization: Bearer %s", conn->token);
		h = call_cl->slist_append(hdrs, line);
		explicit_bzero(line, sizeof line);
		if (h == NULL)
			goto nomem;
		hdrs = h;
	}
	call_cl->easy_reset(curl);	/* keeps the live connection */
	if (call_cl->easy_setopt(curl, CURLOPT_URL, conn->url) != CURLE_OK ||
#if LIBCURL_VERSION_NUM >= 0x075500
	    call_cl->easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
#else
	    call_cl->easy_setopt(curl, CURLOPT_PROTOCOLS,
		(long)(CURLPROTO_HTTP | CURLPROTO_HTTPS)) != CURLE_OK ||
#endif
	    call_cl->easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK ||
	    call_cl->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
	    call_cl->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, conn->timeout < CALL_CONNECT_TIMEOUT ?
		conn->timeout : CALL_CONNECT_TIMEOUT) != CURLE_OK ||
	    call_cl->easy_setopt(curl, CURLOPT_TIMEOUT, conn->timeout) != CURLE_OK ||
	    call_cl->easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs) != CURLE_OK ||
	    call_cl->easy_setopt(curl, CURLOPT_POSTFIELDS, body) != CURLE_OK ||
	    call_cl->easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "") != CURLE_OK ||
	    call_cl->easy_setopt(curl, CURLOPT_USERAGENT, "forgemcp-call/" PACKAGE_VERSION) != CURLE_OK ||
	    call_cl->easy_setopt(curl, CURLOPT_ERRORBUFFER, ebuf) != CURLE_OK ||
	    call_cl->easy_setopt(curl, CURLOPT_WRITEFUNCTION, curl_body_write) != CURLE_OK ||
	    call_cl->easy_setopt(curl, CURLOPT_WRITEDATA, &a.body) != CURLE_OK ||
	    call_cl->easy_setopt(curl, CURLOPT_HEADERFUNCTION, call_header) != CURLE_OK ||
	    call_cl->easy_setopt(curl, CURLOPT_HEADERDATA, &a) != CURLE_OK) {
		fputs("forgemcp: cannot set up the HTTP client\n", stderr);
		goto done;
	}
	cc = call_cl->easy_perform(curl);
	if (a.body.nomem)
		goto nomem;
	if (a.body.too_big) {
		fprintf(stderr, "forgemcp: %s sent an answer larger than %ld bytes\n", conn->url,
		    CALL_ANSWER_MAX);
		goto done;
	}
	if (cc == CURLE_OPERATION_TIMEDOUT) {
		fprintf(stderr, "forgemcp: %s did not answer within %ld second%s (see --timeout)\n",
		    conn->url, conn->timeout, conn->timeout == 1 ? "" : "s");
		goto done;
	}
	if (cc != CURLE_OK) {
		fprintf(stderr, "forgemcp: cannot reach %s: %s\n", conn->url,
		    ebuf[0] != '\0' ? ebuf : call_cl->easy_strerror(cc));
		goto done;
	}
	call_cl->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	call_cl->easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location);
	rc = call_sort(out, conn, status, &a, location);
	goto done;
nomem:
	fputs("forgemcp: out of memory\n", stderr);
	rc = CALL_PROTOCOL;
done:
	/* the handle must not keep pointers into this frame */
	call_cl->easy_setopt(curl, CURLOPT_ERRORBUFFER, NULL);
	call_cl->easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
	call_cl->easy_setopt(curl, CURLOPT_POSTFIELDS, NULL);
	call_cl->easy_setopt(curl, CURLOPT_WRITEDATA, NULL);
	call_cl->easy_setopt(curl, CURLOPT_HEADERDATA, NULL);
	/* the list holds the token */
	for (h = hdrs; h != NULL; h = h->next)
		explicit_bzero(h->data, strlen(h->data));
	call_cl->slist_free_all(hdrs);
	free(body);
	free(a.body.buf);
	return rc;
}
