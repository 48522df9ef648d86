/* rest: an agent backend's requests to its REST server (rest.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "sdlc/rest.h"
#include "store/curl_lib.h"

int
rest_init(struct rest_server *s, const char *name, const char *url, const char *user,
    const char *token_file, const char *key, long timeout)
{
	FILE	*f;
	char	 line[4096];

	memset(s, 0, sizeof *s);
	s->name = name;
	s->url = url;
	s->user = user != NULL && *user != '\0' ? user : NULL;
	s->timeout = timeout;
	if (token_file == NULL || *token_file == '\0')
		return 0;
	if ((f = fopen(token_file, "r")) == NULL) {
		fprintf(stderr, "forgemcp: agent: cannot read %s '%s'\n", key, token_file);
		return -1;
	}
	if (fgets(line, sizeof line, f) == NULL)
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] == '\0') {
		fprintf(stderr, "forgemcp: agent: %s '%s' is empty\n", key, token_file);
		return -1;
	}
	s->secret = strdup(line);
	explicit_bzero(line, sizeof line);
	return s->secret != NULL ? 0 : -1;
}

void
rest_release(struct rest_server *s)
{
	if (s->secret != NULL) {
		explicit_bzero(s->secret, strlen(s->secret));
		free(s->secret);
	}
	s->secret = NULL;
}

/* Appends line to *hdrs: 0, or -1 when out of memory. */
static int
rest_header(const struct curl_lib *cl, struct curl_slist **hdrs, const char *line)
{
	struct curl_slist	*h;

	if ((h = cl->slist_append(*hdrs, line)) == NULL)
		return -1;
	*hdrs = h;
	return 0;
}

int
rest_call(const struct curl_lib *cl, void *curl, const struct rest_server *s,
    const char *method, const char *path, const struct rest_body *body, long max,
    struct curl_body *a, long *status, long *retry_after, char *why, size_t why_len)
{
	struct curl_slist	*hdrs = NULL;
	curl_off_t		 ra = -1;
	char			*url = NULL, shown[300], ctype[200];
	CURLcode		 cc;
	int			 rc = -1;

	memset(a, 0, sizeof *a);
	a->max = (size_t)max;
	*status = 0;
	*retry_after = -1;
	snprintf(shown, sizeof shown, "%s %.*s", method, (int)strcspn(path, "?"), path);
	if (asprintf(&url, "%s%s", s->url, path) < 0) {
		url = NULL;
		goto nomem;
	}
	if (curl_json_headers(cl, &hdrs, s->user == NULL ? s->secret : NULL) != 0)
		goto nomem;
	if (body != NULL && body->ctype != NULL) {
		snprintf(ctype, sizeof ctype, "Content-Type: %s", body->ctype);
		if (rest_header(cl, &hdrs, ctype) != 0)
			goto nomem;
	}
	if (body != NULL && body->extra != NULL && rest_header(cl, &hdrs, body->extra) != 0)
		goto nomem;
	/* libcurl would wait a second for a 100 Continue before a large body */
	if (rest_header(cl, &hdrs, "Expect:") != 0)
		goto nomem;
	curl_request_setup(cl, curl, url, hdrs, s->timeout < 10 ? s->timeout : 10L, s->timeout, a);
	if (s->secret != NULL && s->user != NULL) {
		cl->easy_setopt(curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		cl->easy_setopt(curl, CURLOPT_USERNAME, s->user);
		cl->easy_setopt(curl, CURLOPT_PASSWORD, s->secret);
	}
	if (strcmp(method, "GET") != 0)
		cl->easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
	if (body != NULL && body->ctype != NULL) {
		cl->easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body->len);
		cl->easy_setopt(curl, CURLOPT_POSTFIELDS, body->data);
	}
	cc = cl->easy_perform(curl);
	cl->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
	if (a->too_big)
		snprintf(why, why_len, "%s: %s: ответ больше %ld байт", s->name, shown, max);
	else if (cc == CURLE_OPERATION_TIMEDOUT)
		snprintf(why, why_len, "%s не ответил за %ld с: %s", s->name, s->timeout, shown);
	else if (cc != CURLE_OK)
		snprintf(why, why_len, "%s недоступен: %s: %s", s->name, shown,
		    cl->easy_strerror(cc));
	else {
#if LIBCURL_VERSION_NUM >= 0x074200
		if (cl->easy_getinfo(curl, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra >= 0)
			*retry_after = (long)ra;
#endif
		rc = 0;
	}
	goto done;
nomem:
	snprintf(why, why_len, "нехватка памяти");
done:
	if (hdrs != NULL)
		cl->slist_free_all(hdrs);
	free(url);
	if (rc != 0) {
		free(a->buf);
		a->buf = NULL;
		a->len = 0;
	}
	return rc;
}

int
rest_get_raw(const struct curl_lib *cl, void *curl, const struct rest_server *s,
    const char *path, long max, struct curl_body *a, char *why, size_t why_len)
{
	long	status, retry_after;

	if (rest_call(cl, curl, s, "GET", path, NULL, max, a, &status, &retry_after, why,
	    why_len) != 0)
		return -1;
	if (status == 200)
		return 0;
	snprintf(why, why_len, "%s: GET %.*s: HTTP %ld", s->name, (int)strcspn(path, "?"), path,
	    status);
	free(a->buf);
	a->buf = NULL;
	a->len = 0;
	return -1;
}
