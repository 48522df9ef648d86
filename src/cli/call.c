/*
 * call: `forgemcp call`, one tool call for a runbook: KEY=VALUE arguments
 * typed from the tool's input schema (one tools/list first, so an integer
 * argument is sent as an integer and a wrong one is refused before anything
 * runs), the result on stdout and an exit status a script can branch on
 * (enum call_exit).  It needs no configuration file and no database: only
 * the URL and the token, which never comes from the command line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "cli/call.h"
#include "cli/cli.h"
#include "json.h"

#define CALL_TIMEOUT_DEFAULT	60
#define CALL_TIMEOUT_MAX	3600
#define CALL_TOKEN_MAX		1024
#define CALL_FILE_MAX		(64L * 1024 * 1024)

static void
call_usage(FILE *f)
{
	fprintf(f,
	    "usage: forgemcp call [OPTIONS] TOOL [KEY=VALUE | KEY=@FILE | KEY:=JSON]...\n"
	    "       forgemcp call [OPTIONS] --list\n"
	    "       forgemcp call [OPTIONS] TOOL --help\n"
	    "\n"
	    "Calls one tool of an MCP endpoint over HTTP and prints its result, as JSON, on\n"
	    "stdout. The token comes from FORGEMCP_TOKEN or from --token-file, never from the\n"
	    "command line (every user of the host sees it in the process list); with neither\n"
	    "the request carries no token.\n"
	    "\n"
	    "  --url URL          the endpoint (default $FORGEMCP_URL)\n"
	    "  --token-file FILE  the token: one line, in a file other users cannot read\n"
	    "  --legacy           speak the 2025-06-18 protocol instead of 2026-07-28\n"
	    "  --timeout SECONDS  give up after SECONDS per request (default %d, at most %d)\n"
	    "  --text             print the result's text blocks instead of its JSON\n"
	    "  --list             print the tools, name and title tab-separated\n"
	    "\n"
	    "Arguments are typed from the tool's input schema: KEY=VALUE is an integer, number\n"
	    "or boolean where the schema says so and a string otherwise; KEY=@FILE is the\n"
	    "text of FILE (@- reads stdin); KEY:=JSON is the JSON as written (arrays and\n"
	    "objects), and KEY:=@FILE the JSON in FILE.\n"
	    "\n"
	    "Exit status: 0 the tool answered; 1 it answered with isError (the result is\n"
	    "printed all the same); 2 a usage error, an unknown tool or argument, a value\n"
	    "that is not of its type; 3 no answer, an HTTP error, a redirect (never\n"
	    "followed) or a protocol error; 4 refused (HTTP 401 or 403); 5 rate limited,\n"
	    "with the wait on stderr.\n",
	    CALL_TIMEOUT_DEFAULT, CALL_TIMEOUT_MAX);
}

/* Prints "forgemcp: <message>" on stderr; returns CALL_USAGE (its own hint, unlike cli_usage). */
static int __attribute__((format(printf, 1, 2)))
call_refuse(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	cli_vsay(fmt, ap);
	va_end(ap);
	return CALL_USAGE;
}

