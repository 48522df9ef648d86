/*
 * wiki_copy: the checks every copy of a wiki passes, whatever its source
 * (wiki-int.h): each page on its own, then the codes, parents and cycles,
 * then the root's subtree in tree order with its depth and addresses, and
 * the one transaction that makes it the project's copy or records why not.
 * The git backend and the Confluence agent's uploads call the same code,
 * so both refuse the same things with the same texts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "log.h"
#include "buf.h"
#include "core_io.h"
#include "hub/api-int.h"
#include "hub/wiki.h"
#include "hub/wiki-int.h"
#include "store/db_agent.h"
#include "store/db_batches.h"
#include "store/db_wiki.h"

void
wiki_copy_free(struct wiki_copy *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		free(c->f[i].code);
		free(c->f[i].title);
		free(c->f[i].parent_code);
		free(c->f[i].source);
	}
	for (i = 0; i < c->n_a; i++)
		free(c->a[i].source);
	for (i = 0; c->paths != NULL && i < c->n_pages; i++)
		free(c->paths[i]);
	free(c->paths);
	free(c->pages);
	free(c->atts);
	free(c->f);
	free(c->a);
	free(c->by_code);
	memset(c, 0, sizeof *c);
}

/* Whether the media type m is a plain type/subtype that fits the column. */
static int
wiki_mime_ok(const char *m)
{
	const char	*slash = strchr(m, '/');
	size_t		 n = strlen(m);

	return n > 2 && n <= WIKI_MIME_MAX && slash != NULL && slash != m && slash[1] != '\0' &&
	    strchr(slash + 1, '/') == NULL &&
	    strspn(m, "abcdefghijklmnopqrstuvwxyz0123456789!#$&^_.+-/") == n;
}

int
wiki_copy_page(struct wiki_copy *c, size_t i)
{
	struct wiki_file	*f = &c->f[i];

	if (f->body_len > WIKI_PAGE_BYTES_MAX) {
		snprintf(c->why, sizeof c->why, "%s: %zu байт, больше %u", f->name, f->body_len,
		    WIKI_PAGE_BYTES_MAX);
		return -1;
	}
	if ((c->total += f->body_len) > WIKI_TOTAL_BYTES_MAX) {
		snprintf(c->why, sizeof c->why, "%s: страниц больше %u байт в сумме", f->name,
		    WIKI_TOTAL_BYTES_MAX);
		return -1;
	}
	if (!hub_wiki_utf8_ok(f->body, f->body_len) || strlen(f->body) != f->body_len) {
		snprintf(c->why, sizeof c->why, "%s: не UTF-8 (или нулевой байт)", f->name);
		return -1;
	}
	if (f->code == NULL || !hub_wiki_code_ok(f->code)) {
		snprintf(c->why, sizeof c->why, "%s: код страницы «%.*s» — не такой, как DOC-1",
		    f->name, f->code != NULL ? hub_utf8_prefix(f->code, 100) : 0,
		    f->code != NULL ? f->code : "");
		return -1;
	}
	if (f->parent_code != NULL && f->parent_code[0] != '\0' &&
	    !hub_wiki_code_ok(f->parent_code)) {
		snprintf(c->why, sizeof c->why, "%s: parent %.*s — не код страницы", f->name,
		    hub_utf8_prefix(f->parent_code, 100), f->parent_code);
		return -1;
	}
	if (f->title == NULL || f->title[0] == '\0') {
		snprintf(c->why, sizeof c->why, "%s: нет названия", f->name);
		return -1;
	}
	if (!hub_wiki_utf8_ok(f->title, strlen(f->title)) ||
	    hub_wiki_chars(f->title) > WIKI_TITLE_MAX) {
		snprintf(c->why, sizeof c->why, "%s: название длиннее %d символов", f->name,
		    WIKI_TITLE_MAX);
		return -1;
	}
	if (f->source == NULL || !hub_wiki_utf8_ok(f->source, strlen(f->source))) {
		snprintf(c->why, sizeof c->why, "%s: адрес — не UTF-8", f->name);
		return -1;
	}
	return 0;
}

/* qsort order of the pages' indices by code (equal codes: the earlier first). */
static const struct wiki_copy *wiki_sorting;

static int
wiki_cmp_code(const void *a, const void *b)
{
	const size_t	*x = a, *y = b;
	int		 r = strcmp(wiki_sorting->f[*x].code, wiki_sorting->f[*y].code);

	return r != 0 ? r : (*x > *y) - (*x < *y);
}

