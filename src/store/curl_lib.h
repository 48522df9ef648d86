/*
 * curl_lib: libcurl, loaded the first time a process needs it.
 *
 * Linking libcurl would load it, and the thirty-odd libraries it depends on
 * (TLS, LDAP, SSH, IDN, ...), into every process that starts: each CGI
 * request, each CLI command, each worker.  That is about 8 ms of dynamic
 * loading on every start, for the few processes that speak HTTP out (a
 * web_search call, forgemcp call).  So the library configure found is
 * opened by its SONAME (LIBCURL_SONAME) on first use instead, and called
 * through this table.
 */
#ifndef FM_CURL_LIB_H
#define FM_CURL_LIB_H

#include <curl/curl.h>

#include "err.h"

/* The libcurl functions forgemcp calls, named as in libcurl without "curl_". */
struct curl_lib {
	CURLcode		 (*global_init)(long flags);
	void			 (*global_cleanup)(void);
	CURL			*(*easy_init)(void);
	CURLcode		 (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode		 (*easy_perform)(CURL *curl);
	CURLcode		 (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	void			 (*easy_reset)(CURL *curl);
	void			 (*easy_cleanup)(CURL *curl);
	const char		*(*easy_strerror)(CURLcode code);
	char			*(*easy_escape)(CURL *curl, const char *s, int len);
	void			 (*free)(void *p);
	struct curl_slist	*(*slist_append)(struct curl_slist *list, const char *s);
	void			 (*slist_free_all)(struct curl_slist *list);
};

/*
 * An answer's body read into memory by curl_body_write (CURLOPT_WRITEDATA
 * the struct): NUL-terminated; at most max bytes, past which too_big is
 * set and the transfer stops; nomem when an allocation failed.  The caller
 * frees buf.
 */
struct curl_body {
	char	*buf;
	size_t	 len, cap, max;
	int	 too_big, nomem;
};
/* CURLOPT_WRITEFUNCTION for a struct curl_body. */
size_t	curl_body_write(char *data, size_t size, size_t nmemb, void *arg);

/*
 * Appends "Accept: application/json" to *hdrs and, with a token (NULL:
 * none), "Authorization: Bearer <token>" (its copy on the stack wiped).
 * 0, or -1 when out of memory (*hdrs keeps what was appended).
 */
int	curl_json_headers(const struct curl_lib *cl, struct curl_slist **hdrs, const char *token);
/*
 * Resets curl for one request to url: HTTP or HTTPS only, no redirects
 * followed, no signals, connect_timeout and timeout seconds, the headers
 * hdrs, the answer's body into a.
 */
void	curl_request_setup(const struct curl_lib *cl, CURL *curl, const char *url,
	    struct curl_slist *hdrs, long connect_timeout, long timeout, struct curl_body *a);

/*
 * The loaded library; NULL and ERR_CONFIG in *e, naming the library and
 * the loader's reason, when it cannot be opened or lacks a function (an
 * installation to mend: retrying does not help).
 * A failure is remembered: the next call answers the same without trying.
 */
const struct curl_lib	*curl_lib(struct err *e);

#endif
