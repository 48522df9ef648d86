/* run_logs: windows of a CI job's log as UTF-8 text, and their cursors (spec 1.5 get_run_logs, 1.6.5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

#include "err.h"
#include "service/runs.h"
#include "store/db.h"
#include "store/db_runlogs.h"
#include "store/db_runs.h"

#define RUN_LOG_JOBS_LIST	240	/* bytes of job ids an unknown-job message lists */
#define RUN_LOG_RAW		24	/* bytes a cursor encodes: job row, offset, check */

static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void
put_u64(unsigned char *p, uint64_t v)
{
	int	 i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)(v & 0xff);
}

static uint64_t
get_u64(const unsigned char *p)
{
	uint64_t	 v = 0;
	int		 i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * The check value of a cursor: the first 8 bytes of SHA-256 over the
 * repository, run and job rows and the offset, so that a cursor names one
 * place in one job's log and a cursor of another job or run, or a damaged
 * one, is told apart.  It guards against mistakes, not secrecy: any offset
 * of a log its reader may see is harmless to read.
 */
static int
cursor_check(unsigned char out[8], uint64_t repo, uint64_t run, uint64_t job, uint64_t off)
{
	unsigned char	 in[4 * 8 + 16], md[EVP_MAX_MD_SIZE];
	unsigned int	 mdlen = 0;

	memcpy(in, "forgemcp-logcur", 16);
	put_u64(in + 16, repo);
	put_u64(in + 24, run);
	put_u64(in + 32, job);
	put_u64(in + 40, off);
	if (EVP_Digest(in, sizeof in, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen < 8)
		return -1;
	memcpy(out, md, 8);
	return 0;
}

/* The cursor of offset off of job in run (of repo) into out: base64url, no padding. */
static int
cursor_make(char out[RUN_LOG_CURSOR_LEN + 1], uint64_t repo, uint64_t run, uint64_t job,
    uint64_t off)
{
	unsigned char	 raw[RUN_LOG_RAW];
	size_t		 i, o = 0;
	uint32_t	 v;

	put_u64(raw, job);
	put_u64(raw + 8, off);
	if (cursor_check(raw + 16, repo, run, job, off) != 0)
		return -1;
	for (i = 0; i < RUN_LOG_RAW; i += 3) {
		v = (uint32_t)raw[i] << 16 | (uint32_t)raw[i + 1] << 8 | raw[i + 2];
		out[o++] = b64url[v >> 18 & 63];
		out[o++] = b64url[v >> 12 & 63];
		out[o++] = b64url[v >> 6 & 63];
		out[o++] = b64url[v & 63];
	}
	out[o] = '\0';
	return 0;
}

/* The offset cursor s names in job of run (of repo) into *off; -1 when it names none. */
static int
cursor_read(uint64_t *off, const char *s, uint64_t repo, uint64_t run, uint64_t job)
{
	unsigned char	 raw[RUN_LOG_RAW], check[8];
	const char	*p;
	uint32_t	 v;
	size_t		 i, k;

	if (strlen(s) != RUN_LOG_CURSOR_LEN)
		return -1;
	for (i = 0; i < RUN_LOG_CURSOR_LEN; i += 4) {
		for (k = 0, v = 0; k < 4; k++) {
			if (s[i + k] == '\0' || (p = strchr(b64url, s[i + k])) == NULL)
				return -1;
			v = v << 6 | (uint32_t)(p - b64url);
		}
		raw[i / 4 * 3] = (unsigned char)(v >> 16);
		raw[i / 4 * 3 + 1] = (unsigned char)(v >> 8);
		raw[i / 4 * 3 + 2] = (unsigned char)v;
	}
	*off = get_u64(raw + 8);
	if (get_u64(raw) != job || cursor_check(check, repo, run, job, *off) != 0 ||
	    memcmp(check, raw + 16, 8) != 0)
		return -1;
	return 0;
}

/*
 * The UTF-8 sequence at p (n > 0 bytes left): its length when it is a
 * valid one other than NUL (no overlong forms, surrogates or values past
 * U+10FFFF), 0 when p[0] starts none, -1 when the n bytes are the start of
 * a valid one that goes on past them.
 */
static int
utf8_seq(const unsigned char *p, size_t n)
{
	unsigned	 lo = 0x80, hi = 0xbf;
	size_t		 need, i;

	if (p[0] < 0x80)
		return p[0] != 0;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		need = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		need = 3;
		lo = p[0] == 0xe0 ? 0xa0 : 0x80;
		hi = p[0] == 0xed ? 0x9f : 0xbf;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		need = 4;
		lo = p[0] == 0xf0 ? 0x90 : 0x80;
		hi = p[0] == 0xf4 ? 0x8f : 0xbf;
	} else
		return 0;
	for (i = 1; i < need; i++, lo = 0x80, hi = 0xbf) {
		if (i == n)
			return -1;
		if (p[i] < lo || p[i] > hi)
			return 0;
	}
	return (int)need;
}

/*
 * The text of raw (n bytes) into l->text; *used receives how many bytes
 * it took.  An incomplete sequence at the end is left for the next call
 * unless last, where it becomes U+FFFD.
 */
static int
run_log_text(struct run_log *l, size_t *used, const unsigned char *raw, size_t n, int last)
{
	size_t	 i = 0, o = 0;
	int	 k;

	if ((l->text = malloc(3 * n + 1)) == NULL)
		return -1;
	while (i < n) {
		if ((k = utf8_seq(raw + i, n - i)) > 0) {
			memcpy(l->text + o, raw + i, (size_t)k);
			o += (size_t)k;
			i += (size_t)k;
			continue;
		}
		if (k < 0 && !last)
			break;
		memcpy(l->text + o, "\xef\xbf\xbd", 3);
		o += 3;
		i = k < 0 ? n : i + 1;
	}
	l->text[o] = '\0';
	l->text_len = o;
	*used = i;
	return 0;
}

static int
job_final(const char *state)
{
	return strcmp(state, "success") == 0 || strcmp(state, "failure") == 0 ||
	    strcmp(state, "cancelled") == 0 || strcmp(state, "skipped") == 0 ||
	    strcmp(state, "timed_out") == 0;
}

/* ERR_NOTFOUND for job_id, naming the jobs of run r (a long list is cut). */
static int
run_log_no_job(struct db *db, const struct forge_run *r, const char *job_id, struct err *e)
{
	struct forge_job	*jobs = NULL;
	char			 list[RUN_LOG_JOBS_LIST + 8];
	size_t			 n = 0, i, at = 0, len;
	int			 rc;

	if ((rc = forge_job_list(db, &jobs, &n, r->id, e)) != 0)
		return rc;
	list[0] = '\0';
	for (i = 0; i < n; i++) {
		len = strlen(jobs[i].job_id);
		if (at + len + 2 > RUN_LOG_JOBS_LIST) {
			snprintf(list + at, sizeof list - at, "%s\xe2\x80\xa6", i ? ", " : "");
			break;
		}
		at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "",
		    jobs[i].job_id);
	}
	forge_job_list_free(jobs, n);
	return err_set(e, ERR_NOTFOUND, "run %lld has no job '%.100s': its jobs are %s",
	    (long long)r->number, job_id, n > 0 ? list : "none");
}

