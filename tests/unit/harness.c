#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

int ofl_test_failed;

struct ofl_buf ofl_test_fixture(const char *rel)
{
	char path[4096];
	const char *src = getenv("OFL_SRC");
	const char *f = __FILE__, *cut = strstr(f, "unit/harness.c");
	if (src)
		snprintf(path, sizeof path, "%s/tests/fixtures/%s", src, rel);
	else
		snprintf(path, sizeof path, "%.*sfixtures/%s", (int)(cut - f), f, rel);
	struct ofl_buf b = OFL_BUF_INIT;
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		fprintf(stderr, "cannot open fixture %s\n", path);
		return b;
	}
	char tmp[4096];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, fp)) > 0)
		if (ofl_buf_append(&b, tmp, n) < 0)
			abort();
	fclose(fp);
	return b;
}

static struct {
	const char *name;
	ofl_test_fn fn;
} tests[512];
static int ntests;

void ofl_test_register(const char *name, ofl_test_fn fn)
{
	if (ntests < (int)(sizeof tests / sizeof tests[0]))
		tests[ntests++] = (__typeof__(tests[0])){name, fn};
}

static int run_in_scratch(int i)
{
	char dir[] = "/tmp/ofl-unit-XXXXXX";
	if (!mkdtemp(dir) || chdir(dir) < 0) {
		perror("scratch dir");
		return 1;
	}
	ofl_test_failed = 0;
	tests[i].fn();
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (chdir("/") == 0 && system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", dir);
	return ofl_test_failed;
}

int main(int argc, char **argv)
{
	int failed = 0, ran = 0;
	for (int i = 0; i < ntests; i++) {
		if (argc > 1 && strcmp(argv[1], tests[i].name) != 0)
			continue;
		int f = run_in_scratch(i);
		printf("%s %s\n", f ? "FAIL" : "ok  ", tests[i].name);
		failed += f;
		ran++;
	}
	printf("%d passed, %d failed\n", ran - failed, failed);
	return failed || ran == 0 ? 1 : 0;
}