size_t
wiki_copy_find(const struct wiki_copy *c, const char *code)
{
	size_t	lo = 0, hi = c->n, mid;
	int	r;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((r = strcmp(c->f[c->by_code[mid]].code, code)) == 0)
			return c->by_code[mid];
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return WIKI_NONE;
}

int
wiki_copy_link(struct wiki_copy *c,
    size_t (*parent_of)(const struct wiki_copy *c, size_t i, void *arg), void *arg)
{
	struct wiki_file	*f;
	size_t			 i, j, k;

	if ((c->by_code = calloc(c->n + 1, sizeof *c->by_code)) == NULL) {
		snprintf(c->why, sizeof c->why, "нехватка памяти");
		return -1;
	}
	for (i = 0; i < c->n; i++)
		c->by_code[i] = i;
	wiki_sorting = c;
	qsort(c->by_code, c->n, sizeof *c->by_code, wiki_cmp_code);
	wiki_sorting = NULL;
	for (k = 1; k < c->n; k++)
		if (strcmp(c->f[c->by_code[k - 1]].code, c->f[c->by_code[k]].code) == 0) {
			snprintf(c->why, sizeof c->why, "код %s у двух страниц: %s и %s",
			    c->f[c->by_code[k]].code, c->f[c->by_code[k - 1]].name,
			    c->f[c->by_code[k]].name);
			return -1;
		}
	for (i = 0; i < c->n; i++) {
		f = &c->f[i];
		f->parent = WIKI_NONE;
		f->mark = 0;
		if (f->parent_code != NULL && f->parent_code[0] != '\0') {
			if ((f->parent = wiki_copy_find(c, f->parent_code)) == WIKI_NONE) {
				snprintf(c->why, sizeof c->why, "%s: родителя %s нет среди страниц",
				    f->name, f->parent_code);
				return -1;
			}
		} else if (parent_of != NULL)
			f->parent = parent_of(c, i, arg);
	}
	for (i = 0; i < c->n; i++) {
		for (j = i; j != WIKI_NONE && c->f[j].mark == 0; j = c->f[j].parent)
			c->f[j].mark = 1;
		if (j != WIKI_NONE && c->f[j].mark == 1) {
			snprintf(c->why, sizeof c->why, "страницы образуют цикл родителей: %s (%s) — "
			    "её предок она сама", c->f[j].code, c->f[j].name);
			return -1;
		}
		for (j = i; j != WIKI_NONE && c->f[j].mark == 1; j = c->f[j].parent)
			c->f[j].mark = 2;
	}
	return 0;
}

/* The attachments of the pages kept, checked, into c->atts. */
static int
wiki_copy_atts(struct wiki_copy *c)
{
	struct wiki_file_att	*a;
	size_t			 i;

	c->n_atts = 0;
	if ((c->atts = calloc(c->n_a + 1, sizeof *c->atts)) == NULL) {
		snprintf(c->why, sizeof c->why, "нехватка памяти");
		return -1;
	}
	for (i = 0; i < c->n_a; i++) {
		a = &c->a[i];
		if (a->file >= c->n || c->f[a->file].k == WIKI_NONE)
			continue;
		if (a->name == NULL || a->name[0] == '\0' ||
		    !hub_wiki_utf8_ok(a->name, strlen(a->name)) ||
		    hub_wiki_chars(a->name) > WIKI_NAME_MAX || strchr(a->name, '/') != NULL) {
			snprintf(c->why, sizeof c->why, "%s: имя вложения %.*s — не UTF-8, пустое, "
			    "с / или длиннее %d символов", c->f[a->file].name,
			    a->name != NULL ? hub_utf8_prefix(a->name, 300) : 0,
			    a->name != NULL ? a->name : "", WIKI_NAME_MAX);
			return -1;
		}
		if (a->source == NULL || !hub_wiki_utf8_ok(a->source, strlen(a->source)) ||
		    hub_wiki_chars(a->source) > WIKI_SOURCE_MAX) {
			snprintf(c->why, sizeof c->why, "%.*s…: путь длиннее %d символов",
			    a->source != NULL ? hub_utf8_prefix(a->source, 200) : 0,
			    a->source != NULL ? a->source : "", WIKI_SOURCE_MAX);
			return -1;
		}
		c->atts[c->n_atts].page = c->f[a->file].k;
		c->atts[c->n_atts].name = a->name;
		c->atts[c->n_atts].size = a->size;
		c->atts[c->n_atts].mime = a->mime != NULL && wiki_mime_ok(a->mime) ? a->mime :
		    hub_wiki_mime(a->name);
		c->atts[c->n_atts].source = a->source;
		c->n_atts++;
	}
	return 0;
}

