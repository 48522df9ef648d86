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
