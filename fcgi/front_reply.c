/*
 * front_reply: the head of an answer (CGI and FastCGI alike), and a
 * FastCGI answer written as its records with one writev.
 */
#include <sys/types.h>
#include <sys/uio.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <fastcgi.h>
#include <fcgiapp.h>

#include "core.h"
#include "front-int.h"

static const char *
front_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 202: return "Accepted";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 413: return "Content Too Large";
	case 415: return "Unsupported Media Type";
	case 429: return "Too Many Requests";
	case 503: return "Service Unavailable";
	default: return status >= 500 ? "Internal Server Error" : "Error";
	}
}

int
front_head(char *out, size_t len, const struct core_response *r)
{
	size_t	i;
	int	n, o;

	o = snprintf(out, len, "Status: %d %s\r\n", r->status, front_reason(r->status));
	for (i = 0; i < r->n_headers && o > 0 && (size_t)o < len; i++) {
		n = snprintf(out + o, len - (size_t)o, "%s: %s\r\n", r->headers[i].name,
		    r->headers[i].value);
		o = n < 0 ? -1 : o + n;
	}
	if (o > 0 && (size_t)o < len) {
		n = snprintf(out + o, len - (size_t)o, "%s%s%s\r\n",
		    r->content_type ? "Content-Type: " : "",
		    r->content_type ? r->content_type : "", r->content_type ? "\r\n" : "");
		o = n < 0 ? -1 : o + n;
	}
	if (o < 0 || (size_t)o >= len)
		return -1;
	return o;
}

/* A FastCGI record header of type for request id with len bytes of content. */
static void
front_record(FCGI_Header *h, int type, int id, size_t len)
{
	memset(h, 0, sizeof(*h));
	h->version = FCGI_VERSION_1;
	h->type = (unsigned char)type;
	h->requestIdB1 = (unsigned char)((id >> 8) & 0xff);
	h->requestIdB0 = (unsigned char)(id & 0xff);
	h->contentLengthB1 = (unsigned char)((len >> 8) & 0xff);
	h->contentLengthB0 = (unsigned char)(len & 0xff);
}

#define FRONT_IOV	256	/* 2 + 2 * 127 records: 8 MB of body in one writev */

/*
 * Writes the whole answer of fr -- head and body as FCGI_STDOUT records,
 * the end of the stream and FCGI_END_REQUEST -- with one writev (more only
 * when the socket takes it in parts), instead of libfcgi's 8 KB stream
 * buffer, which costs a write per 8 KB.  libfcgi is then told its streams
 * are closed, so FCGX_Finish_r writes nothing more.  Returns -1, having
 * written nothing, when the answer needs more records than FRONT_IOV
 * holds; the caller uses the stream then.
 */
int
front_send(FCGX_Request *fr, const char *head, size_t hlen, const char *body, size_t blen)
{
	FCGI_Header		 hdr[FRONT_IOV / 2];
	FCGI_EndRequestRecord	 end;
	FCGI_Header		 eos;
	struct iovec		 iov[FRONT_IOV + 2], *v = iov;
	size_t			 n = 0, k = 0, off, chunk;
	ssize_t			 w;

	front_record(&hdr[k], FCGI_STDOUT, fr->requestId, hlen);
	iov[n].iov_base = &hdr[k++];
	iov[n++].iov_len = sizeof(FCGI_Header);
	iov[n].iov_base = (void *)(uintptr_t)head;
	iov[n++].iov_len = hlen;
	for (off = 0; off < blen; off += chunk) {
		if (k == FRONT_IOV / 2)
			return -1;
		chunk = blen - off > 65535 ? 65535 : blen - off;
		front_record(&hdr[k], FCGI_STDOUT, fr->requestId, chunk);
		iov[n].iov_base = &hdr[k++];
		iov[n++].iov_len = sizeof(FCGI_Header);
		iov[n].iov_base = (void *)(uintptr_t)(body + off);
		iov[n++].iov_len = chunk;
	}
	front_record(&eos, FCGI_STDOUT, fr->requestId, 0);
	iov[n].iov_base = &eos;
	iov[n++].iov_len = sizeof(eos);
	front_record(&end.header, FCGI_END_REQUEST, fr->requestId, sizeof(end.body));
	memset(&end.body, 0, sizeof(end.body));
	end.body.protocolStatus = FCGI_REQUEST_COMPLETE;
	iov[n].iov_base = &end;
	iov[n++].iov_len = sizeof(end);
	fr->out->wasFCloseCalled = 1;
	fr->err->wasFCloseCalled = 1;
	while (n > 0) {
		if ((w = writev(fr->ipcFd, v, (int)n)) < 0) {
			if (errno == EINTR)
				continue;
			/* the web server hung up: nothing to answer to */
			return 0;
		}
		while (n > 0 && (size_t)w >= v->iov_len) {
			w -= (ssize_t)v->iov_len;
			v++;
			n--;
		}
		if (n > 0) {
			v->iov_base = (char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
	return 0;
}