/* Prints s with every control character as a space, so a listing stays one line a tool. */
static void
call_put_line(const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		putchar((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s);
}

/* The whole of FILE ("-": stdin) into *out, NUL-terminated (caller frees); CALL_USAGE on failure. */
static int
call_read_file(char **out, size_t *lenp, const char *key, const char *path)
{
	FILE	*f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char	*buf = NULL, *p;
	size_t	 len = 0, cap = 0, n;
	int	 rc = CALL_USAGE;

	*out = NULL;
	if (f == NULL) {
		return call_refuse("argument '%s': cannot read '%s': %s", key, path, strerror(errno));
	}
	for (;;) {
		if (len + 65536 + 1 > cap) {
			cap = cap == 0 ? 65536 + 1 : cap * 2;
			if ((p = realloc(buf, cap)) == NULL) {
				cli_fail("out of memory");
				goto done;
			}
			buf = p;
		}
		n = fread(buf + len, 1, 65536, f);
		len += n;
		if (len > (size_t)CALL_FILE_MAX) {
			call_refuse("argument '%s': '%s' is larger than %ld bytes", key, path,
			    CALL_FILE_MAX);
			goto done;
		}
		if (n < 65536)
			break;
	}
	if (ferror(f)) {
		call_refuse("argument '%s': cannot read '%s'", key, path);
		goto done;
	}
	buf[len] = '\0';
	*out = buf;
	*lenp = len;
	buf = NULL;
	rc = CALL_OK;
done:
	if (f != stdin)
		fclose(f);
	free(buf);
	return rc;
}

/* The type a schema gives a property: its "type", the first that is not "null" of a list. */
static const char *
call_prop_type(struct json_object *prop)
{
	struct json_object	*t = json_get(prop, "type"), *el;
	size_t			 i;

	if (json_is_type(t, json_type_string))
		return json_object_get_string(t);
	if (json_is_type(t, json_type_array))
		for (i = 0; i < json_object_array_length(t); i++) {
			el = json_object_array_get_idx(t, i);
			if (json_is_type(el, json_type_string) &&
			    strcmp(json_object_get_string(el), "null") != 0)
				return json_object_get_string(el);
		}
	return "string";
}

/* One value of type (text len bytes) as JSON into *out; CALL_USAGE naming key when it does not fit. */
static int
call_typed(struct json_object **out, const char *key, const char *type, const char *text,
    size_t len)
{
	char		*end;
	long long	 i;
	double		 d;

	*out = NULL;
	if (strcmp(type, "string") == 0) {
		if (memchr(text, '\0', len) != NULL || !json_utf8_valid(text, len))
			return call_refuse("argument '%s': not UTF-8 text", key);
		*out = json_object_new_string_len(text, (int)len);
	} else if (strcmp(type, "integer") == 0) {
		errno = 0;
		i = strtoll(text, &end, 10);
		if (len == 0 || (text[0] != '-' && (text[0] < '0' || text[0] > '9')) ||
		    (size_t)(end - text) != len || errno != 0)
			return call_refuse("argument '%s' must be an integer, not '%.80s'", key, text);
		*out = json_object_new_int64(i);
	} else if (strcmp(type, "number") == 0) {
		errno = 0;
		d = strtod(text, &end);
		if (len == 0 || (text[0] != '-' && (text[0] < '0' || text[0] > '9')) ||
		    (size_t)(end - text) != len || errno != 0 || !isfinite(d))
			return call_refuse("argument '%s' must be a number, not '%.80s'", key, text);
		*out = json_object_new_double(d);
	} else if (strcmp(type, "boolean") == 0) {
		if (strcmp(text, "true") != 0 && strcmp(text, "false") != 0)
			return call_refuse("argument '%s' must be true or false, not '%.80s'", key, text);
		*out = json_object_new_boolean(text[0] == 't');
	} else
		return call_refuse("argument '%s' is of type %s: give it as %s:=JSON", key, type, key);
	if (*out == NULL) {
		cli_fail("out of memory");
		return CALL_PROTOCOL;
	}
	return CALL_OK;
}

/*
 * One command-line argument (KEY=VALUE, KEY=@FILE, KEY:=JSON, KEY:=@FILE)
 * added to args as schema types it.  Returns CALL_OK or CALL_USAGE.
 */
static int
call_arg(struct json_object *args, const char *tool, struct json_object *schema,
    const char *arg)
{
	struct json_object	*props = json_get(schema, "properties"), *prop, *v = NULL;
	struct json_object	*addl = json_get(schema, "additionalProperties");
	const char		*eq = strchr(arg, '='), *val;
	char			 key[128], *file = NULL;
	size_t			 klen, vlen;
	enum json_perr		 perr;
	int			 raw, rc;

	if (eq == NULL || eq == arg || (eq == arg + 1 && arg[0] == ':'))
		return call_refuse("expected KEY=VALUE, KEY=@FILE or KEY:=JSON, got '%.80s'", arg);
	raw = eq[-1] == ':';
	klen = (size_t)(eq - arg) - (raw ? 1 : 0);
	if (klen >= sizeof key)
		return call_refuse("argument name '%.80s...' is too long", arg);
	memcpy(key, arg, klen);
	key[klen] = '\0';
	val = eq + 1;
	vlen = strlen(val);
	if (json_object_object_get_ex(args, key, NULL))
		return call_refuse("argument '%s' is given twice", key);
	prop = json_get(props, key);
	if (prop == NULL && json_is_type(addl, json_type_boolean) && !json_object_get_boolean(addl))
		return call_refuse("tool '%s' has no argument '%s' ('forgemcp call %s --help' lists them)",
		    tool, key, tool);
	if (val[0] == '@') {
		if ((rc = call_read_file(&file, &vlen, key, val + 1)) != CALL_OK)
			return rc;
		val = file;
		/* a number or a flag in a file may end with a line break */
		if (!raw && strcmp(call_prop_type(prop), "string") != 0)
			while (vlen > 0 && strchr(" \t\r\n", file[vlen - 1]) != NULL)
				file[--vlen] = '\0';
	}
	if (raw) {
		v = json_parse_strict(val, vlen, &perr);
		if (v == NULL && perr != JSON_PERR_NONE) {
			rc = call_refuse("argument '%s' is not valid JSON (a string needs its quotes: "
			    "%s:='\"text\"')", key, key);
			goto done;
		}
	} else if ((rc = call_typed(&v, key, call_prop_type(prop), val, vlen)) != CALL_OK)
		goto done;
	/* json-c's add takes a NULL as the JSON null */
	json_object_object_add(args, key, v);
	rc = CALL_OK;
done:
	free(file);
	return rc;
}

/* The entry of tools (a tools/list result) named name, or NULL. */
static struct json_object *
call_find_tool(struct json_object *list, const char *name)
{
	struct json_object	*tools = json_get(list, "tools"), *t;
	const char		*n;
	size_t			 i;

	if (!json_is_type(tools, json_type_array))
		return NULL;
	for (i = 0; i < json_object_array_length(tools); i++) {
		t = json_object_array_get_idx(tools, i);
		if ((n = json_get_str(t, "name")) != NULL && strcmp(n, name) == 0)
			return t;
	}
	return NULL;
}

/* --list: one line a tool, its name and title. */
static void
call_print_list(struct json_object *list)
{
	struct json_object	*tools = json_get(list, "tools"), *t;
	const char		*title;
	size_t			 i;

	for (i = 0; json_is_type(tools, json_type_array) && i < json_object_array_length(tools);
	    i++) {
		t = json_object_array_get_idx(tools, i);
		if ((title = json_get_str(t, "title")) == NULL)
			title = json_get_str(json_get(t, "annotations"), "title");
		call_put_line(json_get_str(t, "name"));
		putchar('\t');
		call_put_line(title != NULL ? title : "");
		putchar('\n');
	}
}

/* Whether the schema's "required" list names key. */
static int
call_required(struct json_object *schema, const char *key)
{
	struct json_object	*req = json_get(schema, "required"), *el;
	size_t			 i;

	for (i = 0; json_is_type(req, json_type_array) && i < json_object_array_length(req); i++) {
		el = json_object_array_get_idx(req, i);
		if (json_is_type(el, json_type_string) && strcmp(json_object_get_string(el), key) == 0)
			return 1;
	}
	return 0;
}

/* TOOL --help: the tool's title, description and arguments from its schema. */
static void
call_print_tool(struct json_object *tool)
{
	struct json_object	*schema = json_get(tool, "inputSchema");
	struct json_object	*props = json_get(schema, "properties"), *en, *def;
	const char		*type, *title = json_get_str(tool, "title");
	size_t			 i;

	fputs("usage: forgemcp call ", stdout);
	call_put_line(json_get_str(tool, "name"));
	fputs(" [KEY=VALUE]...\n\n", stdout);
	if (title != NULL) {
		call_put_line(title);
		fputs(": ", stdout);
	}
	call_put_line(json_get_str(tool, "description"));
	fputs("\n\nArguments:\n", stdout);
	if (!json_is_type(props, json_type_object) || json_object_object_length(props) == 0)
		fputs("  (none)\n", stdout);
	else {
		json_object_object_foreach(props, key, prop) {
			type = call_prop_type(prop);
			fputs("  ", stdout);
			call_put_line(key);
			fputs(strcmp(type, "object") == 0 || strcmp(type, "array") == 0 ?
			    ":=JSON (" : "=VALUE (", stdout);
			call_put_line(type);
			if (call_required(schema, key))
				fputs(", required", stdout);
			if ((def = json_get(prop, "default")) != NULL) {
				fputs(", default ", stdout);
				call_put_line(json_object_to_json_string_ext(def,
				    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
			}
			fputs(")", stdout);
			if (json_is_type(en = json_get(prop, "enum"), json_type_array)) {
				fputs(" one of:", stdout);
				for (i = 0; i < json_object_array_length(en); i++) {
					putchar(' ');
					call_put_line(json_object_to_json_string_ext(
					    json_object_array_get_idx(en, i), JSON_C_TO_STRING_PLAIN));
				}
			}
			fputs("\n      ", stdout);
			call_put_line(json_get_str(prop, "description"));
			putchar('\n');
		}
	}
}

/* The result on stdout: its JSON, or with text its text blocks. */
static void
call_print_result(struct json_object *result, int text)
{
	struct json_object	*content = json_get(result, "content"), *c;
	const char		*s = NULL;
	size_t			 i, n;

	if (!text) {
		puts(json_object_to_json_string_ext(result, JSON_C_TO_STRING_PRETTY |
		    JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
		return;
	}
	for (i = 0; json_is_type(content, json_type_array) && i < json_object_array_length(content);
	    i++) {
		c = json_object_array_get_idx(content, i);
		if (!json_is_type(json_get(c, "text"), json_type_string))
			continue;
		s = json_object_get_string(json_get(c, "text"));
		n = (size_t)json_object_get_string_len(json_get(c, "text"));
		fwrite(s, 1, n, stdout);
		if (n > 0 && s[n - 1] != '\n')
			putchar('\n');
	}
}

/* The first text block of an isError result on stderr, for the runbook's log. */
static void
call_say_tool_error(const char *tool, struct json_object *result)
{
	struct json_object	*c = json_object_array_get_idx(json_get(result, "content"), 0);
	const char		*s = json_get_str(c, "text");
	size_t			 i;

	fprintf(stderr, "forgemcp: tool '%s' answered with an error", tool);
	if (s != NULL) {
		fputs(": ", stderr);
		for (i = 0; s[i] != '\0' && i < 400; i++)
			fputc((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i], stderr);
	}
	fputc('\n', stderr);
}

/* The token from --token-file or FORGEMCP_TOKEN into *out (NULL: none; caller wipes and frees). */
static int
call_token(char **out, const char *file)
{
	const char	*env = getenv("FORGEMCP_TOKEN"), *p;

	*out = NULL;
	if (file != NULL) {
		if (cli_token_file(out, file) != 0)
			return CALL_USAGE;
	} else if (env != NULL && env[0] != '\0' && (*out = strdup(env)) == NULL) {
		cli_fail("out of memory");
		return CALL_PROTOCOL;
	}
	for (p = *out; p != NULL && *p != '\0'; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
			return cli_usage("the token holds a character a header cannot carry");
	if (*out != NULL && strlen(*out) > CALL_TOKEN_MAX)
		return cli_usage("the token is longer than %d bytes", CALL_TOKEN_MAX);
	return CALL_OK;
}

/* Whether name can go in the Mcp-Name header as it is. */
static int
call_plain_name(const char *name)
{
	for (; *name != '\0'; name++)
		if ((unsigned char)*name <= 0x20 || (unsigned char)*name >= 0x7f)
			return 0;
	return 1;
}

int
cli_call(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "token", optional_argument, NULL, 'T' },	/* refused, to say why */
		{ "token-file", required_argument, NULL, 'f' },
		{ "legacy", no_argument, NULL, 'l' },
		{ "timeout", required_argument, NULL, 't' },
		{ "text", no_argument, NULL, 'x' },
		{ "list", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct call_conn	 conn;
	struct json_object	*list = NULL, *tool, *schema, *params = NULL, *args = NULL;
	struct json_object	*result = NULL, *req;
	const char		*file = NULL, *name;
	char			*token = NULL, *end;
	long			 timeout = CALL_TIMEOUT_DEFAULT;
	int			 c, i, help = 0, listing = 0, text = 0, rc;

	(void)cli;
	memset(&conn, 0, sizeof conn);
	conn.url = getenv("FORGEMCP_URL");
	optind = 0;
	opterr = 0;
	/* options may follow the tool and its arguments (TOOL --help): getopt permutes */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
			conn.url = optarg;
			break;
		case 'T':
			return cli_usage("--token is refused: a token on the command line is shown "
			    "to every user of this host in the process list; set FORGEMCP_TOKEN "
			    "or use --token-file FILE");
		case 'f':
			file = optarg;
			break;
		case 'l':
			conn.legacy = 1;
			break;
		case 't':
			errno = 0;
			timeout = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' || timeout < 1 ||
			    timeout > CALL_TIMEOUT_MAX)
				return cli_usage("--timeout: expected seconds from 1 to %d, got '%s'",
				    CALL_TIMEOUT_MAX, optarg);
			break;
		case 'x':
			text = 1;
			break;
		case 'L':
			listing = 1;
			break;
		case 'h':
			help = 1;
			break;
		default:
			return cli_usage("unknown option '%s' for call", cli_bad_option(argv));
		}
	}
	if (help && optind == argc) {
		call_usage(stdout);
		return CALL_OK;
	}
	if (listing && optind < argc)
		return cli_usage("--list takes no tool or argument, got '%s'", argv[optind]);
	if (!listing && optind == argc)
		return cli_usage("no tool named: 'forgemcp call --list' prints them");
	if (conn.url == NULL || conn.url[0] == '\0')
		return cli_usage("no endpoint: give --url URL or set FORGEMCP_URL");
	conn.timeout = timeout;
	if ((rc = call_token(&token, file)) != CALL_OK)
		goto done;
	conn.token = token;
	if ((rc = call_http_init()) != CALL_OK)
		goto done;
	if ((rc = call_rpc(&list, &conn, "tools/list", NULL, NULL)) != CALL_OK)
		goto done_http;
	if (listing) {
		call_print_list(list);
		goto done_http;
	}
	name = argv[optind];
	if ((tool = call_find_tool(list, name)) == NULL || !call_plain_name(name)) {
		rc = call_refuse("unknown tool '%.80s': 'forgemcp call --list' prints the tools", name);
		goto done_http;
	}
	if (help) {
		call_print_tool(tool);
		goto done_http;
	}
	schema = json_get(tool, "inputSchema");
	if ((args = json_object_new_object()) == NULL || (params = json_object_new_object()) == NULL) {
		cli_fail("out of memory");
		rc = CALL_PROTOCOL;
		goto done_http;
	}
	for (i = optind + 1; i < argc; i++)
		if ((rc = call_arg(args, name, schema, argv[i])) != CALL_OK)
			goto done_http;
	req = json_get(schema, "required");
	for (i = 0; json_is_type(req, json_type_array) &&
	    (size_t)i < json_object_array_length(req); i++) {
		const char *k = json_object_get_string(json_object_array_get_idx(req, i));

		if (k != NULL && !json_object_object_get_ex(args, k, NULL)) {
			rc = call_refuse("tool '%s' needs the argument '%s'", name, k);
			goto done_http;
		}
	}
	json_object_object_add(params, "name", json_object_new_string(name));
	json_object_object_add(params, "arguments", json_object_get(args));
	if ((rc = call_rpc(&result, &conn, "tools/call", name, params)) != CALL_OK)
		goto done_http;
	call_print_result(result, text);
	if (json_is_type(json_get(result, "isError"), json_type_boolean) &&
	    json_object_get_boolean(json_get(result, "isError"))) {
		call_say_tool_error(name, result);
		rc = CALL_TOOL_ERROR;
	}
done_http:
	call_http_shutdown();
done:
	if (fflush(stdout) != 0 && rc == CALL_OK) {
		cli_fail("cannot write the result: %s", strerror(errno));
		rc = CALL_PROTOCOL;
	}
	json_object_put(result);
	json_object_put(params);
	json_object_put(args);
	json_object_put(list);
	if (token != NULL)
		explicit_bzero(token, strlen(token));
	free(token);
	return rc;
}
