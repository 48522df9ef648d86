/* buf: a growable byte buffer for building responses. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"

void
buf_init(struct buf *b)
{
	memset(b, 0, sizeof(*b));
}

void
buf_release(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

static int
buf_grow(struct buf *b, size_t need)
{
	size_t	 cap;
	char	*p;

	if (b->oom)
		return ERR_NOMEM;
	if (need < b->len || need == SIZE_MAX) {
		b->oom = 1;
		return ERR_NOMEM;
	}
	if (need + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need + 1) {
		if (cap > SIZE_MAX / 2) {
			b->oom = 1;
			return ERR_NOMEM;
		}
		cap *= 2;
	}
	if ((p = realloc(b->data, cap)) == NULL) {
		b->oom = 1;
		return ERR_NOMEM;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

int
buf_append(struct buf *b, const void *p, size_t n)
{
	int	rc;

	if ((rc = buf_grow(b, b->len + n)) != 0)
		return rc;
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int
buf_putc(struct buf *b, char c)
{
	return buf_append(b, &c, 1);
}

int
buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list	 cp;
	int	 n, rc;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return ERR_INTERNAL;
	if ((rc = buf_grow(b, b->len + (size_t)n)) != 0)
		return rc;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list	ap;
	int	rc;

	va_start(ap, fmt);
	rc = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

char *
buf_steal(struct buf *b, size_t *lenp)
{
	char	*p;

	if (b->oom)
		return NULL;
	if (b->data == NULL && buf_grow(b, 0) != 0)
		return NULL;
	if (b->data == NULL)
		return NULL;
	p = b->data;
	if (lenp != NULL)
		*lenp = b->len;
	buf_init(b);
	return p;
}
