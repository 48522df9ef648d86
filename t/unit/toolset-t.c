/* toolset-t: unit tests of the toolset names and the parsing of a client's choice. */
#include <string.h>

#include "tap.h"
#include "toolset.h"

static int
parse(const char *spec, unsigned *sets, char *msg, size_t msglen)
{
	struct toolset_sel	 s = { 0, 0 };
	int			 rc;

	msg[0] = '\0';
	rc = toolset_parse(&s, spec, strlen(spec), msg, msglen);
	*sets = s.sets;
	return rc;
}

int
main(void)
{
	char		 msg[300];
	unsigned	 sets;
	int		 i;

	for (i = 0; i < TOOLSET__MAX; i++)
		is_int(toolset_find(toolset_name(i), strlen(toolset_name(i))), i,
		    "toolset %s found by its name", toolset_name(i));
	is_int(toolset_find("repo", 4), -1, "a prefix of a name is not a name");
	is_int(toolset_find("reposx", 6), -1, "a name with more after it is not a name");

	is_int(parse("repos,issues", &sets, msg, sizeof msg), 0, "two names");
	is_int(sets, (1u << TOOLSET_REPOS) | (1u << TOOLSET_ISSUES), "two names: both chosen");
	is_int(parse(" pull_requests , search ", &sets, msg, sizeof msg), 0, "spaces around names");
	is_int(sets, (1u << TOOLSET_PULL_REQUESTS) | (1u << TOOLSET_SEARCH), "spaces: both chosen");
	is_int(parse("issues,issues", &sets, msg, sizeof msg), 0, "a name twice");
	is_int(sets, 1u << TOOLSET_ISSUES, "a name twice counts once");
	is_int(parse("default", &sets, msg, sizeof msg), 0, "default");
	is_int(sets, TOOLSET_DEFAULT, "default is the default set");
	is_int(parse("all", &sets, msg, sizeof msg), 0, "all");
	is_int(sets, TOOLSET_ALL, "all is every toolset");

	is_int(parse("repos,wiki", &sets, msg, sizeof msg), -1, "an unknown name is refused");
	ok(strstr(msg, "unknown toolset 'wiki'") != NULL, "the message quotes it: %s", msg);
	ok(strstr(msg, "repos, issues, pull_requests, notifications, users, search, ci") != NULL,
	    "the message lists the toolsets");
	is_int(parse("", &sets, msg, sizeof msg), -1, "an empty list is refused");
	ok(strstr(msg, "empty toolset name") != NULL, "the message says so: %s", msg);
	is_int(parse("repos,", &sets, msg, sizeof msg), -1, "a trailing comma is refused");
	is_int(parse("repos,,issues", &sets, msg, sizeof msg), -1, "an empty name is refused");
	is_int(parse("Repos", &sets, msg, sizeof msg), -1, "names are lower-case");
	is_int(parse("re\"pos\n", &sets, msg, sizeof msg), -1, "a name with odd bytes is refused");
	ok(strchr(msg, '"') == NULL && strchr(msg, '\n') == NULL,
	    "and not quoted back: %s", msg);

	is_int(toolset_flag("true"), 1, "true");
	is_int(toolset_flag("TRUE"), 1, "TRUE");
	is_int(toolset_flag("1"), 1, "1");
	is_int(toolset_flag("false"), 0, "false");
	is_int(toolset_flag("0"), 0, "0");
	is_int(toolset_flag("yes"), -1, "yes is not a flag");
	is_int(toolset_flag(""), -1, "empty is not a flag");
	{
		struct toolset_sel	 d = TOOLSET_SEL_DEFAULT, r = { TOOLSET_DEFAULT, 1 };
		struct toolset_sel	 some = { 1u << TOOLSET_REPOS, 0 };

		ok(toolset_sel_is_default(&d), "the default selection is the default");
		ok(!toolset_sel_is_default(&r), "read-only is not the default");
		ok(!toolset_sel_is_default(&some), "one toolset is not the default");
	}
	return done_testing();
}
