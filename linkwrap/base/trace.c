/* A link's time trace (offlink/trace.h): spans kept in memory as they end,
 * written once as Chrome's trace-event JSON: complete events ("ph":"X",
 * microseconds from the trace's start), "M" events naming the process and
 * each track, and the start as microseconds since the epoch
 * ("beginningOfTime"), as lld writes it. */
#include "offlink/trace.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "offlink/buf.h"
#include "offlink/io.h"

struct span {
	unsigned track;
	uint64_t begin, dur;
	char *json; /* ,"name":...,"args":{...} */
};

struct ofl_trace {
	pthread_mutex_t lock;
	struct timespec start;
	uint64_t epoch_us; /* the start, for beginningOfTime */
	struct span *spans;
	size_t nspans, capspans;
	struct ofl_ptrs tracks; /* names; track n is tracks.v[n - 1] */
	bool lost;              /* a span or track lost for want of memory */
};

static uint64_t us_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)(t.tv_sec - t0->tv_sec) * 1000000u +
	       (uint64_t)((t.tv_nsec - t0->tv_nsec) / 1000);
}

int ofl_trace_new(struct ofl_trace **out, const char *process, struct ofl_error *err)
{
	struct ofl_trace *t = ofl_calloc(1, sizeof(*t));
	char *name = ofl_strdup(process);
	if (!t || !name || ofl_ptrs_push(&t->tracks, name)) {
		free(t); /* a failed push frees name */
		return OFL_NOMEM(err);
	}
	pthread_mutex_init(&t->lock, NULL);
	struct timespec wall;
	clock_gettime(CLOCK_REALTIME, &wall);
	clock_gettime(CLOCK_MONOTONIC, &t->start);
	t->epoch_us = (uint64_t)wall.tv_sec * 1000000u + (uint64_t)wall.tv_nsec / 1000;
	*out = t;
	return 0;
}

void ofl_trace_free(struct ofl_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nspans; i++)
		free(t->spans[i].json);
	free(t->spans);
	ofl_ptrs_release(&t->tracks);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

uint64_t ofl_trace_now(const struct ofl_trace *t)
{
	return t ? us_since(&t->start) : 0;
}

unsigned ofl_trace_track(struct ofl_trace *t, const char *name)
{
	if (!t)
		return 0;
	char *copy = ofl_strdup(name);
	pthread_mutex_lock(&t->lock);
	unsigned n = 0;
	if (copy && !ofl_ptrs_push(&t->tracks, copy))
		n = (unsigned)t->tracks.n;
	t->lost |= !n;
	pthread_mutex_unlock(&t->lock);
	return n;
}

static int append_args(struct ofl_buf *b, const struct ofl_trace_arg *args, size_t nargs)
{
	int rc = nargs ? ofl_buf_append_str(b, ",\"args\":{") : 0;
	for (size_t i = 0; !rc && i < nargs; i++) {
		const struct ofl_trace_arg *a = &args[i];
		rc = i ? ofl_buf_append(b, ",", 1) : 0;
		rc = rc ? rc : ofl_buf_append_json(b, a->key, strlen(a->key));
		rc = rc ? rc : ofl_buf_append(b, ":", 1);
		rc = rc       ? rc
		     : a->str ? ofl_buf_append_json(b, a->str, strlen(a->str))
		              : ofl_buf_printf(b, "%lld", a->num);
	}
	return rc || !nargs ? rc : ofl_buf_append(b, "}", 1);
}

void ofl_trace_span(struct ofl_trace *t, unsigned track, const char *name, uint64_t begin,
                    const struct ofl_trace_arg *args, size_t nargs)
{
	if (!t)
		return;
	uint64_t end = us_since(&t->start);
	struct ofl_buf b = OFL_BUF_INIT;
	int rc = ofl_buf_append_str(&b, ",\"name\":");
	rc = rc ? rc : ofl_buf_append_json(&b, name, strlen(name));
	rc = rc ? rc : append_args(&b, args, nargs);
	rc = rc ? rc : ofl_buf_append(&b, "", 1);
	pthread_mutex_lock(&t->lock);
	rc = rc || !track ? OFL_ENOMEM : OFL_GROW(t->spans, t->capspans, t->nspans);
	if (!rc)
		t->spans[t->nspans++] = (struct span){track, begin, end > begin ? end - begin : 0,
		                                      (char *)ofl_buf_detach(&b, NULL)};
	t->lost |= rc != 0;
	pthread_mutex_unlock(&t->lock);
	ofl_buf_release(&b);
}

int ofl_trace_writable(const char *path, struct ofl_error *err)
{
	struct ofl_out o;
	int rc = ofl_out_open(&o, path, err);
	if (!rc)
		ofl_out_abort(&o);
	return rc;
}

/* Spans by start, a span before those it holds (the longer first). */
static int by_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->track < y->track ? -1 : x->track > y->track;
}

static int metadata(struct ofl_buf *b, int pid, const char *what, unsigned track, const char *name)
{
	int rc = ofl_buf_printf(b,
	                        "{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"ts\":0,\"cat\":\"\","
	                        "\"name\":\"%s\",\"args\":{\"name\":",
	                        pid, track, what);
	rc = rc ? rc : ofl_buf_append_json(b, name, strlen(name));
	return rc ? rc : ofl_buf_append_str(b, "}},\n");
}

static int render(struct ofl_trace *t, struct ofl_buf *b)
{
	int pid = (int)getpid();
	if (t->nspans) /* none: spans is NULL, which qsort may not be given */
		qsort(t->spans, t->nspans, sizeof(*t->spans), by_start);
	int rc = ofl_buf_append_str(b, "{\"traceEvents\":[\n");
	for (size_t i = 0; !rc && i < t->nspans; i++) {
		const struct span *s = &t->spans[i];
		rc = ofl_buf_printf(
		    b, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%llu,\"dur\":%llu%s},\n", pid,
		    s->track, (unsigned long long)s->begin, (unsigned long long)s->dur, s->json);
	}
	rc = rc ? rc : metadata(b, pid, "process_name", OFL_TRACE_MAIN, t->tracks.v[0]);
	for (size_t i = 0; !rc && i < t->tracks.n; i++)
		rc = metadata(b, pid, "thread_name", (unsigned)i + 1, t->tracks.v[i]);
	/* the last event's ",\n" ends the list */
	if (!rc)
		b->len -= 2;
	return rc ? rc
	          : ofl_buf_printf(b, "\n],\n\"beginningOfTime\":%llu}\n",
	                           (unsigned long long)t->epoch_us);
}

int ofl_trace_write(struct ofl_trace *t, const char *path, struct ofl_error *err)
{
	struct ofl_buf b = OFL_BUF_INIT;
	pthread_mutex_lock(&t->lock);
	int rc = t->lost ? OFL_ENOMEM : render(t, &b);
	pthread_mutex_unlock(&t->lock);
	rc = rc ? OFL_NOMEM(err) : ofl_write_file(path, b.data, b.len, err);
	ofl_buf_release(&b);
	return rc;
}
