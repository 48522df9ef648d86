/* gz-t: unit tests for the spliced gzip answers and the Accept-Encoding check. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gz.h"
#include "tap.h"

/* Inflates a gzip member; returns the bytes (caller frees) or NULL. */
static char *
gunzip(const char *in, size_t len, size_t *outlen)
{
	z_stream	 z;
	size_t		 cap = 1 << 20;
	char		*out = malloc(cap);
	int		 rc;

	memset(&z, 0, sizeof(z));
	if (out == NULL || inflateInit2(&z, 16 + 15) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)cap;
	rc = inflate(&z, Z_FINISH);
	*outlen = cap - z.avail_out;
	/* the member must end exactly where the answer ends */
	if (rc != Z_STREAM_END || z.avail_in != 0) {
		inflateEnd(&z);
		free(out);
		return NULL;
	}
	inflateEnd(&z);
	return out;
}

/* A piece of n pseudo-random but compressible JSON-ish bytes. */
static char *
piece_text(size_t n)
{
	static const char set[] = "{}[]\",:abcdefghij tools name description";
	char		*s = malloc(n + 1);
	unsigned	 x = 12345;
	size_t		 i;

	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		s[i] = set[(x >> 16) % (sizeof(set) - 1)];
	}
	s[n] = '\0';
	return s;
}

/* body = head + piece + rest; spliced, then unpacked, must give body back. */
static void
round_trip(const struct gz_piece *p, size_t head, size_t rest, const char *what)
{
	size_t	 len = head + p->len + rest, zlen = 0, ulen = 0;
	char	*body = malloc(len), *z = NULL, *u;

	memset(body, 'h', head);
	memcpy(body + head, p->text, p->len);
	memset(body + head + p->len, 'r', rest);
	if (!ok(gz_splice(p, body, len, &z, &zlen) == 1, "%s: spliced", what)) {
		free(body);
		return;
	}
	u = gunzip(z, zlen, &ulen);
	ok(u != NULL, "%s: a valid gzip member, nothing after it", what);
	if (u != NULL)
		is_mem(u, ulen, body, len, "%s: unpacks to the body", what);
	free(u);
	free(z);
	free(body);
}

int
main(void)
{
	struct gz_piece	 p;
	char		*text = piece_text(48000), *z;
	size_t		 zlen;

	if (gz_piece_init(&p, text, 48000) != 0)
		bail_out("gz_piece_init failed");
	ok(p.blocks_len > 0 && p.blocks_len < 48000, "the piece is deflated (%zu bytes)", p.blocks_len);
	round_trip(&p, 0, 0, "the piece alone");
	round_trip(&p, 24, 2, "a legacy envelope");
	round_trip(&p, 40, 300, "a modern envelope with _meta after the piece");
	round_trip(&p, 65535, 65535, "the largest head and rest");
	round_trip(&p, 1, 0, "one byte before");

	ok(gz_splice(&p, text, 47999, &z, &zlen) == 0 && z == NULL, "a body cut short is not spliced");
	text[30000] ^= 1;
	ok(gz_splice(&p, text, 48000, &z, &zlen) == 0, "a body that differs inside the piece is not spliced");
	text[30000] ^= 1;
	{
		size_t	 len = 65536 + p.len;
		char	*big = malloc(len);

		memset(big, ' ', 65536);
		memcpy(big + 65536, p.text, p.len);
		ok(gz_splice(&p, big, len, &z, &zlen) == 0, "a head over 64 KiB is not spliced");
		free(big);
	}

	ok(gz_accepted("gzip"), "gzip");
	ok(gz_accepted("gzip, deflate"), "gzip, deflate (Node's fetch)");
	ok(gz_accepted("GZip"), "the name in any case");
	ok(gz_accepted("x-gzip"), "x-gzip");
	ok(gz_accepted("br;q=1.0, gzip;q=0.5"), "a lower q is still accepted");
	ok(gz_accepted("*"), "*");
	ok(gz_accepted("deflate , gzip ; q=1"), "spaces around the parts");
	ok(!gz_accepted("gzip;q=0"), "q=0 refuses");
	ok(!gz_accepted("gzip; q=0.000"), "q=0.000 refuses");
	ok(!gz_accepted("*, gzip;q=0"), "gzip;q=0 wins over *");
	ok(!gz_accepted("*;q=0"), "*;q=0");
	ok(!gz_accepted("deflate, br"), "other codings only");
	ok(!gz_accepted("identity"), "identity");
	ok(!gz_accepted("gzipped, xgzip"), "names that only start or end like gzip");
	ok(!gz_accepted(""), "an empty value");
	ok(!gz_accepted(",,;;"), "separators only");
	gz_piece_free(&p);
	free(text);
	return done_testing();
}
