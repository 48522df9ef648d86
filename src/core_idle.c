/*
 * core_idle: an idle worker gives back what it holds: what a large request
 * left (cached repositories, free heap) and its account request blocks.
 */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "admit.h"
#include "core.h"
#include "store/repo.h"

/*
 * Heap in use above which core_idle closes the cached repositories at once,
 * even while requests keep coming: a bound on a busy worker, not the usual
 * way back (that is core_rest, once the worker is idle).  A search or a
 * diff over a large repository leaves 4 to 20 MB of libgit2's delta and
 * object caches; closing them after each one made every search start cold,
 * at about three times the CPU of a warm one.
 */
#define CORE_HEAP_HIGH		(48u * 1024 * 1024)
#define CORE_FREE_HIGH		(1u * 1024 * 1024)	/* free heap worth returning */

/*
 * Resident size (4 KiB pages) above which an idle worker closes its cached
 * repositories and trims its heap (core_rest): their mapped pack windows
 * and caches count in it; the heap counters do not see the windows.
 */
#define CORE_RSS_IDLE		(12l * 1024 * 1024 / 4096)
/*
 * Time spent serving since the last look worth looking at the heap and the
 * resident size again (besides once a second): growing either by a few MB
 * takes thousands of page faults, far more than this.
 */
#define CORE_LOOK_US		2000

static int	core_statm = -1;	/* /proc/self/statm, opened by the serving process */
static int	core_large;		/* resident size above CORE_RSS_IDLE at the last look */
static long	core_served_us;		/* time in core_handle since the last look */

/* This process's resident size in 4 KiB pages, or -1. */
static long
core_resident(void)
{
	char	 buf[128];
	ssize_t	 n;
	long	 size, resident;

	if (core_statm < 0 && (core_statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if ((n = pread(core_statm, buf, sizeof(buf) - 1, 0)) <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%ld %ld", &size, &resident) != 2)
		return -1;
	return resident * (sysconf(_SC_PAGESIZE) / 4096);
}

void
core_served(long us)
{
	core_served_us += us;
}

int
core_idle(struct core *c)
{
	static time_t		 looked_at, trimmed_at;
	struct mallinfo2	 mi;
	time_t			 now = time(NULL);

	/*
	 * Look at the heap and the resident size after CORE_LOOK_US of
	 * requests, and at least once a second; not after every request:
	 * mallinfo2() walks every free list (it cost about 5% of a small
	 * read's time), and counting page faults instead is a system call.
	 */
	if (core_served_us < CORE_LOOK_US && now == looked_at)
		return core_large || admit_holding(c->admit);
	core_served_us = 0;
	looked_at = now;
	mi = mallinfo2();
	if (mi.uordblks + mi.hblkhd > CORE_HEAP_HIGH) {
		repo_cache_close_all(c->repos);
		mi = mallinfo2();
	}
	/*
	 * Give free heap back, at most once a second: a trim walks the whole
	 * heap, and trimming on every request would cost more than the
	 * requests.  Free chunks stay counted as free after a trim, so their
	 * size alone cannot tell whether one is due.
	 */
	if (mi.fordblks > CORE_FREE_HIGH && now != trimmed_at) {
		malloc_trim(0);
		trimmed_at = now;
	}
	core_large = core_resident() > CORE_RSS_IDLE;
	return core_large || admit_holding(c->admit);
}

void
core_rest(struct core *c)
{
	admit_release(c->admit, c->db);
	if (!core_large)
		return;
	repo_cache_close_all(c->repos);
	malloc_trim(0);
	core_large = 0;
}
