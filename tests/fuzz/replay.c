/* Runs a libFuzzer entry point over every file of a corpus directory, so the
 * seed corpus is replayed by ctest without libFuzzer. */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An input that runs this long is a hang or a blow-up in the code under
 * test (seeds take milliseconds; sanitizers make that tens), so the replay
 * fails and names it.  OFL_FUZZ_TIMEOUT overrides the seconds. */
static const char *current;

static void timed_out(int sig)
{
	static const char msg[] = "replay: input took too long (a hang or a blow-up): ";
	(void)!write(2, msg, sizeof(msg) - 1);
	(void)!write(2, current, strlen(current));
	(void)!write(2, "\n", 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, r;
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		r = fread(buf + len, 1, cap - len, f);
		len += r;
	} while (r > 0);
	fclose(f);
	const char *limit = getenv("OFL_FUZZ_TIMEOUT");
	current = path;
	alarm(limit ? (unsigned)atoi(limit) : 60);
	LLVMFuzzerTestOneInput(buf, len);
	alarm(0);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	signal(SIGALRM, timed_out);
	DIR *d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
		if (run_file(path) == 0)
			n++;
	}
	closedir(d);
	printf("%d passed, 0 failed\n", n);
	return n ? 0 : 1;
}
