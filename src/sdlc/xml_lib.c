/* xml_lib: libxml2 opened by its SONAME on first use (see xml_lib.h for why). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

#include "err.h"
#include "sdlc/xml_lib.h"

#ifndef LIBXML2_SONAME
#error "configure defines LIBXML2_SONAME, the libxml2 shared object to open"
#endif

static struct xml_lib	 xml_fns;
static int		 xml_state;	/* 0 not tried, 1 loaded, -1 failed */
static char		 xml_why[256];

/* One entry of the table: its offset in struct xml_lib and libxml2's name. */
static const struct {
	size_t		 off;
	const char	*name;
} xml_syms[] = {
	{ offsetof(struct xml_lib, htmlReadMemory), "htmlReadMemory" },
	{ offsetof(struct xml_lib, xmlFreeDoc), "xmlFreeDoc" },
	{ offsetof(struct xml_lib, xmlDocGetRootElement), "xmlDocGetRootElement" },
};

static void
xml_load(void)
{
	void		*h, *fn;
	const char	*why;
	size_t		 i;

	if ((h = dlopen(LIBXML2_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		why = dlerror();
		snprintf(xml_why, sizeof xml_why, "cannot load %s: %s", LIBXML2_SONAME,
		    why != NULL ? why : "unknown error");
		xml_state = -1;
		return;
	}
	for (i = 0; i < sizeof xml_syms / sizeof xml_syms[0]; i++) {
		if ((fn = dlsym(h, xml_syms[i].name)) == NULL) {
			snprintf(xml_why, sizeof xml_why, "%s has no %s", LIBXML2_SONAME,
			    xml_syms[i].name);
			dlclose(h);
			xml_state = -1;
			return;
		}
		/* POSIX makes a function's address from dlsym usable as one */
		*(void **)(void *)((char *)&xml_fns + xml_syms[i].off) = fn;
	}
	xml_state = 1;
}

const struct xml_lib *
xml_lib(struct err *e)
{
	if (xml_state == 0)
		xml_load();
	if (xml_state < 0) {
		err_set(e, ERR_CONFIG, "%s (libxml2 comes with the Debian package libxml2)",
		    xml_why);
		return NULL;
	}
	return &xml_fns;
}
