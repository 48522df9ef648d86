/* tap: a header-only Test Anything Protocol producer for the C unit tests. */
#ifndef FM_TAP_H
#define FM_TAP_H

/*
 * Include this in exactly one translation unit (a test program's main
 * file).  Everything is static; results go to stdout as TAP version 12,
 * diagnostics to stderr prefixed with "# ".
 *
 *	plan(n)			announce n tests up front (optional)
 *	ok(cond, fmt, ...)	one test named by fmt; returns cond as 0/1
 *				(newlines and '#' in names are escaped)
 *	is_int(got, want, fmt, ...)	compares two integers (long long)
 *	is_str(got, want, fmt, ...)	compares two strings (either may be NULL)
 *	is_mem(got, glen, want, wlen, fmt, ...)	compares two byte ranges
 *	skip(n, fmt, ...)	records n skipped tests
 *	diag(fmt, ...)		a diagnostic line (stderr)
 *	note(fmt, ...)		a comment line (stdout)
 *	bail_out(fmt, ...)	stops the run ("Bail out!") with exit code 255
 *	done_testing()		prints "1..N" if no plan was given; returns
 *				the exit code for main: 0 when every test
 *				passed and the count matches the plan, else 1
 *
 * A failing test names the file and line of the call, and is_* print what
 * they got and what they wanted.
 *
 *	int main(void) {
 *		ok(1 + 1 == 2, "arithmetic");
 *		is_str(name, "repo", "name is %s", "repo");
 *		return done_testing();
 *	}
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int	tap_planned_ = -1;	/* -1: no plan given */
static int	tap_run_;
static int	tap_failed_;

#define TAP_PRINTF_(a, b) __attribute__((format(printf, a, b)))

static inline void TAP_PRINTF_(3, 0)
tap_vline_(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
}

static inline void TAP_PRINTF_(1, 2)
diag(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	tap_vline_(stderr, "# ", fmt, ap);
	va_end(ap);
	fflush(stderr);
}

static inline void TAP_PRINTF_(1, 2)
note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline_(stdout, "# ", fmt, ap);
	va_end(ap);
}

static inline void
plan(int n)
{
	if (tap_planned_ >= 0 || tap_run_ > 0) {
		diag("plan() called twice or after tests ran");
		tap_failed_++;
		return;
	}
	tap_planned_ = n;
	printf("1..%d\n", n);
}

static inline void TAP_PRINTF_(1, 2)
bail_out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline_(stdout, "Bail out! ", fmt, ap);
	va_end(ap);
	fflush(stdout);
	exit(255);
}

static inline int TAP_PRINTF_(4, 0)
tap_vok_(const char *file, int line, int cond, const char *fmt, va_list ap)
{
	char name[1024];
	const char *p;

	tap_run_++;
	if (!cond)
		tap_failed_++;
	vsnprintf(name, sizeof(name), fmt, ap);
	printf("%sok %d - ", cond ? "" : "not ", tap_run_);
	for (p = name; *p != '\0'; p++) {
		if (*p == '\n')
			fputs("\\n", stdout);
		else if (*p == '\r')
			fputs("\\r", stdout);
		else if (*p == '#')
			fputs("\\#", stdout);
		else
			putchar(*p);
	}
	putchar('\n');
	if (!cond)
		diag("  failed test at %s line %d", file, line);
	return cond;
}

static inline int TAP_PRINTF_(4, 5)
tap_ok_(const char *file, int line, int cond, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok_(file, line, cond != 0, fmt, ap);
	va_end(ap);
	return r;
}

static inline int TAP_PRINTF_(5, 6)
tap_is_int_(const char *file, int line, long long got, long long want, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok_(file, line, got == want, fmt, ap);
	va_end(ap);
	if (!r) {
		diag("         got: %lld", got);
		diag("    expected: %lld", want);
	}
	return r;
}

static inline int TAP_PRINTF_(5, 6)
tap_is_str_(const char *file, int line, const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	int same, r;

	if (got == NULL || want == NULL)
		same = got == want;
	else
		same = strcmp(got, want) == 0;
	va_start(ap, fmt);
	r = tap_vok_(file, line, same, fmt, ap);
	va_end(ap);
	if (!r) {
		if (got == NULL)
			diag("         got: NULL");
		else
			diag("         got: '%s'", got);
		if (want == NULL)
			diag("    expected: NULL");
		else
			diag("    expected: '%s'", want);
	}
	return r;
}

static inline void
tap_dump_mem_(const char *label, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i;

	fflush(stdout);
	if (p == NULL) {
		fprintf(stderr, "# %12s: NULL\n", label);
		return;
	}
	fprintf(stderr, "# %12s: (%zu bytes) ", label, n);
	for (i = 0; i < n && i < 64; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\')
			fputc(s[i], stderr);
		else
			fprintf(stderr, "\\x%02x", s[i]);
	}
	fputs(i < n ? "...\n" : "\n", stderr);
}

static inline int TAP_PRINTF_(7, 8)
tap_is_mem_(const char *file, int line, const void *got, size_t glen, const void *want,
    size_t wlen, const char *fmt, ...)
{
	va_list ap;
	int same, r;

	if (got == NULL || want == NULL)
		same = got == want;
	else
		same = glen == wlen && (glen == 0 || memcmp(got, want, glen) == 0);
	va_start(ap, fmt);
	r = tap_vok_(file, line, same, fmt, ap);
	va_end(ap);
	if (!r) {
		tap_dump_mem_("got", got, glen);
		tap_dump_mem_("expected", want, wlen);
	}
	return r;
}

static inline void TAP_PRINTF_(2, 3)
skip(int n, const char *fmt, ...)
{
	va_list ap;

	while (n-- > 0) {
		tap_run_++;
		printf("ok %d # skip ", tap_run_);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	}
}

static inline int
done_testing(void)
{
	if (tap_planned_ < 0)
		printf("1..%d\n", tap_run_);
	else if (tap_planned_ != tap_run_)
		diag("planned %d tests but ran %d", tap_planned_, tap_run_);
	if (tap_failed_ > 0)
		diag("failed %d of %d tests", tap_failed_, tap_run_);
	fflush(stdout);
	return tap_failed_ == 0 && (tap_planned_ < 0 || tap_planned_ == tap_run_) ? 0 : 1;
}

#define ok(...)		tap_ok_(__FILE__, __LINE__, __VA_ARGS__)
#define is_int(...)	tap_is_int_(__FILE__, __LINE__, __VA_ARGS__)
#define is_str(...)	tap_is_str_(__FILE__, __LINE__, __VA_ARGS__)
#define is_mem(...)	tap_is_mem_(__FILE__, __LINE__, __VA_ARGS__)

#endif
