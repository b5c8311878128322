#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "offlink/driver.h"
#include "offlink/nearest.h"
#include "opts.h"

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "%s: error: out of memory\n", ofl_prog);
		exit(1);
	}
	return p;
}

static void push_n(struct strlist *l, const char *s, size_t n)
{
	char *copy = xrealloc(NULL, n + 1);
	memcpy(copy, s, n);
	copy[n] = '\0';
	l->v = xrealloc(l->v, (l->n + 1) * sizeof *l->v);
	l->v[l->n++] = copy;
}

void strlist_push(struct strlist *l, const char *s)
{
	push_n(l, s, strlen(s));
}

void strlist_push_csv(struct strlist *l, const char *s)
{
	for (;;) {
		const char *c = strchr(s, ',');
		push_n(l, s, c ? (size_t)(c - s) : strlen(s));
		if (!c)
			break;
		s = c + 1;
	}
}

void strlist_release(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free((char *)l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static const struct opt *find_opt(const struct opt *t, const char *name, size_t len)
{
	for (; t->name; t++)
		if (strlen(t->name) == len && memcmp(t->name, name, len) == 0)
			return t;
	return NULL;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "TRUE") || !strcmp(v, "True") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "false") || !strcmp(v, "FALSE") || !strcmp(v, "False") ||
	         !strcmp(v, "0"))
		*out = false;
	else
		return -1;
	return 0;
}

static int set_value(const struct opt *o, const char *v)
{
	char *end;
	switch (o->type) {
	case OPT_STR:
		*(const char **)o->dest = v;
		return 0;
	case OPT_LIST:
		strlist_push(o->dest, v);
		return 0;
	case OPT_CSV:
		strlist_push_csv(o->dest, v);
		return 0;
	case OPT_UINT:
		errno = 0;
		*(unsigned long long *)o->dest = strtoull(v, &end, 0);
		if (errno || *end || !*v || *v == '-') {
			fprintf(stderr,
			        "%s: for the --%s option: '%s' value invalid for uint argument!\n",
			        prog_base(), o->name, v);
			return 1;
		}
		return 0;
	case OPT_INT:
		errno = 0;
		*(long long *)o->dest = strtoll(v, &end, 0);
		if (errno || *end || !*v) {
			fprintf(
			    stderr,
			    "%s: for the --%s option: '%s' value invalid for integer argument!\n",
			    prog_base(), o->name, v);
			return 1;
		}
		return 0;
	case OPT_FLAG:
		if (parse_bool(v, o->dest)) {
			fprintf(stderr,
			        "%s: for the --%s option: '%s' is invalid value for boolean "
			        "argument! Try 0 or 1\n",
			        prog_base(), o->name, v);
			return 1;
		}
		return 0;
	case OPT_HELP:
	case OPT_VERSION:
		return 0;
	}
	return 1;
}

/* An option that is not in the table, with the nearest that is, spelled
 * as LLVM's tools spell it: its value kept, one dash for one letter. */
static int unknown_option(const struct opt *table, const char *arg, const char *name, size_t len)
{
	/* LLVM's parser: its base name, the command as run in the hint */
	fprintf(stderr, "%s: Unknown command line argument '%s'.  Try: '%s --help'\n", prog_base(),
	        arg, ofl_prog);
	size_t n = 0;
	while (table[n].name)
		n++;
	const char **names = xrealloc(NULL, (n + 1) * sizeof(*names));
	for (size_t i = 0; i < n; i++)
		names[i] = table[i].name;
	const char *near = ofl_nearest(name, len, names, n);
	if (near)
		fprintf(stderr, "%s: Did you mean '%s%s%s'?\n", prog_base(), near[1] ? "--" : "-",
		        near, name + len);
	free(names);
	return 1;
}

