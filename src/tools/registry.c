/* registry: the sorted table of every tool; adding a tool is one line here. */
#include <stddef.h>

#include "tool.h"

const struct tool *const tool_table[] = {
	&tool_get_file_contents,	/* repos */
	&tool_list_repositories,	/* repos */
};

const size_t tool_table_len = sizeof(tool_table) / sizeof(tool_table[0]);
