/* gz: answers holding a large fixed piece, sent gzip-compressed without compressing per request. */
#ifndef FM_GZ_H
#define FM_GZ_H
#include <stddef.h>

/*
 * The fixed part of an answer (the tools/list array), deflated once.  An
 * answer is serialised with one NUL byte where the piece goes (JSON text
 * never holds a raw NUL) and sent as one gzip member: the bytes between the
 * pieces in stored blocks, the piece's deflate blocks for each NUL, then
 * the trailer, its CRC combined from the parts.
 */
struct gz_piece {
	char		*text;		/* the uncompressed piece */
	size_t		 len;
	unsigned char	*blocks;	/* raw deflate blocks, not final, ending byte-aligned */
	size_t		 blocks_len;
	unsigned long	 crc;		/* CRC-32 of text */
};

/* Deflates text into t (copied).  Returns 0, or -1 when out of memory. */
int	gz_piece_init(struct gz_piece *t, const char *text, size_t len);
void	gz_piece_free(struct gz_piece *t);
/*
 * body[0..len) holds NUL bytes, each standing for t's text.  gz_splice sets
 * *out (malloc'd, NUL-terminated) and *outlen to the gzip member of the body
 * with the piece in their place; gz_expand to the body itself with the
 * piece in their place.  Both return 0, or -1 when out of memory.
 */
int	gz_splice(const struct gz_piece *t, const char *body, size_t len, char **out, size_t *outlen);
int	gz_expand(const struct gz_piece *t, const char *body, size_t len, char **out, size_t *outlen);
/* Whether an Accept-Encoding value accepts gzip (by name or "*", with q above 0). */
int	gz_accepted(const char *accept_encoding);

#endif
