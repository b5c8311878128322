/* libFuzzer's defaults miss inputs that cost time: lengths are capped near
 * the largest seed (a few KB) and one input may run 20 minutes, so a
 * quadratic walk over a 64 KB image was never found.  Targets whose work
 * grows with the input say how large their inputs may be; unless the
 * command line says otherwise, they run with that -max_len and a 10 s
 * -timeout per input.  (The replay driver has a limit of its own.) */
#ifndef OFL_FUZZ_LIMITS_H
#define OFL_FUZZ_LIMITS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OFL_FUZZ_LIMITS(max_len)                                                                   \
	int LLVMFuzzerInitialize(int *argc, char ***argv);                                         \
	int LLVMFuzzerInitialize(int *argc, char ***argv)                                          \
	{                                                                                          \
		static char len_opt[32], time_opt[] = "-timeout=10";                               \
		bool has_len = false, has_time = false;                                            \
		for (int i = 1; i < *argc; i++) {                                                  \
			has_len |= !strncmp((*argv)[i], "-max_len=", 9);                           \
			has_time |= !strncmp((*argv)[i], "-timeout=", 9);                          \
		}                                                                                  \
		char **v = calloc((size_t)*argc + 3, sizeof(*v));                                  \
		if (!v)                                                                            \
			return 0;                                                                  \
		memcpy(v, *argv, (size_t)*argc * sizeof(*v));                                      \
		snprintf(len_opt, sizeof(len_opt), "-max_len=%d", (int)(max_len));                 \
		if (!has_len)                                                                      \
			v[(*argc)++] = len_opt;                                                    \
		if (!has_time)                                                                     \
			v[(*argc)++] = time_opt;                                                   \
		*argv = v;                                                                         \
		return 0;                                                                          \
	}

#endif
