/* mcp_methods: the MCP methods of both eras and the table that dispatches them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "core_io.h"
#include "json.h"
#include "mcp.h"
#include "mcp-int.h"
#include "rpc.h"
#include "tool.h"

#define MCP_INSTRUCTIONS \
	"Tools for the git repositories, issues and pull requests of this forge. Start " \
	"with list_repositories to find a repository's owner/name; then read files " \
	"(get_file_contents, get_tree, search_code), history (list_commits, " \
	"list_branches, compare_refs), issues and pull requests. Reads are bounded; a " \
	"result that was cut says so and names the argument that fetches the rest. " \
	"The tools come in toolsets: repos, issues, pull_requests, notifications, users, " \
	"search and ci (workflow runs). A client that needs fewer tools chooses them with the " \
	"X-MCP-Toolsets header (\"repos,issues\") or the path /mcp/x/repos,issues, " \
	"and only the read-only tools with X-MCP-Readonly: true or /mcp/readonly " \
	"(stdio: --toolsets, --read-only)."

/*
 * Only tools are advertised, as MoonHub and siGit do: {"tools":{}} in the
 * 2026-07-28 era, {"tools":{"listChanged":false}} in the legacy one.
 * resources/list and prompts/list still answer, with empty lists.
 */
static struct json_object *
mcp_capabilities(enum mcp_era era)
{
	struct json_object	*caps = json_object_new_object(), *tools;

	tools = json_object_new_object();
	if (era == ERA_LEGACY)
		json_object_object_add(tools, "listChanged", json_object_new_boolean(0));
	json_object_object_add(caps, "tools", tools);
	return caps;
}

/* ---- methods ---------------------------------------------------------- */

static void
m_discover(struct mcp_call *k)
{
	struct json_object	*r = json_object_new_object(), *v = json_object_new_array();

	json_object_array_add(v, json_object_new_string(MCP_MODERN_VERSION));
	json_object_object_add(r, "supportedVersions", v);
	json_object_object_add(r, "capabilities", mcp_capabilities(k->era));
	json_object_object_add(r, "instructions", json_object_new_string(MCP_INSTRUCTIONS));
	mcp_ok(k, r, 1);
}

static void
m_initialize(struct mcp_call *k)
{
	struct json_object	*r = json_object_new_object();
	const char		*want = json_get_str(k->msg.params, "protocolVersion");
	const char		*v = MCP_NEWEST_LEGACY;

	if (want != NULL && mcp_legacy_version_known(want))
		v = want;
	json_object_object_add(r, "protocolVersion", json_object_new_string(v));
	json_object_object_add(r, "capabilities", mcp_capabilities(k->era));
	json_object_object_add(r, "serverInfo", mcp_server_info());
	json_object_object_add(r, "instructions", json_object_new_string(MCP_INSTRUCTIONS));
	mcp_ok(k, r, 0);
}

static void
m_ping(struct mcp_call *k)
{
	mcp_ok(k, json_object_new_object(), 0);
}

/*
 * Every list fits one page today; a cursor is only valid when we issued
 * it, and we issue none, so any cursor is refused rather than ignored.
 */
static int
mcp_check_cursor(struct mcp_call *k)
{
	if (json_get(k->msg.params, "cursor") != NULL) {
		mcp_refuse(k, NULL, REFUSAL_CURSOR);
		return -1;
	}
	return 0;
}

static void
m_tools_list(struct mcp_call *k)
{
	struct json_object	*r;

	if (mcp_check_cursor(k) != 0)
		return;
	r = json_object_new_object();
	json_object_object_add(r, "tools", tool_list_json(k->req->toolsets));
	mcp_ok(k, r, 1);
}

static void
m_empty_list(struct mcp_call *k, const char *key)
{
	struct json_object	*r;

	if (mcp_check_cursor(k) != 0)
		return;
	r = json_object_new_object();
	json_object_object_add(r, key, json_object_new_array());
	mcp_ok(k, r, 1);
}

static void
m_resources_list(struct mcp_call *k)
{
	m_empty_list(k, "resources");
}

static void
m_templates_list(struct mcp_call *k)
{
	m_empty_list(k, "resourceTemplates");
}

