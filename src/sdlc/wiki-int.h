/* wiki-int: the sdlc-wiki tools kept beside wiki.c (wiki_page.c, wiki_attachment.c). */
#ifndef FM_SDLC_WIKI_INT_H
#define FM_SDLC_WIKI_INT_H
#include <json-c/json.h>

struct sdlc_ctx;

#define WIKI_PIECE	20000	/* characters of a page an answer shows at most */

int	wiki_tree_tool(struct sdlc_ctx *ctx, struct json_object *args);
int	wiki_page_tool(struct sdlc_ctx *ctx, struct json_object *args);
int	wiki_search_tool(struct sdlc_ctx *ctx, struct json_object *args);
int	wiki_attachment_tool(struct sdlc_ctx *ctx, struct json_object *args);
/* "?project=<label escaped>" of the session into a new string; NULL when out of memory. */
char	*wiki_q(struct sdlc_ctx *ctx);

#endif