int
wiki_copy_order(struct wiki_copy *c, size_t root)
{
	struct wiki_page_in	*p;
	struct wiki_file	*f;
	size_t			*stack, *at, *first, *next, top = 0, i, j, k;
	struct buf		 b;
	int			 rc = -1;

	c->pages = p = calloc(c->n + 1, sizeof *p);
	c->paths = calloc(c->n + 1, sizeof *c->paths);
	stack = calloc(c->n + 1, sizeof *stack);
	at = calloc(c->n + 1, sizeof *at);
	first = calloc(c->n + 1, sizeof *first);
	next = calloc(c->n + 1, sizeof *next);
	c->n_pages = 0;
	if (p == NULL || c->paths == NULL || stack == NULL || at == NULL || first == NULL ||
	    next == NULL) {
		snprintf(c->why, sizeof c->why, "нехватка памяти");
		goto done;
	}
	/* each page's children, the last in the source's order first */
	for (i = 0; i < c->n; i++)
		first[i] = c->f[i].k = WIKI_NONE;
	for (i = 0; i < c->n; i++)
		if (c->f[i].parent != WIKI_NONE && i != root) {
			next[i] = first[c->f[i].parent];
			first[c->f[i].parent] = i;
		}
	stack[top++] = root;
	while (top > 0) {
		i = stack[--top];
		f = &c->f[i];
		k = c->n_pages++;
		at[i] = k;
		f->k = k;
		p[k].code = f->code;
		p[k].title = f->title;
		p[k].body = f->body;
		p[k].chars = hub_wiki_chars(f->body);
		p[k].parent = i == root ? k : at[f->parent];
		p[k].depth = i == root ? 0 : p[p[k].parent].depth + 1;
		if (p[k].depth > WIKI_TREE_DEPTH_MAX) {
			snprintf(c->why, sizeof c->why, "%s: глубже %d уровней от корня", f->name,
			    WIKI_TREE_DEPTH_MAX);
			goto done;
		}
		buf_init(&b);
		if (i != root)
			buf_printf(&b, "%s / ", p[p[k].parent].path);
		buf_puts(&b, f->title);
		c->paths[k] = b.data;
		p[k].path = b.data != NULL ? b.data : "";
		p[k].source = f->source;
		if (hub_wiki_chars(f->source) > WIKI_SOURCE_MAX) {
			snprintf(c->why, sizeof c->why, "%.*s…: путь длиннее %d символов",
			    hub_utf8_prefix(f->source, 200), f->source, WIKI_SOURCE_MAX);
			goto done;
		}
		/* children pushed last first, so they come out in the source's order */
		for (j = first[i]; j != WIKI_NONE; j = next[j])
			stack[top++] = j;
	}
	/* ord_end: the last place of each subtree, from the end back */
	for (k = c->n_pages; k-- > 0;)
		p[k].ord_end = (unsigned)(p[k].ord_end > k ? p[k].ord_end : k);
	for (k = c->n_pages; k-- > 1;)
		if (p[p[k].parent].ord_end < p[k].ord_end)
			p[p[k].parent].ord_end = p[k].ord_end;
	rc = wiki_copy_atts(c);
done:
	free(stack);
	free(at);
	free(first);
	free(next);
	return rc;
}

/* The answer to the agent: {command, state, error, pages}. */
static void
wiki_copy_answer(struct core_response *resp, uint64_t id, const char *error, size_t pages)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "command", json_object_new_uint64(id));
	json_object_object_add(o, "state", json_object_new_string(error == NULL ? "done" :
	    "failed"));
	json_object_object_add(o, "error", error != NULL ? json_object_new_string(error) : NULL);
	json_object_object_add(o, "pages", json_object_new_uint64(pages));
	core_response_json(resp, 200, o);
}

