/*
 * jira_attachments: the card's «вложения» and «файлы:» lines, and the
 * `attachment` tool: the attachment found in the card by number or name,
 * the hub asked for its copy (POST /attachments/{id}/fetch, a
 * fetch_attachment command for the agent unless the copy is ready or on
 * its way), waited for (a GET every 2 s, at most wait_seconds), and
 * written under <data directory>/downloads/<id>/<name> (sdlc_download);
 * and batch_create's ensure_attachment {path}: the local file checked,
 * read and uploaded (POST /files and its parts) before the batch is queued.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include <openssl/evp.h>

#include "buf.h"
#include "sdlc/jira-int.h"
#include "sdlc/sdlc.h"

#define ATT_WAIT_DEFAULT	120	/* seconds */
#define ATT_POLL		2	/* seconds between two looks */
#define ATT_COPY_MAX		(10u * 1024 * 1024)
#define ATT_PART		22500	/* bytes of an upload's part: 30,000 base64 characters */

static uint64_t
att_size(struct json_object *a)
{
	return (uint64_t)json_object_get_int64(json_object_object_get(a, "size"));
}

/* A size as the card writes it; «размер неизвестен» when the tracker did not say. */
static void
att_size_text(struct buf *out, struct json_object *a)
{
	if (json_object_object_get(a, "size") == NULL)
		buf_puts(out, "размер неизвестен");
	else
		sdlc_size(out, att_size(a));
}

void
jira_card_files(struct buf *out, struct json_object *it, const char *comment)
{
	struct json_object	*all = sdlc_array(it, "attachments"), *a, *refs;
	const char		*ref;
	size_t			 i, j, n = 0;

	for (i = 0; i < json_object_array_length(all); i++) {
		a = json_object_array_get_idx(all, i);
		refs = sdlc_array(a, "comments");
		for (j = 0; j < json_object_array_length(refs); j++)
			if ((ref = json_object_get_string(json_object_array_get_idx(refs, j))) !=
			    NULL && strcmp(ref, comment) == 0) {
				buf_printf(out, "%s#%s %s", n++ ? ", " : "\nфайлы: ",
				    sdlc_str(a, "id", ""), sdlc_str(a, "name", ""));
				break;
			}
	}
}

void
jira_card_attachments(struct buf *out, struct json_object *it)
{
	struct json_object	*all = sdlc_array(it, "attachments"), *a, *refs;
	size_t			 i, j, n = json_object_array_length(all);

	if (n == 0) {
		buf_puts(out, "\nвложений нет");
		return;
	}
	buf_printf(out, "\nвложения (%zu):", n);
	for (i = 0; i < n; i++) {
		a = json_object_array_get_idx(all, i);
		buf_printf(out, "\n#%s %s (", sdlc_str(a, "id", ""), sdlc_str(a, "name", ""));
		att_size_text(out, a);
		buf_printf(out, ") — %s, ", sdlc_str(a, "author", "—"));
		sdlc_time(out, sdlc_str(a, "created", NULL), 0);
		if (json_object_get_boolean(json_object_object_get(a, "in_description")))
			buf_puts(out, ", в описании");
		refs = sdlc_array(a, "comments");
		for (j = 0; j < json_object_array_length(refs); j++)
			buf_printf(out, ", в #%s", json_object_get_string(
			    json_object_array_get_idx(refs, j)));
		if (strcmp(sdlc_str(a, "state", ""), "ready") == 0)
			buf_puts(out, ", скачано");
		if (att_size(a) > ATT_COPY_MAX)
			buf_puts(out, ", больше 10 МБ — только в Jira");
	}
}

/*
 * The attachment want names in the card it: «#31337» or «31337» by
 * number, otherwise by exact name, the newest of several (*same counts them).
 */
static struct json_object *
att_find(struct json_object *it, const char *want, size_t *same)
{
	struct json_object	*all = sdlc_array(it, "attachments"), *a, *found = NULL;
	const char		*num = want[0] == '#' ? want + 1 : want;
	size_t			 i;

	*same = 0;
	if (num[0] != '\0' && strspn(num, "0123456789") == strlen(num))
		for (i = 0; i < json_object_array_length(all); i++) {
			a = json_object_array_get_idx(all, i);
			if (strcmp(sdlc_str(a, "id", ""), num) == 0)
				return a;
		}
	for (i = 0; i < json_object_array_length(all); i++) {
		a = json_object_array_get_idx(all, i);
		if (strcmp(sdlc_str(a, "name", ""), want) == 0 && (*same)++ == 0)
			found = a;	/* the list is newest first */
	}
	return found;
}