int
run_log_read(struct db *db, struct run_log *out, const struct db_repo *repo, int64_t number,
    const char *job_id, const char *after, int64_t limit, struct err *e)
{
	struct forge_run	 r;
	struct forge_log_job	 j;
	struct err		 local;
	unsigned char		*raw = NULL;
	uint64_t		 from = 0, end;
	size_t			 want, got = 0, used = 0;
	int			 rc;

	memset(out, 0, sizeof *out);
	memset(&r, 0, sizeof r);
	err_clear(&local);
	if (limit < RUN_LOG_LIMIT_MIN || limit > RUN_LOG_LIMIT_MAX)
		limit = RUN_LOG_LIMIT_MAX;
	/* One query finds the run and the job: a page costs that and the chunks. */
	if ((rc = forge_log_job(db, &j, repo->id, number, job_id, &local)) == ERR_NOTFOUND) {
		rc = err_set(e, ERR_NOTFOUND, "run %lld not found in %s/%s", (long long)number,
		    repo->owner, repo->name);
		goto done;
	}
	if (rc != 0)
		goto fail;
	if (j.id == 0) {
		if ((rc = forge_run_get(db, &r, repo->id, number, &local)) != 0)
			goto fail;
		rc = run_log_no_job(db, &r, job_id, e);
		goto done;
	}
	if (after != NULL && (cursor_read(&from, after, repo->id, j.run_id, j.id) != 0 ||
	    from > (uint64_t)j.log_bytes)) {
		rc = err_set(e, ERR_INVALID, "invalid cursor for run %lld job %s: pass the "
		    "next_cursor of a previous answer, or omit after", (long long)number, job_id);
		goto done;
	}
	want = (uint64_t)j.log_bytes - from < (uint64_t)limit ?
	    (size_t)((uint64_t)j.log_bytes - from) : (size_t)limit;
	if ((raw = malloc(want + 1)) == NULL)
		goto nomem;
	if ((rc = forge_log_read(db, raw, &got, j.id, (int64_t)from, want, &local)) != 0)
		goto fail;
	/*
	 * Chunks missing below log_bytes (never, when the runner appends as
	 * it should) end the window like the limit does, without has_more.
	 * The window ends the log only when it reached log_bytes of a final job.
	 */
	end = from + got;
	if (run_log_text(out, &used, raw, got, got == want && end == (uint64_t)j.log_bytes &&
	    job_final(j.state)) != 0)
		goto nomem;
	from += used;
	if (cursor_make(out->next_cursor, repo->id, j.run_id, j.id, from) != 0)
		goto nomem;
	out->has_more = got == want && end < (uint64_t)j.log_bytes;
	out->complete = job_final(j.state) && from == (uint64_t)j.log_bytes;
	goto done;
fail:
	rc = err_set(e, rc, "%s", local.msg);
	goto done;
nomem:
	rc = err_set(e, ERR_NOMEM, "out of memory");
done:
	if (rc != 0)
		run_log_release(out);
	free(raw);
	forge_run_release(&r);
	return rc;
}

void
run_log_release(struct run_log *l)
{
	if (l == NULL)
		return;
	free(l->text);
	l->text = NULL;
	l->text_len = 0;
}
