/* fair: how many of a host's workers serve each account right now (see fair.h). */
#include <sys/mman.h>

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "fair.h"

struct fair {
	pthread_mutex_t	lock;
	int		n;
	int		limit;
	uint64_t	account[];	/* per slot; 0: serving nobody */
};

static size_t
fair_size(int n)
{
	return offsetof(struct fair, account) + (size_t)n * sizeof(uint64_t);
}

struct fair *
fair_new(int n, int limit)
{
	pthread_mutexattr_t	 a;
	struct fair		*f;
	int			 ok;

	if (n < 1 || limit < 1)
		return NULL;
	f = mmap(NULL, fair_size(n), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (f == MAP_FAILED)
		return NULL;
	f->n = n;
	f->limit = limit;
	ok = pthread_mutexattr_init(&a) == 0;
	ok = ok && pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) == 0 &&
	    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) == 0 &&
	    pthread_mutex_init(&f->lock, &a) == 0;
	pthread_mutexattr_destroy(&a);
	if (!ok) {
		munmap(f, fair_size(n));
		return NULL;
	}
	return f;
}

void
fair_free(struct fair *f)
{
	if (f == NULL)
		return;
	pthread_mutex_destroy(&f->lock);
	munmap(f, fair_size(f->n));
}

int
fair_limit(const struct fair *f)
{
	return f != NULL ? f->limit : 0;
}

/* Takes the lock; one whose owner died is taken over, its table still whole. */
static void
fair_lock(struct fair *f)
{
	if (pthread_mutex_lock(&f->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&f->lock);
}

enum fair_verdict
fair_enter(struct fair *f, int slot, uint64_t account)
{
	enum fair_verdict	 v = FAIR_OK;
	int			 i, own = 0, others = 0;

	if (f == NULL || slot < 0 || slot >= f->n)
		return FAIR_OK;
	fair_lock(f);
	for (i = 0; i < f->n; i++) {
		if (i == slot || f->account[i] == 0)
			continue;
		others++;
		if (f->account[i] == account)
			own++;
	}
	if (own >= f->limit)
		v = FAIR_SHARE;
	else if (own > 0 && others == f->n - 1)
		v = FAIR_LAST;
	else
		f->account[slot] = account;
	pthread_mutex_unlock(&f->lock);
	return v;
}

void
fair_leave(struct fair *f, int slot)
{
	if (f == NULL || slot < 0 || slot >= f->n)
		return;
	fair_lock(f);
	f->account[slot] = 0;
	pthread_mutex_unlock(&f->lock);
}
