/* toolset: the groups of tools a client may choose from, and a client's choice. */
#ifndef FM_TOOLSET_H
#define FM_TOOLSET_H
#include <stddef.h>

/* The groups; a tool's table entry names one (struct tool, .toolset). */
enum toolset {
	TOOLSET_REPOS,		/* TOOLSET_REPOS: repositories, files, history, code search */
	TOOLSET_ISSUES,		/* TOOLSET_ISSUES */
	TOOLSET_PULL_REQUESTS,	/* TOOLSET_PULL_REQUESTS: with reviews, checks and merges */
	TOOLSET_NOTIFICATIONS,	/* TOOLSET_NOTIFICATIONS: the caller's inbox */
	TOOLSET_USERS,		/* TOOLSET_USERS */
	TOOLSET_SEARCH,		/* TOOLSET_SEARCH: the web */
	TOOLSET_CI,		/* TOOLSET_CI: workflow runs and their jobs */
	TOOLSET__MAX
};

#define TOOLSET_ALL	((1u << TOOLSET__MAX) - 1)
/* What a client gets without choosing ("default"): every toolset. */
#define TOOLSET_DEFAULT	TOOLSET_ALL

/* A client's choice: the toolsets, and whether only read-only tools. */
struct toolset_sel {
	unsigned	 sets;		/* 1 << TOOLSET_* */
	int		 read_only;
};

#define TOOLSET_SEL_DEFAULT	{ TOOLSET_DEFAULT, 0 }

/* The toolset named name (len bytes), or -1. */
int		 toolset_find(const char *name, size_t len);
/* A toolset's name ("pull_requests"). */
const char	*toolset_name(enum toolset t);
/*
 * Parses a comma-separated list of toolset names (spaces around names are
 * ignored; "default" and "all" stand for those sets) into out->sets.
 * Returns 0, or -1 with a message in msg that says what it could not read
 * (an empty name, an unknown one: quoted when it is a plain word) and lists
 * the toolsets.  A name given twice counts once.
 */
int		 toolset_parse(struct toolset_sel *out, const char *spec, size_t len, char *msg,
		    size_t msglen);
/* "true" or "1" -> 1, "false" or "0" -> 0 (case-insensitive); -1 otherwise. */
int		 toolset_flag(const char *s);
/* Whether s is what a client gets without choosing. */
int		 toolset_sel_is_default(const struct toolset_sel *s);

#endif