static void
m_prompts_list(struct mcp_call *k)
{
	m_empty_list(k, "prompts");
}

static void
m_resources_read(struct mcp_call *k)
{
	struct json_object	*uri = json_get(k->msg.params, "uri"), *data = NULL;

	if (!json_is_type(uri, json_type_string)) {
		mcp_refuse(k, NULL, REFUSAL_URI);
		return;
	}
	data = json_object_new_object();
	json_object_object_add(data, "uri", json_object_get(uri));
	mcp_refuse(k, data, k->era == ERA_MODERN ? REFUSAL_RESOURCE_NOT_FOUND :
	    REFUSAL_RESOURCE_NOT_FOUND_LEGACY);
}

static void
m_prompts_get(struct mcp_call *k)
{
	mcp_refuse(k, NULL, REFUSAL_PROMPT);
}

int
mcp_tool_gate(struct mcp_call *k, size_t *out)
{
	const char		*name = json_get_str(k->msg.params, "name");
	char			 need[64];

	if (name == NULL || json_str_has_nul(json_get(k->msg.params, "name"))) {
		/* A NUL would cut the name: "create_issue\u0000x" must not run create_issue. */
		mcp_refuse(k, NULL, REFUSAL_TOOL_NAME);
		return -1;
	}
	switch (tool_admit(out, name, k->req->toolsets, k->who->scopes)) {
	case TOOL_ADMITTED:
		return 0;
	case TOOL_FORBIDDEN:
		auth_format_scopes(need, sizeof(need), tool_table[*out]->scope);
		core_challenge(k->challenge_buf, sizeof(k->challenge_buf), k->cfg,
		    "insufficient_scope", need);
		k->challenge = k->challenge_buf;
		mcp_refuse(k, NULL, REFUSAL_SCOPE, tool_table[*out]->name, need);
		return -1;
	default:
		mcp_refuse(k, NULL, REFUSAL_UNKNOWN_TOOL, name);
		return -1;
	}
}

static void
m_tools_call(struct mcp_call *k)
{
	struct json_object	*args = json_get(k->msg.params, "arguments"), *r;
	size_t			 idx;
	int			 unavailable;

	if (mcp_tool_gate(k, &idx) != 0)
		return;
	if (args != NULL && json_is_type(args, json_type_null))
		args = NULL;
	if (args != NULL && !json_is_type(args, json_type_object)) {
		mcp_ok(k, tool_error_result("\"arguments\" must be an object"), 0);
		return;
	}
	r = tool_call(k->db, k->repos, k->cfg, k->req->budget, idx, k->who, args,
	    k->era == ERA_MODERN, &unavailable);
	if (unavailable) {
		/* In a batch this stays the element's error; alone it is the 503 answer. */
		mcp_refuse(k, NULL, REFUSAL_UNAVAILABLE);
		return;
	}
	mcp_ok(k, r, 0);
}

#define B_LEGACY	(1u << ERA_LEGACY)
#define B_MODERN	(1u << ERA_MODERN)
static const struct mcp_method mcp_methods[] = {
	{ "initialize", m_initialize, B_LEGACY },
	{ "ping", m_ping, B_LEGACY },
	{ "prompts/get", m_prompts_get, B_LEGACY | B_MODERN },
	{ "prompts/list", m_prompts_list, B_LEGACY | B_MODERN },
	{ "resources/list", m_resources_list, B_LEGACY | B_MODERN },
	{ "resources/read", m_resources_read, B_LEGACY | B_MODERN },
	{ "resources/templates/list", m_templates_list, B_LEGACY | B_MODERN },
	{ "server/discover", m_discover, B_MODERN },
	{ "tools/call", m_tools_call, B_LEGACY | B_MODERN },
	{ "tools/list", m_tools_list, B_LEGACY | B_MODERN },
};

const struct mcp_method *
mcp_method_find(const char *name, enum mcp_era era)
{
	size_t	i;

	for (i = 0; i < sizeof(mcp_methods) / sizeof(mcp_methods[0]); i++)
		if (strcmp(mcp_methods[i].name, name) == 0)
			return (mcp_methods[i].eras & (1u << era)) ? &mcp_methods[i] : NULL;
	return NULL;
}
