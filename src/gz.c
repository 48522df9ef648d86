/* gz: answers holding a large fixed piece, sent gzip-compressed without compressing per request. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "gz.h"

int
gz_piece_init(struct gz_piece *t, const char *text, size_t len)
{
	z_stream	 z;
	uLong		 cap;
	int		 rc;

	memset(t, 0, sizeof(*t));
	memset(&z, 0, sizeof(z));
	/* raw deflate (no header): the blocks go inside a gzip member made per answer */
	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	cap = deflateBound(&z, (uLong)len) + 16;
	t->text = malloc(len + 1);
	t->blocks = malloc(cap);
	if (t->text == NULL || t->blocks == NULL) {
		deflateEnd(&z);
		gz_piece_free(t);
		return -1;
	}
	memcpy(t->text, text, len);
	t->text[len] = '\0';
	t->len = len;
	z.next_in = (Bytef *)t->text;
	z.avail_in = (uInt)len;
	z.next_out = t->blocks;
	z.avail_out = (uInt)cap;
	/* a sync flush ends the blocks on a byte boundary and leaves the stream open */
	rc = deflate(&z, Z_SYNC_FLUSH);
	t->blocks_len = cap - z.avail_out;
	deflateEnd(&z);
	if (rc != Z_OK || z.avail_in != 0) {
		gz_piece_free(t);
		return -1;
	}
	t->crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)t->text, (uInt)len);
	return 0;
}

void
gz_piece_free(struct gz_piece *t)
{
	free(t->text);
	free(t->blocks);
	memset(t, 0, sizeof(*t));
}

static void
gz_le32(unsigned char *p, unsigned long v)
{
	p[0] = (unsigned char)(v & 0xff);
	p[1] = (unsigned char)((v >> 8) & 0xff);
	p[2] = (unsigned char)((v >> 16) & 0xff);
	p[3] = (unsigned char)((v >> 24) & 0xff);
}

/* Stored blocks (BFINAL 0, BTYPE 00, LEN, its complement, the bytes) at p; returns their end. */
static unsigned char *
gz_stored(unsigned char *p, const char *bytes, size_t n)
{
	size_t	 k;

	while (n > 0) {
		k = n > 0xffff ? 0xffff : n;
		*p++ = 0;
		*p++ = (unsigned char)(k & 0xff);
		*p++ = (unsigned char)(k >> 8);
		*p++ = (unsigned char)(~k & 0xff);
		*p++ = (unsigned char)((~k >> 8) & 0xff);
		memcpy(p, bytes, k);
		p += k;
		bytes += k;
		n -= k;
	}
	return p;
}

/* The number of NUL bytes in body[0..len). */
static size_t
gz_marks(const char *body, size_t len)
{
	const char	*p = body, *end = body + len;
	size_t		 m = 0;

	while (p < end && (p = memchr(p, '\0', (size_t)(end - p))) != NULL) {
		m++;
		p++;
	}
	return m;
}

int
gz_splice(const struct gz_piece *t, const char *body, size_t len, char **out, size_t *outlen)
{
	static const unsigned char header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	/* an empty final block with fixed codes: BFINAL 1, BTYPE 01, end-of-block */
	static const unsigned char last[2] = { 0x03, 0x00 };
	const char	*seg = body, *end = body + len, *mark;
	unsigned char	*p, *o;
	unsigned long	 crc = crc32(0L, Z_NULL, 0);
	size_t		 m = gz_marks(body, len), n, k, full;

	*out = NULL;
	*outlen = 0;
	full = len - m + m * t->len;
	n = sizeof(header) + (len / 0xffff + m + 1) * 5 + len + m * t->blocks_len + sizeof(last) + 8;
	if ((o = p = malloc(n + 1)) == NULL)
		return -1;
	memcpy(p, header, sizeof(header));
	p += sizeof(header);
	for (;;) {
		mark = memchr(seg, '\0', (size_t)(end - seg));
		k = (size_t)((mark != NULL ? mark : end) - seg);
		p = gz_stored(p, seg, k);
		crc = crc32(crc, (const Bytef *)seg, (uInt)k);
		if (mark == NULL)
			break;
		memcpy(p, t->blocks, t->blocks_len);
		p += t->blocks_len;
		crc = crc32_combine(crc, t->crc, (z_off_t)t->len);
		seg = mark + 1;
	}
	memcpy(p, last, sizeof(last));
	p += sizeof(last);
	gz_le32(p, crc);
	gz_le32(p + 4, (unsigned long)(full & 0xffffffffu));
	p += 8;
	*p = '\0';
	*out = (char *)o;
	*outlen = (size_t)(p - o);
	return 0;
}

int
gz_expand(const struct gz_piece *t, const char *body, size_t len, char **out, size_t *outlen)
{
	const char	*seg = body, *end = body + len, *mark;
	char		*p, *o;
	size_t		 m = gz_marks(body, len), k;

	*out = NULL;
	*outlen = 0;
	if ((o = p = malloc(len - m + m * t->len + 1)) == NULL)
		return -1;
	for (;;) {
		mark = memchr(seg, '\0', (size_t)(end - seg));
		k = (size_t)((mark != NULL ? mark : end) - seg);
		memcpy(p, seg, k);
		p += k;
		if (mark == NULL)
			break;
		memcpy(p, t->text, t->len);
		p += t->len;
		seg = mark + 1;
	}
	*p = '\0';
	*out = o;
	*outlen = (size_t)(p - o);
	return 0;
}

/* Whether the q parameter in s[0..n) (after a ';') is 0. */
static int
gz_q_zero(const char *s, size_t n)
{
	size_t	 i = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (n - i < 2 || (s[i] != 'q' && s[i] != 'Q') || s[i + 1] != '=')
		return 0;
	for (i += 2; i < n && (s[i] == ' ' || s[i] == '\t'); i++)
		;
	if (i == n || s[i] != '0')
		return 0;
	for (i++; i < n; i++)
		if (s[i] != '0' && s[i] != '.' && s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

int
gz_accepted(const char *v)
{
	const char	*p, *end, *semi, *next;
	size_t		 n;
	int		 gzip = -1, star = -1, ok;

	for (p = v; p != NULL && *p != '\0'; p = *end == ',' ? end + 1 : end) {
		end = p + strcspn(p, ",");
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		semi = memchr(p, ';', (size_t)(end - p));
		n = (size_t)((semi != NULL ? semi : end) - p);
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		/* a coding may carry parameters; only q matters here */
		for (ok = 1; semi != NULL; semi = next) {
			next = memchr(semi + 1, ';', (size_t)(end - semi - 1));
			if (gz_q_zero(semi + 1, (size_t)((next != NULL ? next : end) - semi - 1)))
				ok = 0;
		}
		if ((n == 4 && strncasecmp(p, "gzip", 4) == 0) || (n == 6 && strncasecmp(p, "x-gzip", 6) == 0))
			gzip = gzip == 0 ? 0 : ok;
		else if (n == 1 && *p == '*')
			star = star == 0 ? 0 : ok;
	}
	return gzip >= 0 ? gzip : star > 0;
}