void
wiki_copy_finish(struct db *db, struct core_response *resp, uint64_t id, uint64_t handout,
    enum hub_ask ask, const char *label, const char *root, const char *revision,
    const struct wiki_copy *c, const char *why)
{
	struct tracker_handout	 h = { handout, 0, "" };
	char			 text[800];
	size_t			 n = 0;
	struct err		 e;
	int			 rc = 0;

	err_clear(&e);
	text[0] = '\0';
	if (why != NULL)
		snprintf(text, sizeof text, "%s", why);
	else if ((rc = wiki_load(db, id, &h, label, root, revision, c->pages, c->n_pages, c->atts,
	    c->n_atts, &e)) == ERR_CONFLICT)
		snprintf(text, sizeof text, "копия изменилась во время синхронизации (сменился "
		    "корень вики или запись столкнулась с другой); ничего не записано, повторите sync");
	else if (rc == 0)
		n = c->n_pages;
	if (text[0] != '\0') {
		n = 0;
		rc = wiki_sync_failed(db, id, &h, label, root, text, &e);
	}
	if (rc == ERR_INVALID && hub_agent_refused(resp, ask, id, &h))
		return;
	if (rc != 0)
		hub_failed(resp, rc, &e);
	else {
		log_info("hub: wiki sync of %s (command %llu): %s", label, (unsigned long long)id,
		    text[0] != '\0' ? text : "done");
		wiki_copy_answer(resp, id, text[0] != '\0' ? text : NULL, n);
	}
}

/* A front matter value: spaces trimmed, one pair of quotes removed; a new string. */
static char *
wiki_value(const char *s, size_t n)
{
	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0])
		s++, n -= 2;
	return strndup(s, n);
}

int
hub_wiki_front(struct wiki_file *f, const char *data, char *why, size_t len)
{
	const char	*p, *eol, *colon, *base;
	char		**slot;

	if (strncmp(data, "---\n", 4) != 0 && strncmp(data, "---\r\n", 5) != 0)
		return 0;
	for (p = strchr(data, '\n') + 1; *p != '\0'; p = eol + 1) {
		eol = strchr(p, '\n');
		if (strncmp(p, "---", 3) == 0 && (p[3] == '\n' || p[3] == '\r' || p[3] == '\0')) {
			/* the closing line; the last of the file when nothing follows */
			f->body = eol != NULL ? eol + 1 : p + 3 + (p[3] == '\r');
			break;
		}
		if (eol == NULL)
			break;
		if ((colon = memchr(p, ':', (size_t)(eol - p))) == NULL)
			continue;
		slot = (colon - p == 4 && strncmp(p, "code", 4) == 0) ? &f->code :
		    (colon - p == 5 && strncmp(p, "title", 5) == 0) ? &f->title :
		    (colon - p == 6 && strncmp(p, "parent", 6) == 0) ? &f->parent_code : NULL;
		if (slot == NULL)
			continue;
		free(*slot);
		if ((*slot = wiki_value(colon + 1, (size_t)(eol - colon - 1))) == NULL) {
			snprintf(why, len, "нехватка памяти");
			return -1;
		}
	}
	if (f->body == NULL) {
		snprintf(why, len, "%s: front matter не закрыта строкой ---", f->name);
		return -1;
	}
	f->body_len = strlen(f->body);
	if (f->code == NULL || !hub_wiki_code_ok(f->code)) {
		snprintf(why, len, "%s: в front matter нет кода страницы (code: DOC-1)%s%s",
		    f->name, f->code != NULL ? " или он не такой: " : "", f->code != NULL ? f->code : "");
		return -1;
	}
	if (f->parent_code != NULL && f->parent_code[0] != '\0' && !hub_wiki_code_ok(f->parent_code)) {
		snprintf(why, len, "%s: parent %s — не код страницы", f->name, f->parent_code);
		return -1;
	}
	if (f->title == NULL || f->title[0] == '\0') {
		free(f->title);
		base = strrchr(f->name, '/') != NULL ? strrchr(f->name, '/') + 1 : f->name;
		f->title = strndup(base, strlen(base) - 3);
	}
	if (f->title == NULL || hub_wiki_chars(f->title) > WIKI_TITLE_MAX) {
		snprintf(why, len, "%s: название длиннее %d символов", f->name, WIKI_TITLE_MAX);
		return -1;
	}
	return 1;
}

int
hub_wiki_command(struct db *db, uint64_t id, struct json_object **cmd, const char **label,
    const char **type, struct core_response *resp)
{
	struct err	 e;
	int		 rc;

	*label = *type = NULL;
	err_clear(&e);
	if ((rc = tracker_command_get(db, cmd, id, &e)) == ERR_NOTFOUND) {
		hub_agent_not_claimed(resp, id, "");
		return -1;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return -1;
	}
	*label = json_object_get_string(json_object_object_get(*cmd, "project"));
	*type = json_object_get_string(json_object_object_get(json_object_object_get(*cmd,
	    "command"), "type"));
	return 0;
}
