/* buf: a growable byte buffer, always NUL-terminated. */
#ifndef FM_BUF_H
#define FM_BUF_H
#include <stddef.h>
#include <stdarg.h>

struct buf {
	char	*data;	/* NUL-terminated; NULL until the first append */
	size_t	 len;
	size_t	 cap;
	int	 oom;	/* set once an allocation failed; further appends are dropped */
};

void	 buf_init(struct buf *b);
void	 buf_release(struct buf *b);
/* Appends; return 0 or ERR_NOMEM (and sets b->oom). */
int	 buf_append(struct buf *b, const void *p, size_t n);
int	 buf_puts(struct buf *b, const char *s);
int	 buf_putc(struct buf *b, char c);
int	 buf_printf(struct buf *b, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	 buf_vprintf(struct buf *b, const char *fmt, va_list ap)
	    __attribute__((format(printf, 2, 0)));
/* Moves the contents out (caller frees; never NULL on success); the buffer is reset. */
char	*buf_steal(struct buf *b, size_t *lenp);

#endif
