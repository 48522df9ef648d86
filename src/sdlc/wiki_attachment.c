/*
 * wiki_attachment: the sdlc-wiki `attachment` tool.  It asks the hub for
 * its copy of the attachment (POST /wiki/attachments/{id}/fetch, which
 * queues a wiki_fetch command for the wiki agent unless the copy is ready
 * or on its way), waits for it (a GET a second, at most wait_seconds),
 * and writes it under <data directory>/downloads/wiki-<id>/<name>: the
 * directories 0700, the file through a temporary one and a rename, and
 * never again when a file of its size is there.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "buf.h"
#include "json.h"
#include "sdlc/client.h"
#include "sdlc/sdlc.h"
#include "sdlc/wiki-int.h"

#define WIKI_WAIT_DEFAULT	60	/* seconds */
#define WIKI_NAME_BYTES		200	/* of a file name written: NAME_MAX is 255 bytes */
#define WIKI_COPY_MAX		(10u * 1024 * 1024)

/*
 * The attachment's file name as it is written: '/', '\', ':' and control
 * characters made '_', cut to whole characters within WIKI_NAME_BYTES;
 * "attachment-<id>" when that leaves nothing usable ("", ".", "..").
 */
static void
wiki_file_name(char *out, size_t len, const char *name, const char *id)
{
	size_t	 n = json_utf8_cut(name, strlen(name) < WIKI_NAME_BYTES ? strlen(name) :
		    WIKI_NAME_BYTES), i;

	if (n >= len)
		n = len - 1;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		out[i] = c == '/' || c == '\\' || c == ':' || c < 0x20 || c == 0x7f ? '_' :
		    (char)c;
	}
	out[n] = '\0';
	if (n == 0 || strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
		snprintf(out, len, "attachment-%s", id);
}

/* mkdir path (mode 0700) unless it is a directory already: 0, or -1 with errno. */
static int
wiki_dir(const char *path)
{
	struct stat	st;

	if (mkdir(path, 0700) == 0)
		return 0;
	if (errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (errno == EEXIST)
		errno = ENOTDIR;
	return -1;
}

/* wiki_dir of path and of each directory above it that is missing. */
static int
wiki_dirs(const char *path)
{
	char	copy[4096], *p;

	if ((size_t)snprintf(copy, sizeof copy, "%s", path) >= sizeof copy) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = copy + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (wiki_dir(copy) != 0)
			return -1;
		*p = '/';
	}
	return wiki_dir(copy);
}

/* Writes data to path through a temporary file beside it: 0, or -1 with errno. */
static int
wiki_write(const char *dir, const char *path, const char *data, size_t len)
{
	char	tmp[4096];
	size_t	off = 0;
	ssize_t	w;
	int	fd, saved;

	if ((size_t)snprintf(tmp, sizeof tmp, "%s/.download-XXXXXX", dir) >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkstemp(tmp)) < 0)
		return -1;
	while (off < len) {
		if ((w = write(fd, data + off, len - off)) < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (fchmod(fd, 0600) != 0 || close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) != 0) {
		fd = -1;
		goto fail;
	}
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = saved;
	return -1;
}

