/* toolset: the toolset names, and reading a client's choice of toolsets. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "toolset.h"

static const char *const toolset_names[TOOLSET__MAX] = {
	"repos",		/* TOOLSET_REPOS */
	"issues",		/* TOOLSET_ISSUES */
	"pull_requests",	/* TOOLSET_PULL_REQUESTS */
	"notifications",	/* TOOLSET_NOTIFICATIONS */
	"users",		/* TOOLSET_USERS */
	"search",		/* TOOLSET_SEARCH */
	"ci",			/* TOOLSET_CI */
};

int
toolset_find(const char *name, size_t len)
{
	int	 i;

	for (i = 0; i < TOOLSET__MAX; i++)
		if (strlen(toolset_names[i]) == len && memcmp(toolset_names[i], name, len) == 0)
			return i;
	return -1;
}

const char *
toolset_name(enum toolset t)
{
	return t < TOOLSET__MAX ? toolset_names[t] : "?";
}

/* Whether w (len bytes) is a word that may be quoted back: [a-z0-9_-]{1,40}. */
static int
toolset_plain(const char *w, size_t len)
{
	size_t	 i;

	if (len == 0 || len > 40)
		return 0;
	for (i = 0; i < len; i++)
		if (!((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= '0' && w[i] <= '9') || w[i] == '_' ||
		    w[i] == '-'))
			return 0;
	return 1;
}

/* "repos, issues, ..." into buf. */
static void
toolset_list(char *buf, size_t len)
{
	size_t	 at = 0;
	int	 i, n;

	buf[0] = '\0';
	for (i = 0; i < TOOLSET__MAX && at < len; i++) {
		n = snprintf(buf + at, len - at, "%s%s", i > 0 ? ", " : "", toolset_names[i]);
		if (n < 0)
			break;
		at += (size_t)n;
	}
}

int
toolset_parse(struct toolset_sel *out, const char *spec, size_t len, char *msg, size_t msglen)
{
	const char	*p = spec, *end = spec + len, *w, *we;
	char		 names[160];
	unsigned	 sets = 0;
	int		 t;

	for (;;) {
		w = p;
		while (w < end && (*w == ' ' || *w == '\t'))
			w++;
		we = w;
		while (we < end && *we != ',')
			we++;
		p = we;
		while (we > w && (we[-1] == ' ' || we[-1] == '\t'))
			we--;
		if (we == w) {
			toolset_list(names, sizeof names);
			snprintf(msg, msglen, "an empty toolset name in the list (the toolsets are: "
			    "%s; or default, all)", names);
			return -1;
		}
		if ((size_t)(we - w) == 7 && memcmp(w, "default", 7) == 0)
			sets |= TOOLSET_DEFAULT;
		else if ((size_t)(we - w) == 3 && memcmp(w, "all", 3) == 0)
			sets |= TOOLSET_ALL;
		else if ((t = toolset_find(w, (size_t)(we - w))) >= 0)
			sets |= 1u << t;
		else {
			toolset_list(names, sizeof names);
			if (toolset_plain(w, (size_t)(we - w)))
				snprintf(msg, msglen, "unknown toolset '%.*s' (the toolsets are: %s; "
				    "or default, all)", (int)(we - w), w, names);
			else
				snprintf(msg, msglen, "unknown toolset (a name is at most 40 of "
				    "a-z, 0-9, _ and -; the toolsets are: %s; or default, all)", names);
			return -1;
		}
		if (p >= end)
			break;
		p++;	/* the comma */
	}
	out->sets = sets;
	return 0;
}

int
toolset_flag(const char *s)
{
	if (strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0)
		return 1;
	if (strcasecmp(s, "false") == 0 || strcmp(s, "0") == 0)
		return 0;
	return -1;
}

int
toolset_sel_is_default(const struct toolset_sel *s)
{
	return s->sets == TOOLSET_DEFAULT && !s->read_only;
}
