/* Large bytes hashed chunk by chunk on several threads (cache_priv.h):
 * the device-link key's SHA-256 of a large input and the store's checksum
 * of a large entry take a fraction of the time on more than one core.
 * What is computed never depends on the number of threads. */
#include <pthread.h>
#include <stdlib.h>

#include "cache_priv.h"
#include "internal.h"

#define THREADS 4

struct chunks {
	const uint8_t *p;
	size_t n, chunk, count, next; /* next: the next chunk to hash (atomic) */
	ofl_chunk_fn *fn;
	size_t size;
	uint8_t *sums;
};

static void *hash_some(void *arg)
{
	struct chunks *c = arg;
	for (size_t i; (i = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED)) < c->count;) {
		size_t off = i * c->chunk;
		c->fn(c->p + off, c->n - off < c->chunk ? c->n - off : c->chunk,
		      c->sums + i * c->size);
	}
	return NULL;
}

size_t ofl_chunk_count(size_t n, size_t chunk)
{
	return n ? (n - 1) / chunk + 1 : 1;
}

void ofl_hash_chunks(const uint8_t *p, size_t n, size_t chunk, ofl_chunk_fn *fn, size_t size,
                     uint8_t *sums)
{
	struct chunks c = {p, n, chunk, ofl_chunk_count(n, chunk), 0, fn, size, sums};
	pthread_t th[THREADS - 1];
	size_t started = 0;
	/* threads that cannot start leave their chunks to this one */
	while (started < THREADS - 1 && started + 1 < c.count &&
	       !pthread_create(&th[started], NULL, hash_some, &c))
		started++;
	hash_some(&c);
	while (started)
		pthread_join(th[--started], NULL);
}
