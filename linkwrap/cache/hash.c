/* The cache's hashing primitives (cache_priv.h): SHA-256 at the CPU's speed
 * (nettle), hex names, and hashing on several threads: the device-link
 * key's SHA-256 of a large input or of a command's many small ones, and
 * the store's checksum of a large entry, take a fraction of the time on
 * more than one core.  What is computed never depends on the number of
 * threads. */
#include <pthread.h>
#include <stdlib.h>

#include "cache_priv.h"
#include "internal.h"

#define THREADS 4

struct work {
	size_t count, next; /* next: the next item (atomic) */
	void (*fn)(void *arg, size_t i);
	void *arg;
};

static void *run_some(void *arg)
{
	struct work *w = arg;
	for (size_t i; (i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->count;)
		w->fn(w->arg, i);
	return NULL;
}

/* fn(arg, i) for every i < count, on up to THREADS threads (the
 * caller's among them). */
static void parallel_for(size_t count, void (*fn)(void *arg, size_t i), void *arg)
{
	struct work w = {count, 0, fn, arg};
	pthread_t th[THREADS - 1];
	size_t started = 0;
	/* threads that cannot start leave their items to this one */
	while (started < THREADS - 1 && started + 1 < count &&
	       !pthread_create(&th[started], NULL, run_some, &w))
		started++;
	run_some(&w);
	while (started)
		pthread_join(th[--started], NULL);
}

struct chunks {
	const uint8_t *p;
	size_t n, chunk;
	ofl_chunk_fn *fn;
	size_t size;
	uint8_t *sums;
};

static void hash_chunk(void *arg, size_t i)
{
	struct chunks *c = arg;
	size_t off = i * c->chunk;
	c->fn(c->p + off, c->n - off < c->chunk ? c->n - off : c->chunk, c->sums + i * c->size);
}

size_t ofl_chunk_count(size_t n, size_t chunk)
{
	return n ? (n - 1) / chunk + 1 : 1;
}

void ofl_hash_chunks(const uint8_t *p, size_t n, size_t chunk, ofl_chunk_fn *fn, size_t size,
                     uint8_t *sums)
{
	struct chunks c = {p, n, chunk, fn, size, sums};
	parallel_for(ofl_chunk_count(n, chunk), hash_chunk, &c);
}

void ofl_sha256(const void *p, size_t n, uint8_t sum[OFL_CACHE_KEY_SIZE])
{
	struct sha256_ctx c;
	sha256_init(&c);
	sha256_update(&c, n, p);
	sha256_digest(&c, OFL_CACHE_KEY_SIZE, sum);
}

void ofl_hex(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}
