/* notify: who hears of an event (mentions, comments on their items) and marking the inbox read. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "err.h"
#include "service/service.h"
#include "store/forge.h"

#define LOGIN_MAX	64	/* logins are [A-Za-z0-9][A-Za-z0-9_.-]{0,63} (user add) */
#define MISS_SLOTS	512	/* code span lengths remembered as unclosed in a paragraph */

void
notify_event_init(struct notify_event *ev, uint64_t repo_id, enum forge_kind kind,
    uint64_t parent_id, uint64_t actor_id, uint64_t comment_id)
{
	memset(ev, 0, sizeof *ev);
	ev->repo_id = repo_id;
	ev->kind = kind;
	ev->parent_id = parent_id;
	ev->actor_id = actor_id;
	ev->comment_id = comment_id;
}

void
notify_event_release(struct notify_event *ev)
{
	if (ev == NULL)
		return;
	free(ev->told);
	ev->told = NULL;
	ev->n_told = ev->cap_told = 0;
}

static int
told_already(const struct notify_event *ev, uint64_t user_id)
{
	size_t	 i;

	for (i = 0; i < ev->n_told; i++)
		if (ev->told[i] == user_id)
			return 1;
	return 0;
}

static int
told_add(struct notify_event *ev, uint64_t user_id, struct err *e)
{
	uint64_t	*v;
	size_t		 cap;

	if (ev->n_told == ev->cap_told) {
		cap = ev->cap_told == 0 ? 8 : ev->cap_told * 2;
		if ((v = realloc(ev->told, cap * sizeof *v)) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		ev->told = v;
		ev->cap_told = cap;
	}
	ev->told[ev->n_told++] = user_id;
	return 0;
}

int
notify_one(struct db *db, struct notify_event *ev, uint64_t user_id, enum forge_reason reason,
    struct err *e)
{
	uint64_t	 id;
	int		 rc;

	if (user_id == 0 || user_id == ev->actor_id || told_already(ev, user_id))
		return 0;
	if ((rc = told_add(ev, user_id, e)) != 0)
		return rc;
	return forge_notification_insert(db, &id, user_id, reason, ev->repo_id, ev->kind,
	    ev->parent_id, ev->actor_id, ev->comment_id, e);
}

/* ---- finding @login in Markdown ---- */

static void
blank_range(char *s, size_t from, size_t to)
{
	for (; from < to; from++)
		if (s[from] != '\n')
			s[from] = ' ';
}

/*
 * The length of the fence (three or more ` or ~ after at most three
 * spaces) that line opens, 0 when it is no fence; *ch receives its
 * character and *rest where the info string starts.
 */
static size_t
fence_at(const char *line, char *ch, const char **rest)
{
	const char	*p = line;
	size_t		 n = 0;

	while (p - line < 3 && *p == ' ')
		p++;
	if (*p != '`' && *p != '~')
		return 0;
	*ch = *p;
	while (p[n] == *ch)
		n++;
	*rest = p + n;
	return n >= 3 ? n : 0;
}

/* Whether the rest of a line (up to '\n' or the end) holds only blanks. */
static int
rest_blank(const char *p)
{
	for (; *p != '\0' && *p != '\n'; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r')
			return 0;
	return 1;
}

/* Blanks fenced code blocks, fence lines included; an unclosed fence runs to the end. */
static void
blank_fences(char *s)
{
	const char	*rest;
	size_t		 at = 0, end, open = 0, n;
	char		 och = 0, ch;

	while (s[at] != '\0') {
		for (end = at; s[end] != '\0' && s[end] != '\n'; end++)
			;
		n = fence_at(s + at, &ch, &rest);
		if (open != 0) {
			if (n >= open && ch == och && rest_blank(rest))
				open = 0;
			blank_range(s, at, end);
		} else if (n != 0 && (ch == '~' || memchr(rest, '`', (size_t)(s + end - rest)) ==
		    NULL)) {
			open = n;
			och = ch;
			blank_range(s, at, end);
		}
		at = s[end] == '\n' ? end + 1 : end;
	}
}

/*
 * Blanks code spans: a run of N backticks up to the next run of exactly N
 * in the same paragraph (up to a blank line).  A run with no partner is
 * plain text; a run after a backslash opens nothing.  miss remembers the
 * run lengths known to have no partner before a paragraph's end, so a
 * text of many lone backticks stays linear.
 */
static void
blank_spans(char *s)
{
	struct { size_t len, until; } miss[MISS_SLOTS];
	size_t	 n_miss = 0, i = 0, j, k, n, m;
	int	 known;

	while (s[i] != '\0') {
		if (s[i] != '`') {
			i++;
			continue;
		}
		for (n = 0; s[i + n] == '`'; n++)
			;
		if (i > 0 && s[i - 1] == '\\') {
			i += n;
			continue;
		}
		for (known = 0, k = 0; k < n_miss && !known; k++)
			known = miss[k].len == n && miss[k].until > i;
		for (j = i + n, m = 0; !known && s[j] != '\0'; j += m > 0 ? m : 1) {
			m = 0;
			if (s[j] == '\n' && rest_blank(s + j + 1))
				break;
			while (s[j + m] == '`')
				m++;
			if (m == n)
				break;
		}
		if (!known && m == n) {
			blank_range(s, i, j + n);
			i = j + n;
			continue;
		}
		if (!known) {
			if (n_miss == MISS_SLOTS)
				n_miss = 0;	/* forget; searching again is only slower */
			miss[n_miss].len = n;
			miss[n_miss].until = j;
			n_miss++;
		}
		i += n;
	}
}

static int
login_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == '.' || c == '-';
}

static int
alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * Whether c, just before '@', makes it part of a word, an address or a
 * path rather than a mention: "a@b.c", "x.y+z@host", "/@name", "a=@b".
 */
static int
glued(char c)
{
	return alnum(c) || (unsigned char)c >= 0x80 || strchr("_.+-=/\\&%~@", c) != NULL;
}

/* A mention found in a text: the login as written, and the login trimmed of ".", "-", "_". */
struct mention {
	char	 full[LOGIN_MAX + 1];
	char	 trimmed[LOGIN_MAX + 1];	/* "" when the same as full */
};

/*
 * The distinct mentions of text (at most NOTIFY_MENTIONS_MAX, compared
 * ignoring case as logins are), outside code.  A mention is "@" not glued
 * to what comes before, then [A-Za-z0-9][A-Za-z0-9_.-]* not followed by
 * another "@".  *out is freed by the caller.
 */
static int
mentions_find(struct mention **out, size_t *n, const char *text, struct err *e)
{
	struct mention	*v = NULL;
	char		*s = NULL;
	size_t		 i, len, k, cut;
	int		 rc = 0;

	*out = NULL;
	*n = 0;
	if (text == NULL || strchr(text, '@') == NULL)
		return 0;
	if ((s = strdup(text)) == NULL ||
	    (v = calloc(NOTIFY_MENTIONS_MAX, sizeof *v)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	blank_fences(s);
	blank_spans(s);
	for (i = 0; s[i] != '\0' && *n < NOTIFY_MENTIONS_MAX; i++) {
		if (s[i] != '@' || (i > 0 && glued(s[i - 1])) || !alnum(s[i + 1]))
			continue;
		for (len = 1; login_char(s[i + 1 + len]); len++)
			;
		if (s[i + 1 + len] == '@') {
			i += len;
			continue;
		}
		for (cut = len; cut > 0 && !alnum(s[i + cut]); cut--)
			;
		if (cut > LOGIN_MAX) {
			i += len;
			continue;
		}
		for (k = 0; k < *n; k++)
			if (strncasecmp(v[k].full, s + i + 1, len) == 0 && v[k].full[len] == '\0')
				break;
		if (k == *n) {
			if (len <= LOGIN_MAX)
				memcpy(v[k].full, s + i + 1, len);
			if (cut != len)
				memcpy(v[k].trimmed, s + i + 1, cut);
			(*n)++;
		}
		i += len;
	}
	*out = v;
	v = NULL;
done:
	free(v);
	free(s);
	return rc;
}

/* notify_mentions (store 1) and notify_mentions_known (store 0). */
static int
mentions_each(struct db *db, struct notify_event *ev, const char *text, int store,
    struct err *e)
{
	struct mention	*v = NULL;
	uint64_t	 user;
	size_t		 n = 0, i;
	int		 rc;

	if ((rc = mentions_find(&v, &n, text, e)) != 0)
		return rc;
	for (i = 0; i < n; i++) {
		user = 0;
		if (v[i].full[0] != '\0' &&
		    (rc = forge_user_id(db, &user, v[i].full, e)) != 0)
			break;
		if (user == 0 && v[i].trimmed[0] != '\0' &&
		    (rc = forge_user_id(db, &user, v[i].trimmed, e)) != 0)
			break;
		if (user == 0)
			continue;
		if (store)
			rc = notify_one(db, ev, user, FORGE_REASON_MENTION, e);
		else if (!told_already(ev, user))
			rc = told_add(ev, user, e);
		if (rc != 0)
			break;
	}
	free(v);
	return rc;
}

int
notify_mentions(struct db *db, struct notify_event *ev, const char *text, struct err *e)
{
	return mentions_each(db, ev, text, 1, e);
}

int
notify_mentions_known(struct db *db, struct notify_event *ev, const char *text,
    struct err *e)
{
	return mentions_each(db, ev, text, 0, e);
}

int
notify_opened(struct db *db, uint64_t repo_id, enum forge_kind kind, uint64_t parent_id,
    uint64_t actor_id, const char *body, struct err *e)
{
	struct notify_event	 ev;
	int			 rc;

	notify_event_init(&ev, repo_id, kind, parent_id, actor_id, 0);
	rc = notify_mentions(db, &ev, body, e);
	notify_event_release(&ev);
	return rc;
}

int
notify_commented(struct db *db, uint64_t repo_id, enum forge_kind kind, uint64_t parent_id,
    uint64_t actor_id, uint64_t comment_id, const char *body, struct err *e)
{
	struct notify_event	 ev;
	uint64_t		 author = 0;
	int			 rc;

	notify_event_init(&ev, repo_id, kind, parent_id, actor_id, comment_id);
	if ((rc = notify_mentions(db, &ev, body, e)) == 0 &&
	    (rc = forge_item_author(db, &author, kind, parent_id, e)) == 0)
		rc = notify_one(db, &ev, author, FORGE_REASON_COMMENT, e);
	notify_event_release(&ev);
	return rc;
}

/* ---- marking read ---- */

struct mark_tx {
	uint64_t	 user_id, id, changed;
};

static int
mark_tx(struct db *db, void *arg, struct err *e)
{
	struct mark_tx	*t = arg;

	return forge_notification_mark(db, &t->changed, t->user_id, t->id, e);
}

int
notify_mark_read(struct db *db, uint64_t *marked, int64_t *unread, uint64_t user_id,
    uint64_t id, struct err *e)
{
	struct mark_tx	 t;
	int		 rc;

	*marked = 0;
	*unread = 0;
	memset(&t, 0, sizeof t);
	t.user_id = user_id;
	t.id = id;
	if ((rc = service_transaction(db, mark_tx, &t, e)) != 0)
		return rc;
	*marked = t.changed;
	return forge_notification_unread(db, unread, user_id, e);
}