/* The copy is ready: written, and the answer's path and line. */
static int
att_save(struct sdlc_ctx *ctx, struct json_object *a, const char *key)
{
	const char	*id = sdlc_str(a, "id", "0");
	char		 url[96], path[4096];
	int		 rc;

	snprintf(url, sizeof url, "/attachments/%s/content", id);
	if ((rc = sdlc_download(ctx, id, id, sdlc_str(a, "name", ""), att_size(a), url, path,
	    sizeof path)) != 0)
		return rc;
	buf_printf(ctx->out, "%s\n%s (", path, sdlc_str(a, "name", ""));
	sdlc_size(ctx->out, att_size(a));
	buf_printf(ctx->out, "), %s, задача %s", sdlc_str(a, "mime", "тип неизвестен"), key);
	return 0;
}

/* «агент онлайн» or «агент офлайн», as GET /agent says. */
static const char *
att_agent(struct sdlc_ctx *ctx)
{
	struct json_object	*o;
	const char		*s = "офлайн";
	struct buf		 scratch, *out = ctx->out;

	buf_init(&scratch);
	ctx->out = &scratch;	/* a failure here only leaves the state unknown */
	if (sdlc_hub(ctx, "GET", "/agent", NULL, &o) == 0) {
		if (json_object_get_boolean(json_object_object_get(o, "online")))
			s = "онлайн";
		json_object_put(o);
	} else
		s = "неизвестно";
	ctx->out = out;
	buf_release(&scratch);
	return s;
}

int
jira_attachment(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o = NULL, *it, *card = NULL, *a, *w;
	struct timespec		 t0, now;
	const char		*key = json_object_get_string(json_object_object_get(args, "key"));
	const char		*want = json_object_get_string(json_object_object_get(args,
				    "attachment"));
	char			 path[96];
	size_t			 same;
	long			 wait = ATT_WAIT_DEFAULT;
	int			 rc;

	if (json_object_object_get_ex(args, "wait_seconds", &w))
		wait = (long)json_object_get_int64(w);
	if (!sdlc_can_save(ctx))
		return 1;
	if ((rc = jira_get_issue(ctx, key, &card, &it)) != 0)
		return rc;
	key = sdlc_str(it, "key", key);
	if ((a = att_find(it, want, &same)) == NULL) {
		buf_printf(ctx->out, "у %s нет вложения «%s»; список — issue %s", key, want, key);
		rc = 1;
		goto done;
	}
	if (att_size(a) > ATT_COPY_MAX) {
		buf_puts(ctx->out, "файл больше 10 МБ (");
		sdlc_size(ctx->out, att_size(a));
		buf_printf(ctx->out, ") — скачайте в Jira: задача %s, вложение «%s»", key,
		    sdlc_str(a, "name", ""));
		rc = 1;
		goto done;
	}
	snprintf(path, sizeof path, "/attachments/%s/fetch", sdlc_str(a, "id", "0"));
	if ((rc = sdlc_hub(ctx, "POST", path, NULL, &o)) != 0)
		goto done;
	snprintf(path, sizeof path, "/attachments/%s", sdlc_str(a, "id", "0"));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		a = json_object_object_get(o, "attachment");
		if (strcmp(sdlc_str(a, "state", ""), "ready") == 0) {
			if ((rc = att_save(ctx, a, key)) == 0 && same > 1)
				buf_printf(ctx->out, "\nу %zu вложений «%s», взято самое новое #%s",
				    same, sdlc_str(a, "name", ""), sdlc_str(a, "id", ""));
			goto done;
		}
		if (strcmp(sdlc_str(a, "state", ""), "fetching") != 0) {
			buf_printf(ctx->out, "не удалось скачать: %s",
			    sdlc_str(a, "error", "причина не сказана"));
			rc = 1;
			goto done;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec + ATT_POLL > wait)
			break;
		json_object_put(o);
		o = NULL;
		sleep(ATT_POLL);
		if ((rc = sdlc_hub(ctx, "GET", path, NULL, &o)) != 0)
			goto done;
	}
	buf_printf(ctx->out, "скачивание ещё идёт (команда #%s, агент %s); вызовите attachment "
	    "ещё раз — вторая команда не поставится", sdlc_str(a, "command", "—"),
	    att_agent(ctx));
	rc = 1;
done:
	json_object_put(o);
	json_object_put(card);
	return rc;
}

/* A file ensure_attachment names by path, read whole once checked. */
struct att_local {
	struct json_object	*cmd;
	const char		*path;
	char			*data;
	size_t			 len;
};

