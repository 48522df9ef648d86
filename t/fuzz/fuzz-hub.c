/* fuzz-hub: the sdlc hub's batch checker (the command registry), what POST /hub/batches trusts. */
#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "hub/commands.h"
#include "json.h"

/*
 * The input is a flags byte, then a JSON text: the commands of a batch.
 * Bit 0 binds the batch to the project AURORA (else it has none), bit 1
 * gives that project a board.  The known labels are AURORA and OTHER; the
 * own issues of AURORA are the keys AURORA-<n>.  Whatever the commands, the
 * checker either refuses them with a text (valid UTF-8, for a 422), or
 * returns 1 to HUB_BATCH_MAX commands of registry types ending with a
 * refresh, with a positive estimate; bound to AURORA, every ensure_issue
 * carries its label and no other project's, every `key` is AURORA's or a
 * new:<n> the batch makes before, and a command that needs a board has it.
 */
static int
fuzz_own(void *arg, const char *key)
{
	(void)arg;
	return strncmp(key, "AURORA-", 7) == 0 && key[7] >= '1' && key[7] <= '9';
}

static int
fuzz_has(struct json_object *a, const char *s)
{
	size_t	i;

	for (i = 0; a != NULL && i < json_object_array_length(a); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(a, i)), s) == 0)
			return 1;
	return 0;
}

static void
fuzz_batch_ok(const struct hub_batch_ctx *ctx, struct json_object *out, double estimate)
{
	struct json_object	*cmd, *last, *labels, *v;
	const char		*type, *key;
	size_t			 i, n;

	FUZZ_ASSERT(json_object_is_type(out, json_type_array));
	n = json_object_array_length(out);
	FUZZ_ASSERT(n >= 1 && n <= HUB_BATCH_MAX);
	FUZZ_ASSERT(estimate > 0);
	last = json_object_array_get_idx(out, n - 1);
	FUZZ_ASSERT(strcmp(json_object_get_string(json_object_object_get(last, "type")),
	    "refresh") == 0);
	for (i = 0; i < n; i++) {
		cmd = json_object_array_get_idx(out, i);
		FUZZ_ASSERT(json_object_is_type(cmd, json_type_object));
		type = json_object_get_string(json_object_object_get(cmd, "type"));
		FUZZ_ASSERT(type != NULL && hub_command_seconds(type) > 0);
		if (ctx->project == NULL)
			continue;
		labels = json_object_object_get(cmd, "labels");
		if (strcmp(type, "ensure_issue") == 0) {
			FUZZ_ASSERT(fuzz_has(labels, "AURORA"));
			FUZZ_ASSERT(!fuzz_has(labels, "OTHER"));
		}
		if (json_object_object_get_ex(cmd, "key", &v)) {
			key = json_object_get_string(v);
			FUZZ_ASSERT(fuzz_own(NULL, key) || strncmp(key, "new:", 4) == 0);
		}
		if (strncmp(type, "ensure_sprint", 13) == 0)
			FUZZ_ASSERT(json_object_object_get_ex(cmd, "board_id", &v) &&
			    json_object_get_uint64(v) == ctx->board_id && ctx->board_id != 0);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hub_batch_ctx	 ctx;
	struct json_object	*commands, *out;
	enum json_perr		 perr;
	double			 estimate = -1;
	char			 msg[512];

	if (size == 0)
		return 0;
	memset(&ctx, 0, sizeof ctx);
	ctx.project = (data[0] & 1) ? "AURORA" : NULL;
	ctx.board_id = (data[0] & 2) ? 5120 : 0;
	ctx.labels = json_object_new_array();
	json_object_array_add(ctx.labels, json_object_new_string("AURORA"));
	json_object_array_add(ctx.labels, json_object_new_string("OTHER"));
	ctx.own = fuzz_own;
	if ((commands = json_parse_strict((const char *)data + 1, size - 1, &perr)) == NULL) {
		json_object_put(ctx.labels);
		return 0;
	}
	msg[0] = '\0';
	out = hub_batch_check(&ctx, commands, &estimate, msg, sizeof msg);
	if (out == NULL) {
		FUZZ_ASSERT(msg[0] != '\0' && strlen(msg) < sizeof msg);
		FUZZ_ASSERT(json_utf8_valid(msg, strlen(msg)));
	} else
		fuzz_batch_ok(&ctx, out, estimate);
	json_object_put(out);
	json_object_put(commands);
	json_object_put(ctx.labels);
	return 0;
}
