/* ask: what an agent's request for a claimed command is (hub_agent_refused, api-int.h). */
#ifndef FM_HUB_ASK_H
#define FM_HUB_ASK_H

/* What an agent's request for a claimed command is, as its refusal names it. */
enum hub_ask {
	HUB_ASK_PART,		/* a part of a file or of a wiki copy */
	HUB_ASK_PAGE,		/* a page of a refresh (agent/jira_issues) */
	HUB_ASK_REPORT,		/* agent/report, and the {command, handout, error} of a part's path */
	HUB_ASK_RUN,		/* agent/local, agent/wiki_git: the hub runs the command */
	HUB_ASK__MAX
};

#endif
