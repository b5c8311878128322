/* Fuzzes the driver's answer remembered (linkwrap/plan/driver_memo.c):
 * the input read as `clang -###` output for a command of a fixed shape
 * made into a memo, that memo turned back into jobs, and the input read
 * as a memo too (one read from a damaged store).  Every job has words,
 * every word is a string; a memo too large is refused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "driver_memo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void jobs_of(const uint8_t *m, size_t n)
{
	static char *own[] = {"/link/in.o", "/link/out.img"};
	struct ofl_argv *jobs;
	size_t njobs;
	struct ofl_error err = OFL_ERROR_INIT;
	int rc = ofl_memo_jobs(m, n, own, 2, "/link/out.img", &jobs, &njobs, &err);
	if (rc != 0 && rc != 1 && rc != OFL_ENOMEM)
		abort();
	if (rc && (jobs || njobs))
		abort();
	for (size_t j = 0; j < njobs; j++) {
		if (!jobs[j].n)
			abort();
		for (size_t i = 0; i < jobs[j].n; i++)
			if (!jobs[j].v[i] || strlen(jobs[j].v[i]) > n + 64)
				abort();
		ofl_argv_release(&jobs[j]);
	}
	free(jobs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	struct ofl_argv shape = OFL_ARGV_INIT, temps = OFL_ARGV_INIT;
	struct ofl_buf m = OFL_BUF_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	/* OFL_MEMO_OWN (octal 002) and each own file's index (three octal
	 * digits end the escape) */
	const char *words[] = {"-o", "\0021:p.img", "\0020:p.o", "--target=x86_64"};
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (ofl_argv_push(&shape, words[i], &err))
			abort();
	if (!ofl_memo_of(text, "/probe", &shape, &temps, &m)) {
		if (m.len >= OFL_MEMO_MAX)
			abort();
		jobs_of(m.data, m.len);
	}
	jobs_of(data, size);
	ofl_buf_release(&m);
	ofl_argv_release(&temps);
	ofl_argv_release(&shape);
	free(text);
	return 0;
}