/* Reads the file path names, after the checks of §2.7.1; 0, or 1 with the reason in out. */
static int
att_read(struct buf *out, struct att_local *f)
{
	struct stat	 st;
	ssize_t		 n;
	int		 fd;

	if (f->path[0] != '/') {
		buf_printf(out, "путь не абсолютный: %s", f->path);
		return 1;
	}
	if ((fd = open(f->path, O_RDONLY | O_NOCTTY | O_NONBLOCK)) < 0 || fstat(fd, &st) != 0) {
		buf_printf(out, errno == ENOENT || errno == ENOTDIR ? "файл не найден: %s" :
		    errno == EACCES ? "нет доступа к файлу: %s" : "файл не прочитать: %s", f->path);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > ATT_COPY_MAX) {
		if (!S_ISREG(st.st_mode))
			buf_printf(out, "не файл: %s", f->path);
		else {
			buf_puts(out, "файл больше 10 МБ (");
			sdlc_size(out, (uint64_t)st.st_size);
			buf_printf(out, "): %s", f->path);
		}
		close(fd);
		return 1;
	}
	if ((f->data = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		buf_printf(out, "файл не прочитать: %s", f->path);
		return 1;
	}
	for (f->len = 0; f->len < (size_t)st.st_size; f->len += (size_t)n)
		if ((n = read(fd, f->data + f->len, (size_t)st.st_size - f->len)) <= 0)
			break;
	close(fd);
	if (f->len != (size_t)st.st_size) {
		buf_printf(out, "файл не прочитать: %s", f->path);
		return 1;
	}
	return 0;
}

/* Uploads f (POST /files, then its parts) and makes its command name the file. */
static int
att_upload(struct sdlc_ctx *ctx, struct att_local *f)
{
	struct json_object	*body, *o;
	const char		*slash = strrchr(f->path, '/');
	char			 url[64], b64[ATT_PART / 3 * 4 + 4], id[32];
	size_t			 at, n;
	int			 rc;

	body = json_object_new_object();
	json_object_object_add(body, "name", json_object_new_string(slash + 1));
	json_object_object_add(body, "size", json_object_new_int64((int64_t)f->len));
	rc = sdlc_hub(ctx, "POST", "/files", body, &o);
	json_object_put(body);
	if (rc != 0)
		return rc;
	snprintf(id, sizeof id, "%s", sdlc_str(o, "id", "0"));
	json_object_put(o);
	snprintf(url, sizeof url, "/files/%s/parts", id);
	for (at = 0; at < f->len; at += n) {
		n = f->len - at < ATT_PART ? f->len - at : ATT_PART;
		EVP_EncodeBlock((unsigned char *)b64, (const unsigned char *)f->data + at, (int)n);
		body = json_object_new_object();
		json_object_object_add(body, "at", json_object_new_int64((int64_t)at));
		json_object_object_add(body, "data", json_object_new_string(b64));
		rc = sdlc_hub(ctx, "POST", url, body, &o);
		json_object_put(body);
		if (rc != 0)
			return rc;
		json_object_put(o);
	}
	/* slash points into the path member: the name is taken before the member goes */
	if (!json_object_object_get_ex(f->cmd, "filename", NULL))
		json_object_object_add(f->cmd, "filename", json_object_new_string(slash + 1));
	json_object_object_del(f->cmd, "path");
	json_object_object_add(f->cmd, "file", json_object_new_uint64(strtoull(id, NULL, 10)));
	return 0;
}

int
jira_upload_paths(struct sdlc_ctx *ctx, struct json_object *commands)
{
	struct att_local	 files[64];
	struct json_object	*c, *v;
	size_t			 i, n = 0;
	int			 rc = 0;

	/* every path checked and read before anything is uploaded */
	for (i = 0; rc == 0 && i < json_object_array_length(commands) && n < 64; i++) {
		c = json_object_array_get_idx(commands, i);
		if (!json_object_is_type(c, json_type_object) ||
		    strcmp(sdlc_str(c, "type", ""), "ensure_attachment") != 0 ||
		    !json_object_object_get_ex(c, "path", &v))
			continue;
		if (json_object_object_get_ex(c, "file", NULL)) {
			buf_puts(ctx->out, "у ensure_attachment либо path, либо file");
			rc = 1;
			break;
		}
		if (!json_object_is_type(v, json_type_string)) {
			buf_printf(ctx->out, "команда #%zu: path — абсолютный путь файла", i + 1);
			rc = 1;
			break;
		}
		files[n].cmd = c;
		files[n].path = json_object_get_string(v);
		files[n].data = NULL;
		rc = att_read(ctx->out, &files[n++]);
	}
	for (i = 0; rc == 0 && i < n; i++)
		rc = att_upload(ctx, &files[i]);
	for (i = 0; i < n; i++)
		free(files[i].data);
	return rc;
}
