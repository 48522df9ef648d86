/* gz: a large answer holding fixed bytes, sent gzip-compressed without compressing per request. */
#ifndef FM_GZ_H
#define FM_GZ_H
#include <stddef.h>

/*
 * The fixed part of an answer (the tools/list array), deflated once.  An
 * answer that holds it is sent as one gzip member: the bytes before it (the
 * JSON-RPC envelope and id) in a stored block, the piece's deflate blocks,
 * the bytes after it in another stored block, then the trailer, its CRC
 * combined from the three parts.
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
 * When body[0..len) holds t's text, and what comes before and after it fits
 * a stored block each (64 KiB), sets *out (malloc'd) and *outlen to the
 * gzip member holding body and returns 1; returns 0 otherwise (also when
 * out of memory).
 */
int	gz_splice(const struct gz_piece *t, const char *body, size_t len, char **out, size_t *outlen);
/* Whether an Accept-Encoding value accepts gzip (by name or "*", with q above 0). */
int	gz_accepted(const char *accept_encoding);

#endif
