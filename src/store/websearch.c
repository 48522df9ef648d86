/* websearch: the web search provider adapters (Brave first) over one reused libcurl handle. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include <json-c/json.h>

#include "conf.h"
#include "err.h"
#include "json.h"
#include "log.h"
#include "store/curl_lib.h"
#include "store/websearch.h"

#define WS_CONNECT_TIMEOUT	5	/* seconds, at most the total timeout */
#define WS_URL_MAX		8192

/* What a provider adapter does: one search, results appended to *out. */
typedef int (*websearch_fn)(struct websearch_result **out, size_t *n, const struct config *cfg,
    const char *query, int count, struct err *e);

struct websearch_provider {
	const char	*name;		/* the value of SEARCH_PROVIDER / search_provider */
	const char	*key_var;	/* the variable an operator sets for its key */
	const char	*key_conf;	/* the same as a configuration file key */
	const char	*(*key)(const struct config *cfg);
	websearch_fn	 search;
};

/* The per-process handle: kept between requests so connections are reused. */
static CURL			*ws_curl;
static const struct curl_lib	*ws_cl;	/* set by a provider before its first call */

void
websearch_results_free(struct websearch_result *v, size_t n)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(v[i].title);
		free(v[i].url);
		free(v[i].description);
	}
	free(v);
}