static int parse_one(const struct opt *table, int argc, char **argv, int *i, const char *usage,
                     const char *overview)
{
	const char *arg = argv[*i];
	const char *name = arg + (arg[1] == '-' ? 2 : 1);
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct opt *o = find_opt(table, name, len);
	const char *val = eq ? eq + 1 : NULL;
	if (!o && arg[1] != '-' && len > 1) {
		/* -oFILE style for one-letter options */
		o = find_opt(table, name, 1);
		if (o && o->type != OPT_FLAG && o->type != OPT_HELP && o->type != OPT_VERSION)
			val = name + 1;
		else
			o = NULL;
	}
	if (!o)
		return unknown_option(table, arg, name, len);
	if (o->count)
		(*o->count)++;
	if (o->type == OPT_HELP) {
		if (o->dest)
			fputs(o->dest, stdout);
		else
			opts_print_help(table, stdout, usage, overview);
		return 2;
	}
	if (o->type == OPT_VERSION) {
		print_version(o->dest);
		return 2;
	}
	if (o->type == OPT_FLAG) {
		if (!val)
			*(bool *)o->dest = true;
		return val ? set_value(o, val) : 0;
	}
	if (!val) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "%s: for the --%s option: requires a value!\n", prog_base(),
			        o->name);
			return 1;
		}
		val = argv[++*i];
	}
	return set_value(o, val);
}

int opts_parse(const struct opt *table, int argc, char **argv, struct strlist *positional,
               const char *usage, const char *overview)
{
	bool only_pos = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (only_pos || a[0] != '-' || a[1] == '\0') {
			strlist_push(positional, a);
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = true;
			continue;
		}
		int rc = parse_one(table, argc, argv, &i, usage, overview);
		if (rc)
			return rc;
	}
	return 0;
}

void opts_print_help(const struct opt *table, FILE *f, const char *usage, const char *overview)
{
	if (overview)
		fprintf(f, "OVERVIEW: %s\n\n", overview);
	fprintf(f, "USAGE: %s\n\nOPTIONS:\n", usage);
	for (const struct opt *o = table; o->name; o++) {
		if (!o->help)
			continue;
		char left[64];
		if (o->meta)
			snprintf(left, sizeof left, "--%s=%s", o->name, o->meta);
		else
			snprintf(left, sizeof left, "--%s", o->name);
		fprintf(f, "  %-30s - %s\n", left, o->help);
	}
}

void print_version(const char *about)
{
	const char *base = prog_base();
	if (!strcmp(base, "offlink"))
		printf("offlink %s\n", OFL_VERSION);
	else
		printf("%s (offlink %s)\n", base, OFL_VERSION);
	if (about)
		printf("  %s\n", about);
}

/* The release offlink acts as for LLVM release n. */
static unsigned known_release(unsigned n)
{
	return n >= 23 ? 23 : n >= 20 ? 22 : 19;
}

/* N of a "-N" suffix of the file name, 0 when none. */
static unsigned name_suffix(const char *argv0)
{
	const char *base = strrchr(argv0, '/'), *dash;
	base = base ? base + 1 : argv0;
	dash = strrchr(base, '-');
	if (!dash || !dash[1] || strspn(dash + 1, "0123456789") != strlen(dash + 1))
		return 0;
	unsigned long n = strtoul(dash + 1, NULL, 10);
	return n >= 10 && n < 1000 ? (unsigned)n : 0;
}

unsigned personality_release(const char *argv0, unsigned asked)
{
	return known_release(personality_release_raw(argv0, asked));
}

unsigned personality_release_raw(const char *argv0, unsigned asked)
{
	const char *env = getenv("OFFLINK_LLVM_VERSION");
	unsigned n = asked ? asked : env ? (unsigned)strtoul(env, NULL, 10) : 0;
	if (!n)
		n = name_suffix(argv0);
	if (!n) {
		struct ofl_driver d;
		struct ofl_error err = OFL_ERROR_INIT;
		if (ofl_driver_read(getppid(), &d, &err) == 0)
			n = d.llvm;
		ofl_driver_release(&d);
	}
	return n ? n : 22;
}

unsigned llvm_release_option(unsigned long long n)
{
	if (n == 19 || n == 22 || n == 23)
		return (unsigned)n;
	error("--llvm-version must be 19, 22 or 23, not %llu", n);
	return 0;
}
