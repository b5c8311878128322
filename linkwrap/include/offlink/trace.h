/* A link's time trace (--time-trace, docs/integration.md "Where the time
 * went"): spans on tracks, written as a Chrome trace-event JSON file, as
 * lld's --time-trace and clang's -ftime-trace write, for Perfetto and
 * chrome://tracing.  The front end makes one and hands it to the link
 * (ofl_link_opts.trace), which records its steps on the main track and
 * each device action on a track of its own; the front end adds what it
 * runs itself (the host link) and writes the file.  Every call with a NULL
 * trace does nothing, so a link that is not traced pays one test per
 * span.  Thread-safe: device actions record from their workers. */
#ifndef OFFLINK_TRACE_H
#define OFFLINK_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

struct ofl_trace;

/* The track of the link's own steps, named after the process. */
#define OFL_TRACE_MAIN 1u

/* A span's argument: a string, or (str NULL) a number. */
struct ofl_trace_arg {
	const char *key;
	const char *str;
	long long num;
};

/* A trace starting now; process names the process and the main track. */
int ofl_trace_new(struct ofl_trace **t, const char *process, struct ofl_error *err);
void ofl_trace_free(struct ofl_trace *t);

/* Microseconds since the trace started; 0 without a trace. */
uint64_t ofl_trace_now(const struct ofl_trace *t);

/* A new track named name (copied): its number, for ofl_trace_span; 0
 * without a trace. */
unsigned ofl_trace_track(struct ofl_trace *t, const char *name);

/* A span on track from begin (ofl_trace_now's) to now; name and args are
 * copied.  Spans on one track nest: one that starts inside another ends
 * inside it. */
void ofl_trace_span(struct ofl_trace *t, unsigned track, const char *name, uint64_t begin,
                    const struct ofl_trace_arg *args, size_t nargs);

/* Whether path can be written ("-": standard output), before the link
 * starts: a temporary made beside it and removed. */
int ofl_trace_writable(const char *path, struct ofl_error *err);

/* The trace as JSON into path, atomically (a temporary renamed); a span
 * lost for want of memory makes it OFL_ENOMEM, as an incomplete trace
 * would mislead. */
int ofl_trace_write(struct ofl_trace *t, const char *path, struct ofl_error *err);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
