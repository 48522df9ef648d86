/*
 * download: an attachment's copy from the hub into the module server's
 * data directory, <data directory>/downloads/<sub>/<name> (sdlc.h): the
 * directories 0700, the name cleaned, the file written through a temporary
 * one and a rename, and never again when a file of its size is there.
 * Both modules' `attachment` tools use it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "buf.h"
#include "json.h"
#include "sdlc/client.h"
#include "sdlc/sdlc.h"

#define SDLC_NAME_BYTES		200	/* of a file name written: NAME_MAX is 255 bytes */
#define SDLC_COPY_MAX		(10u * 1024 * 1024)

/*
 * The attachment's file name as it is written: '/', '\', ':' and control
 * characters made '_', cut to whole characters within SDLC_NAME_BYTES;
 * "attachment-<id>" when that leaves nothing usable ("", ".", "..").
 */
static void
download_name(char *out, size_t len, const char *name, const char *id)
{
	size_t	 n = json_utf8_cut(name, strlen(name) < SDLC_NAME_BYTES ? strlen(name) :
		    SDLC_NAME_BYTES), i;

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
download_dir(const char *path)
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

/* download_dir of path and of each directory above it that is missing. */
static int
download_dirs(const char *path)
{
	char	copy[4096], *p;

	if ((size_t)snprintf(copy, sizeof copy, "%s", path) >= sizeof copy) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = copy + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (download_dir(copy) != 0)
			return -1;
		*p = '/';
	}
	return download_dir(copy);
}

/* Writes data to path through a temporary file beside it: 0, or -1 with errno. */
static int
download_write(const char *dir, const char *path, const char *data, size_t len)
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

int
sdlc_can_save(struct sdlc_ctx *ctx)
{
	if (ctx->data_dir != NULL)
		return 1;
	buf_puts(ctx->out, "некуда сохранить вложение: нет каталога данных (задайте "
	    "FORGEMCP_STATE, XDG_DATA_HOME или HOME)");
	return 0;
}

int
sdlc_download(struct sdlc_ctx *ctx, const char *sub, const char *id, const char *shown,
    uint64_t size, const char *url, char *path, size_t path_len)
{
	char			 dir[4096], name[SDLC_NAME_BYTES + 32], *data = NULL;
	struct json_object	*err = NULL;
	struct stat		 st;
	size_t			 len = 0;
	long			 status;
	int			 rc = 1;

	if (!sdlc_can_save(ctx))
		return 1;
	download_name(name, sizeof name, shown, id);
	if ((size_t)snprintf(dir, sizeof dir, "%s/downloads/%s", ctx->data_dir, sub) >=
	    sizeof dir || download_dirs(dir) != 0 ||
	    (size_t)snprintf(path, path_len, "%s/%s", dir, name) >= path_len) {
		buf_printf(ctx->out, "каталог для вложений %s не создать: %s", dir, strerror(errno));
		return 1;
	}
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size)
		return 0;
	switch (hub_download(ctx->hub, url, SDLC_COPY_MAX + 1, &status, &data, &len, &err)) {
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
	if (download_write(dir, path, data, len) != 0) {
		buf_printf(ctx->out, "вложение #%s не записать в %s: %s", id, path, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	free(data);
	json_object_put(err);
	return rc;
}
