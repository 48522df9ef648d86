/* schema: a JSON Schema (2020-12 subset) validator for tool arguments. */
#ifndef FM_SCHEMA_H
#define FM_SCHEMA_H
#include <stddef.h>
#include <json-c/json.h>

struct err;
struct schema;

/*
 * Compiles schema text.  Supported keywords: type (string or array),
 * properties, required, additionalProperties (bool or schema), items,
 * enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
 * minLength, maxLength (in code points), pattern (pcre2), minItems,
 * maxItems, uniqueItems, anyOf/oneOf, and the annotations title,
 * description, default, examples, $schema, format.  Any other keyword is
 * refused so a schema never promises a check the gate does not make.
 * Returns 0 or ERR_CONFIG with the problem in e.
 */
int	schema_compile(struct schema **out, const char *text, struct err *e);
void	schema_free(struct schema *s);
/* The parsed schema document, as served by tools/list (borrowed). */
struct json_object *schema_json(const struct schema *s);
/*
 * Validates instance.  Returns 0, or -1 with a message a model can act on
 * written into msg, e.g. "argument 'limit' must be at most 100" or
 * "missing required argument 'repo'" or "unknown argument 'foo'".
 * String values with an embedded NUL are refused.
 */
int	schema_validate(const struct schema *s, struct json_object *instance, char *msg, size_t msglen);

#endif
