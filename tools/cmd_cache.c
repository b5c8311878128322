/* offlink cache stats|clear|trim: the local device-link cache
 * (docs/integration.md, "The device-link cache"), where the environment
 * puts it (offlink/cache.h). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "diag.h"
#include "offlink/cache.h"
#include "opts.h"

extern char **environ;

static void usage(FILE *f)
{
	fputs("usage: offlink cache stats|clear|trim [--max-size=SIZE]\n\n"
	      "The local cache of device-link outputs ($OFFLINK_CACHE_DIR, else\n"
	      "$XDG_CACHE_HOME/offlink or ~/.cache/offlink):\n"
	      "  stats    entries, size, hits and misses since it was made or cleared,\n"
	      "           the hashes of large inputs it remembers by file identity,\n"
	      "           and the temporaries of stores under way or interrupted\n"
	      "  clear    remove every entry and the statistics\n"
	      "  trim     remove the least recently used entries down to the size limit\n"
	      "           ($OFFLINK_CACHE_MAX_SIZE or --max-size, e.g. 500M; default 5G)\n"
	      "clear and trim also remove the temporaries of interrupted stores (older\n"
	      "than 5 minutes and not being written).\n",
	      f);
}

static void print_size(const char *what, uint64_t n)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)n;
	size_t u = 0;
	for (; v >= 1024 && u < 4; u++)
		v /= 1024;
	if (what)
		printf("%-12s ", what);
	printf("%.*f %s%s", u ? 1 : 0, v, units[u], what ? "\n" : "");
}

static int stats(const char *dir, uint64_t max)
{
	struct ofl_cache_stats s;
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_cache_stats(dir, &s, &err))
		return error_lib(&err);
	uint64_t looked = s.hits + s.misses;
	printf("%-12s %s\n", "directory", dir);
	printf("%-12s %llu\n", "entries", (unsigned long long)s.entries);
	printf("%-12s %llu\n", "input hashes", (unsigned long long)s.memos);
	print_size("size", s.bytes);
	print_size("limit", max);
	printf("%-12s %llu (%llu from the remote)\n", "hits", (unsigned long long)s.hits,
	       (unsigned long long)s.remote_hits);
	printf("%-12s %llu\n", "misses", (unsigned long long)s.misses);
	printf("%-12s %llu (", "temporaries", (unsigned long long)s.temporaries);
	print_size(NULL, s.temporary_bytes);
	puts(")");
	if (looked)
		printf("%-12s %.1f%%\n", "hit rate", 100.0 * (double)s.hits / (double)looked);
	return 0;
}

int cmd_cache(int argc, char **argv)
{
	struct ofl_cache_config c;
	struct ofl_error err = OFL_ERROR_INIT;
	const char *action = argc > 1 ? argv[1] : NULL;
	if (action && (!strcmp(action, "--help") || !strcmp(action, "-h"))) {
		usage(stdout);
		return 0;
	}
	if (action && !strcmp(action, "--version")) {
		print_version(NULL);
		return 0;
	}
	if (ofl_cache_config_from_env(environ, &c, &err))
		return error_lib(&err);
	int rc = 0;
	bool sized = false;
	uint64_t max = c.opts.max_size;
	const char *dir = c.opts.dir;
	for (int i = 2; !rc && i < argc; i++) {
		if (strncmp(argv[i], "--max-size=", 11))
			rc = error("cache: unknown argument '%s'; see 'offlink cache --help'",
			           argv[i]);
		else if (ofl_cache_parse_size(argv[i] + 11, &max, &err)) {
			ofl_error_prefix(&err, "cache: --max-size");
			rc = error_lib(&err);
		} else
			sized = true;
	}
	if (!rc && !sized && c.opts.unusable)
		rc = error("cache: %s", c.opts.unusable);
	if (!rc && !dir)
		rc = error("cache: no directory: set OFFLINK_CACHE_DIR or HOME");
	else if (!rc && (!action || !strcmp(action, "stats")))
		rc = stats(dir, max);
	else if (!rc && !strcmp(action, "clear"))
		rc = ofl_cache_clear(dir, &err) ? error_lib(&err) : 0;
	else if (!rc && !strcmp(action, "trim"))
		rc = ofl_cache_trim(dir, max, &err) ? error_lib(&err) : stats(dir, max);
	else if (!rc)
		rc = error("cache: unknown action '%s' (stats, clear, trim)", action);
	ofl_cache_config_release(&c);
	return rc;
}
