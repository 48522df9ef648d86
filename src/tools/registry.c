/* registry: the sorted table of every tool; adding a tool is one line here. */
#include <stddef.h>

#include "tool.h"

const struct tool *const tool_table[] = {
	&tool_add_issue_comment,	/* issues */
	&tool_approve_pull_request_checks,	/* pull_requests */
	&tool_cancel_run,		/* ci */
	&tool_close_issue,		/* issues */
	&tool_close_pull_request,	/* pull_requests */
	&tool_compare_refs,		/* repos */
	&tool_create_issue,		/* issues */
	&tool_create_pull_request,	/* pull_requests */
	&tool_create_pull_request_discussion,	/* pull_requests */
	&tool_create_run,		/* ci */
	&tool_delete_repository_variable,	/* repos */
	&tool_edit_issue,		/* issues */
	&tool_edit_pull_request,	/* pull_requests */
	&tool_get_file_contents,	/* repos */
	&tool_get_issue,		/* issues */
	&tool_get_pull_request,		/* pull_requests */
	&tool_get_pull_request_checks,	/* pull_requests */
	&tool_get_pull_request_diff,	/* pull_requests */
	&tool_get_run,			/* ci */
	&tool_get_run_logs,		/* ci */
	&tool_get_tree,			/* repos */
	&tool_get_user,			/* users */
	&tool_list_branches,		/* repos */
	&tool_list_commits,		/* repos */
	&tool_list_inbox,		/* notifications */
	&tool_list_issues,		/* issues */
	&tool_list_pull_request_discussions,	/* pull_requests */
	&tool_list_pull_requests,	/* pull_requests */
	&tool_list_repositories,	/* repos */
	&tool_list_repository_variables,	/* repos */
	&tool_list_runs,		/* ci */
	&tool_mark_notification_read,	/* notifications */
	&tool_merge_pull_request,	/* pull_requests */
	&tool_reopen_issue,		/* issues */
	&tool_reopen_pull_request,	/* pull_requests */
	&tool_reopen_pull_request_discussion,	/* pull_requests */
	&tool_reply_pull_request_discussion,	/* pull_requests */
	&tool_rerun_run,		/* ci */
	&tool_resolve_pull_request_discussion,	/* pull_requests */
	&tool_search_code,		/* repos */
	&tool_set_repository_variable,	/* repos */
	&tool_web_search,		/* search */
};

const size_t tool_table_len = sizeof(tool_table) / sizeof(tool_table[0]);
