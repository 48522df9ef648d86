/* curl_lib: libcurl opened by its SONAME on first use (see curl_lib.h for why). */
#include <dlfcn.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/curl_lib.h"

#ifndef LIBCURL_SONAME
#error "configure defines LIBCURL_SONAME, the libcurl shared object to open"
#endif

static struct curl_lib	 curl_fns;
static int		 curl_state;	/* 0 not tried, 1 loaded, -1 failed */
static char		 curl_why[256];

/* One entry of the table: its offset in struct curl_lib and libcurl's name. */
static const struct {
	size_t		 off;
	const char	*name;
} curl_syms[] = {
	{ offsetof(struct curl_lib, global_init), "curl_global_init" },
	{ offsetof(struct curl_lib, global_cleanup), "curl_global_cleanup" },
	{ offsetof(struct curl_lib, easy_init), "curl_easy_init" },
	{ offsetof(struct curl_lib, easy_setopt), "curl_easy_setopt" },
	{ offsetof(struct curl_lib, easy_perform), "curl_easy_perform" },
	{ offsetof(struct curl_lib, easy_getinfo), "curl_easy_getinfo" },
	{ offsetof(struct curl_lib, easy_reset), "curl_easy_reset" },
	{ offsetof(struct curl_lib, easy_cleanup), "curl_easy_cleanup" },
	{ offsetof(struct curl_lib, easy_strerror), "curl_easy_strerror" },
	{ offsetof(struct curl_lib, easy_escape), "curl_easy_escape" },
	{ offsetof(struct curl_lib, free), "curl_free" },
	{ offsetof(struct curl_lib, slist_append), "curl_slist_append" },
	{ offsetof(struct curl_lib, slist_free_all), "curl_slist_free_all" },
};

static void
curl_load(void)
{
	void		*h, *fn;
	const char	*why;
	size_t		 i;

	if ((h = dlopen(LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		why = dlerror();
		snprintf(curl_why, sizeof(curl_why), "cannot load %s: %s", LIBCURL_SONAME,
		    why != NULL ? why : "unknown error");
		curl_state = -1;
		return;
	}
	for (i = 0; i < sizeof(curl_syms) / sizeof(curl_syms[0]); i++) {
		if ((fn = dlsym(h, curl_syms[i].name)) == NULL) {
			snprintf(curl_why, sizeof(curl_why), "%s has no %s", LIBCURL_SONAME,
			    curl_syms[i].name);
			dlclose(h);
			curl_state = -1;
			return;
		}
		/* POSIX makes a function's address from dlsym usable as one */
		*(void **)(void *)((char *)&curl_fns + curl_syms[i].off) = fn;
	}
	curl_state = 1;
}

const struct curl_lib *
curl_lib(struct err *e)
{
	if (curl_state == 0)
		curl_load();
	if (curl_state < 0) {
		err_set(e, ERR_CONFIG, "%s (libcurl comes with the Debian package libcurl4)", curl_why);
		return NULL;
	}
	return &curl_fns;
}

size_t
curl_body_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct curl_body	*b = arg;
	size_t			 n = size * nmemb, ncap;
	char			*p;

	if (n > b->max - b->len) {
		b->too_big = 1;
		return 0;
	}
	if (b->len + n + 1 > b->cap) {
		for (ncap = b->cap == 0 ? 16384 : b->cap; ncap < b->len + n + 1; ncap *= 2)
			;
		if ((p = realloc(b->buf, ncap)) == NULL) {
			b->nomem = 1;
			return 0;
		}
		b->buf = p;
		b->cap = ncap;
	}
	memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return n;
}

int
curl_json_headers(const struct curl_lib *cl, struct curl_slist **hdrs, const char *token)
{
	struct curl_slist	*h;
	char			 line[4200];

	if ((h = cl->slist_append(*hdrs, "Accept: application/json")) == NULL)
		return -1;
	*hdrs = h;
	if (token == NULL)
		return 0;
	snprintf(line, sizeof line, "Authorization: Bearer %s", token);
	h = cl->slist_append(*hdrs, line);
	explicit_bzero(line, sizeof line);
	if (h == NULL)
		return -1;
	*hdrs = h;
	return 0;
}

void
curl_request_setup(const struct curl_lib *cl, CURL *curl, const char *url,
    struct curl_slist *hdrs, long connect_timeout, long timeout, struct curl_body *a)
{
	cl->easy_reset(curl);
	cl->easy_setopt(curl, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
	cl->easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	cl->easy_setopt(curl, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	cl->easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
	cl->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	cl->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, connect_timeout);
	cl->easy_setopt(curl, CURLOPT_TIMEOUT, timeout);
	cl->easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);
	cl->easy_setopt(curl, CURLOPT_WRITEFUNCTION, curl_body_write);
	cl->easy_setopt(curl, CURLOPT_WRITEDATA, a);
}