/* Whether s holds a byte that cannot go into an HTTP header value. */
static int
has_ctl(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/*
 * GET url with the given extra headers; the body lands in *body.  Maps
 * transport failures and a status other than 200 to public messages.
 */
static int
ws_get(struct curl_body *body, const char *url, struct curl_slist *headers, unsigned timeout,
    struct err *e)
{
	char		 ebuf[CURL_ERROR_SIZE];
	long		 status = 0, ctimeout;
	CURLcode	 cc;

	if (ws_curl == NULL && (ws_curl = ws_cl->easy_init()) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	ws_cl->easy_reset(ws_curl);	/* keeps live connections and the DNS cache */
	ebuf[0] = '\0';
	ctimeout = timeout < WS_CONNECT_TIMEOUT ? (long)timeout : WS_CONNECT_TIMEOUT;
	if (ws_cl->easy_setopt(ws_curl, CURLOPT_URL, url) != CURLE_OK ||
	    ws_cl->easy_setopt(ws_curl, CURLOPT_HTTPGET, 1L) != CURLE_OK ||
	    ws_cl->easy_setopt(ws_curl, CURLOPT_HTTPHEADER, headers) != CURLE_OK ||
#if LIBCURL_VERSION_NUM >= 0x075500
	    ws_cl->easy_setopt(ws_curl, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
#else
	    ws_cl->easy_setopt(ws_curl, CURLOPT_PROTOCOLS,
		(long)(CURLPROTO_HTTP | CURLPROTO_HTTPS)) != CURLE_OK ||
#endif
	    ws_cl->easy_setopt(ws_curl, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK ||
	    ws_cl->easy_setopt(ws_curl, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
	    ws_cl->easy_setopt(ws_curl, CURLOPT_CONNECTTIMEOUT, ctimeout) != CURLE_OK ||
	    ws_cl->easy_setopt(ws_curl, CURLOPT_TIMEOUT, (long)timeout) != CURLE_OK ||
	    ws_cl->easy_setopt(ws_curl, CURLOPT_MAXFILESIZE_LARGE,
		(curl_off_t)WEBSEARCH_RESPONSE_MAX) != CURLE_OK ||
	    ws_cl->easy_setopt(ws_curl, CURLOPT_ACCEPT_ENCODING, "") != CURLE_OK ||
	    ws_cl->easy_setopt(ws_curl, CURLOPT_USERAGENT, "forgemcp/" PACKAGE_VERSION) != CURLE_OK ||
	    ws_cl->easy_setopt(ws_curl, CURLOPT_ERRORBUFFER, ebuf) != CURLE_OK ||
	    ws_cl->easy_setopt(ws_curl, CURLOPT_WRITEFUNCTION, curl_body_write) != CURLE_OK ||
	    ws_cl->easy_setopt(ws_curl, CURLOPT_WRITEDATA, body) != CURLE_OK)
		return err_set(e, ERR_INTERNAL, "web search: cannot set up the HTTP client");
	cc = ws_cl->easy_perform(ws_curl);
	/* The handle must not keep pointers into this frame or the caller's list. */
	ws_cl->easy_setopt(ws_curl, CURLOPT_ERRORBUFFER, NULL);
	ws_cl->easy_setopt(ws_curl, CURLOPT_HTTPHEADER, NULL);
	ws_cl->easy_setopt(ws_curl, CURLOPT_WRITEDATA, NULL);
	if (body->nomem)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (body->too_big || cc == CURLE_FILESIZE_EXCEEDED)
		return err_set(e, WEBSEARCH_ERR_UPSTREAM,
		    "search provider sent a response larger than %d bytes; try again with a "
		    "smaller count", WEBSEARCH_RESPONSE_MAX);
	if (cc != CURLE_OK) {
		log_warn("web search: %s: %s", ws_cl->easy_strerror(cc), ebuf);
		if (cc == CURLE_OPERATION_TIMEDOUT)
			return err_set(e, WEBSEARCH_ERR_UPSTREAM,
			    "search provider did not answer within %u second%s; try again later",
			    timeout, timeout == 1 ? "" : "s");
		return err_set(e, WEBSEARCH_ERR_UPSTREAM,
		    "search provider could not be reached (%s); try again later",
		    ws_cl->easy_strerror(cc));
	}
	ws_cl->easy_getinfo(ws_curl, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		log_warn("web search: provider answered HTTP %ld", status);
		if (status == 401 || status == 403)
			return err_set(e, WEBSEARCH_ERR_UPSTREAM,
			    "search provider returned HTTP %ld: the operator's API key was refused",
			    status);
		if (status == 429)
			return err_set(e, WEBSEARCH_ERR_UPSTREAM,
			    "search provider returned HTTP 429: its own rate limit was hit; try "
			    "again later");
		return err_set(e, WEBSEARCH_ERR_UPSTREAM, "search provider returned HTTP %ld%s",
		    status, status >= 500 ? "; try again later" : "");
	}
	return 0;
}

/* A string member as an owned copy; "" when absent or not a string. */
static char *
dup_member(struct json_object *o, const char *key)
{
	const char	*s = json_get_str(o, key);

	return strdup(s != NULL ? s : "");
}

static int
brave_parse(struct websearch_result **out, size_t *n, const char *buf, size_t len, int count,
    struct err *e)
{
	struct json_object	*root = NULL, *web, *res, *item;
	struct websearch_result	*v = NULL;
	enum json_perr		 perr;
	size_t			 i, k = 0, total;
	int			 rc = 0;

	if ((root = json_parse_strict(buf, len, &perr)) == NULL) {
		if (perr == JSON_PERR_NOMEM)
			return err_set(e, ERR_NOMEM, "out of memory");
		log_warn("web search: provider response is not JSON: %s", json_perr_text(perr));
		return err_set(e, WEBSEARCH_ERR_UPSTREAM,
		    "search provider sent a response that could not be read");
	}
	if (!json_is_type(root, json_type_object)) {
		rc = err_set(e, WEBSEARCH_ERR_UPSTREAM,
		    "search provider sent a response that could not be read");
		goto done;
	}
	web = json_get(root, "web");	/* absent when nothing was found */
	res = json_is_type(web, json_type_object) ? json_get(web, "results") : NULL;
	if ((web != NULL && !json_is_type(web, json_type_object)) ||
	    (res != NULL && !json_is_type(res, json_type_array))) {
		rc = err_set(e, WEBSEARCH_ERR_UPSTREAM,
		    "search provider sent a response that could not be read");
		goto done;
	}
	total = res != NULL ? json_object_array_length(res) : 0;
	if (total > (size_t)count)
		total = (size_t)count;
	if (total > 0 && (v = calloc(total, sizeof *v)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < total; i++) {
		item = json_object_array_get_idx(res, i);
		if (!json_is_type(item, json_type_object) || json_get_str(item, "url") == NULL)
			continue;
		if ((v[k].title = dup_member(item, "title")) == NULL ||
		    (v[k].url = dup_member(item, "url")) == NULL ||
		    (v[k].description = dup_member(item, "description")) == NULL) {
			k++;
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
		k++;
	}
	*out = v;
	*n = k;
	v = NULL;
done:
	websearch_results_free(v, k);
	json_object_put(root);
	return rc;
}

static const char *
brave_key(const struct config *cfg)
{
	return cfg->brave_api_key;
}

/* Brave Search API: GET <base>?q=..&count=.. with X-Subscription-Token. */
static int
brave_search(struct websearch_result **out, size_t *n, const struct config *cfg,
    const char *query, int count, struct err *e)
{
	struct curl_body		 body = { .max = WEBSEARCH_RESPONSE_MAX };
	struct curl_slist	*headers = NULL, *h;
	char			*q = NULL, *url = NULL, *auth = NULL;
	size_t			 alen;
	int			 rc = 0;

	if ((ws_cl = curl_lib(e)) == NULL)
		return e->code;
	if (has_ctl(cfg->brave_api_key)) {
		rc = err_set(e, ERR_CONFIG, "web search is misconfigured: BRAVE_SEARCH_API_KEY "
		    "holds control characters; the operator must fix it");
		goto done;
	}
	if ((q = ws_cl->easy_escape(NULL, query, 0)) == NULL ||
	    (url = malloc(WS_URL_MAX)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if ((size_t)snprintf(url, WS_URL_MAX, "%s%cq=%s&count=%d", cfg->search_base_url,
	    strchr(cfg->search_base_url, '?') != NULL ? '&' : '?', q, count) >= WS_URL_MAX) {
		rc = err_set(e, ERR_INVALID, "the query is too long for a web search");
		goto done;
	}
	alen = strlen("X-Subscription-Token: ") + strlen(cfg->brave_api_key) + 1;
	if ((auth = malloc(alen)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	snprintf(auth, alen, "X-Subscription-Token: %s", cfg->brave_api_key);
	if ((h = ws_cl->slist_append(headers, "Accept: application/json")) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	headers = h;
	if ((h = ws_cl->slist_append(headers, auth)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	headers = h;
	if ((rc = ws_get(&body, url, headers, cfg->search_timeout, e)) != 0)
		goto done;
	rc = brave_parse(out, n, body.buf != NULL ? body.buf : "", body.len, count, e);
done:
	if (auth != NULL) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	ws_cl->slist_free_all(headers);
	ws_cl->free(q);
	free(url);
	free(body.buf);
	return rc;
}

static const struct websearch_provider websearch_providers[] = {
	{ "brave", "BRAVE_SEARCH_API_KEY", "brave_api_key", brave_key, brave_search },
};
#define WS_NPROVIDERS	(sizeof websearch_providers / sizeof websearch_providers[0])

/* The provider cfg names, or NULL with ERR_CONFIG naming it and the supported ones. */
static const struct websearch_provider *
ws_provider(const struct config *cfg, struct err *e)
{
	const char	*name = cfg->search_provider != NULL ? cfg->search_provider : "";
	char		 names[256];
	size_t		 i, off = 0;

	for (i = 0; i < WS_NPROVIDERS; i++)
		if (strcmp(websearch_providers[i].name, name) == 0)
			return &websearch_providers[i];
	names[0] = '\0';
	for (i = 0; i < WS_NPROVIDERS && off < sizeof names; i++)
		off += (size_t)snprintf(names + off, sizeof names - off, "%s%s",
		    i > 0 ? ", " : "", websearch_providers[i].name);
	err_set(e, ERR_CONFIG, "web search is misconfigured: unknown search provider '%.64s' "
	    "(SEARCH_PROVIDER); supported: %s", name, names);
	return NULL;
}

int
websearch_check(const struct config *cfg, struct err *e)
{
	const struct websearch_provider	*p;
	const char			*key;

	if ((p = ws_provider(cfg, e)) == NULL)
		return ERR_CONFIG;
	key = p->key(cfg);
	if (key == NULL || key[0] == '\0')
		return err_set(e, ERR_CONFIG, "web search is not configured: the operator must set "
		    "%s (or %s in the configuration file)", p->key_var, p->key_conf);
	return 0;
}

int
websearch_run(struct websearch_result **out, size_t *n, const struct config *cfg,
    const char *query, int count, struct err *e)
{
	const struct websearch_provider	*p;
	int				 rc;

	*out = NULL;
	*n = 0;
	if ((rc = websearch_check(cfg, e)) != 0)
		return rc;
	if ((p = ws_provider(cfg, e)) == NULL)
		return ERR_CONFIG;
	if (count < WEBSEARCH_COUNT_MIN)
		count = WEBSEARCH_COUNT_MIN;
	if (count > WEBSEARCH_COUNT_MAX)
		count = WEBSEARCH_COUNT_MAX;
	return p->search(out, n, cfg, query, count, e);
}
