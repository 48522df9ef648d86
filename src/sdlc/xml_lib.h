/*
 * xml_lib: libxml2's HTML parser, loaded the first time a process needs it.
 *
 * Only the wiki agent's Confluence backend parses HTML, and libxml2 brings
 * ICU and the C++ runtime with it: linked, they would be loaded by every
 * process forgemcp starts (each CGI request, each CLI command).  So, as
 * libcurl (store/curl_lib.h), the library configure found is opened by its
 * SONAME (LIBXML2_SONAME) on first use and called through this table;
 * only its headers are compiled against.
 */
#ifndef FM_XML_LIB_H
#define FM_XML_LIB_H

#include <libxml/HTMLparser.h>

#include "err.h"

/* The libxml2 functions forgemcp calls, named as in libxml2. */
struct xml_lib {
	htmlDocPtr	 (*htmlReadMemory)(const char *buffer, int size, const char *url,
			    const char *encoding, int options);
	void		 (*xmlFreeDoc)(xmlDocPtr doc);
	xmlNodePtr	 (*xmlDocGetRootElement)(const xmlDoc *doc);
};

/*
 * The loaded library; NULL and ERR_CONFIG in *e, naming the library and
 * the loader's reason, when it cannot be opened or lacks a function.  A
 * failure is remembered.
 */
const struct xml_lib	*xml_lib(struct err *e);

#endif