/* Downloads the hub's copy into the file dir/name (unless one of its size is there). */
static int
wiki_save(struct sdlc_ctx *ctx, struct json_object *a, const char *q)
{
	const char	*id = sdlc_str(a, "id", "0");
	uint64_t	 size = (uint64_t)json_object_get_int64(json_object_object_get(a, "size"));
	char		 dir[4096], path[4096], name[WIKI_NAME_BYTES + 32], *data = NULL, url[128];
	struct json_object *err = NULL;
	struct stat	 st;
	size_t		 len = 0;
	long		 status;
	int		 rc = 1;

	wiki_file_name(name, sizeof name, sdlc_str(a, "name", ""), id);
	if ((size_t)snprintf(dir, sizeof dir, "%s/downloads/wiki-%s", ctx->data_dir, id) >=
	    sizeof dir || wiki_dirs(dir) != 0 ||
	    (size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) {
		buf_printf(ctx->out, "каталог для вложений %s не создать: %s", dir, strerror(errno));
		return 1;
	}
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size)
		goto answer;
	snprintf(url, sizeof url, "/wiki/attachments/%s/content%s", id, q);
	switch (hub_download(ctx->hub, url, WIKI_COPY_MAX + 1, &status, &data, &len, &err)) {
	case HUB_DOWN:
		return SDLC_DOWN;
	case HUB_GARBLED:
		buf_printf(ctx->out, "хаб ответил на %s не тем (HTTP %ld)", url, status);
		goto done;
	case HUB_ANSWERED:
		break;
	}
	if (status != 200) {
		buf_printf(ctx->out, "%s", sdlc_str(err, "error", "хаб не отдал копию вложения"));
		goto done;
	}
	if ((uint64_t)len != size) {
		buf_printf(ctx->out, "копия вложения #%s в хабе — %zu байт, а не %" PRIu64
		    ": ничего не записано, вызовите attachment ещё раз", id, len, size);
		goto done;
	}
	if (wiki_write(dir, path, data, len) != 0) {
		buf_printf(ctx->out, "вложение #%s не записать в %s: %s", id, path, strerror(errno));
		goto done;
	}
answer:
	buf_printf(ctx->out, "%s\n%s (", path, sdlc_str(a, "name", ""));
	sdlc_size(ctx->out, size);
	buf_printf(ctx->out, "), %s, страница %s", sdlc_str(a, "mime", ""), sdlc_str(a, "page", ""));
	rc = 0;
done:
	free(data);
	json_object_put(err);
	return rc;
}

int
wiki_attachment_tool(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o = NULL, *a, *w;
	struct timespec		 t0, now;
	const char		*state;
	char			 path[160], *q;
	long			 wait = WIKI_WAIT_DEFAULT;
	int64_t			 id = json_object_get_int64(json_object_object_get(args, "id"));
	int			 rc, queued;

	if (json_object_object_get_ex(args, "wait_seconds", &w))
		wait = (long)json_object_get_int64(w);
	if (ctx->data_dir == NULL) {
		buf_puts(ctx->out, "некуда сохранить вложение: нет каталога данных (задайте "
		    "FORGEMCP_STATE, XDG_DATA_HOME или HOME)");
		return 1;
	}
	if ((q = wiki_q(ctx)) == NULL)
		return 1;
	snprintf(path, sizeof path, "/wiki/attachments/%" PRId64 "/fetch%s", id, q);
	if ((rc = sdlc_hub(ctx, "POST", path, NULL, &o)) != 0)
		goto done;
	queued = json_object_get_boolean(json_object_object_get(o, "queued"));
	snprintf(path, sizeof path, "/wiki/attachments/%" PRId64 "%s", id, q);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		a = json_object_object_get(o, "attachment");
		state = sdlc_str(a, "state", "");
		if (strcmp(state, "ready") == 0) {
			rc = wiki_save(ctx, a, q);
			goto done;
		}
		if (strcmp(state, "failed") == 0) {
			buf_printf(ctx->out, "вложение #%s «%s» (страница %s) не скачано: %s — "
			    "вызовите attachment ещё раз, чтобы повторить", sdlc_str(a, "id", ""),
			    sdlc_str(a, "name", ""), sdlc_str(a, "page", ""),
			    sdlc_str(a, "error", "причина не сказана"));
			rc = 1;
			goto done;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= wait)
			break;
		json_object_put(o);
		o = NULL;
		sleep(1);
		if ((rc = sdlc_hub(ctx, "GET", path, NULL, &o)) != 0)
			goto done;
	}
	buf_printf(ctx->out, "вложение #%s «%s» (страница %s) ещё скачивается: команда %s%s, "
	    "ждали %ld с; агент wiki выполнит её, когда будет онлайн (status) — вызовите "
	    "attachment позже, вторая команда не поставится", sdlc_str(a, "id", ""),
	    sdlc_str(a, "name", ""), sdlc_str(a, "page", ""), sdlc_str(a, "command", "—"),
	    queued ? " (поставлена сейчас)" : "", wait);
	rc = 1;
done:
	json_object_put(o);
	free(q);
	return rc;
}
