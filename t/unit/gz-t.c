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

/*
 * A body of segments with a NUL between each two (where the piece goes):
 * spliced, then unpacked, it must give the body with the piece in place,
 * which is also what gz_expand gives.
 */
static void
round_trip(const struct gz_piece *p, const size_t *segs, size_t nsegs, const char *what)
{
	size_t	 i, len = 0, full = 0, zlen = 0, ulen = 0, elen = 0;
	char	*body, *want, *z = NULL, *u, *e = NULL, *b, *w;

	for (i = 0; i < nsegs; i++)
		len += segs[i];
	len += nsegs - 1;
	full = len - (nsegs - 1) + (nsegs - 1) * p->len;
	b = body = malloc(len + 1);
	w = want = malloc(full + 1);
	for (i = 0; i < nsegs; i++) {
		memset(b, 'a' + (int)(i % 26), segs[i]);
		memset(w, 'a' + (int)(i % 26), segs[i]);
		b += segs[i];
		w += segs[i];
		if (i + 1 < nsegs) {
			*b++ = '\0';
			memcpy(w, p->text, p->len);
			w += p->len;
		}
	}
	if (!ok(gz_splice(p, body, len, &z, &zlen) == 0, "%s: spliced", what)) {
		free(body);
		free(want);
		return;
	}
	u = gunzip(z, zlen, &ulen);
	ok(u != NULL, "%s: a valid gzip member, nothing after it", what);
	if (u != NULL)
		is_mem(u, ulen, want, full, "%s: unpacks to the body with the piece", what);
	ok(gz_expand(p, body, len, &e, &elen) == 0, "%s: expanded", what);
	is_mem(e, elen, want, full, "%s: expands to the body with the piece", what);
	free(e);
	free(u);
	free(z);
	free(body);
	free(want);
}

int
main(void)
{
	struct gz_piece	 p;
	char		*text = piece_text(48000);

	if (gz_piece_init(&p, text, 48000) != 0)
		bail_out("gz_piece_init failed");
	ok(p.blocks_len > 0 && p.blocks_len < 48000, "the piece is deflated (%zu bytes)", p.blocks_len);
	{
		static const size_t alone[] = { 0, 0 }, legacy[] = { 24, 2 }, modern[] = { 40, 300 },
		    big[] = { 70000, 140000 }, batch[] = { 1, 30, 2, 0, 5 }, none[] = { 1000 };

		round_trip(&p, alone, 2, "the piece alone");
		round_trip(&p, legacy, 2, "a legacy envelope");
		round_trip(&p, modern, 2, "a modern envelope with _meta after the piece");
		round_trip(&p, big, 2, "parts over 64 KiB (several stored blocks)");
		round_trip(&p, batch, 5, "a batch holding the piece four times");
		round_trip(&p, none, 1, "no piece at all");
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
