/* GNU ld scripts given as inputs (offlink/ldscript.h): a scanner over the
 * few commands that add files or reference symbols, and over expressions
 * (an assignment's, --defsym's).  Linear in the script: every step
 * consumes at least one byte. */
#include "offlink/ldscript.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct scan {
	const uint8_t *p, *end;
	bool bad;
};

static bool ident_char(uint8_t c, bool first)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

/* Blanks and comments. */
static void skip_space(struct scan *s)
{
	while (s->p < s->end) {
		if (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r' ||
		    *s->p == '\f') {
			s->p++;
		} else if (s->end - s->p >= 2 && s->p[0] == '/' && s->p[1] == '*') {
			const uint8_t *e = s->p + 2;
			while (e + 1 < s->end && !(e[0] == '*' && e[1] == '/'))
				e++;
			s->bad |= e + 1 >= s->end;
			s->p = e + 1 < s->end ? e + 2 : s->end;
		} else {
			return;
		}
	}
}

/* The string whose opening quote is at s->p: its text (*len bytes), s->p
 * past its closing quote.  Unterminated: NULL, s->bad, s->p at the end. */
static const uint8_t *string(struct scan *s, size_t *len)
{
	const uint8_t *w = s->p + 1, *q = memchr(w, '"', (size_t)(s->end - w));
	s->bad |= !q;
	s->p = q ? q + 1 : s->end;
	*len = q ? (size_t)(q - w) : 0;
	return q ? w : NULL;
}

/* Past the matching close of the open at *s->p (parenthesis or brace),
 * strings and comments included. */
static void skip_balanced(struct scan *s)
{
	uint8_t open = *s->p, close = open == '(' ? ')' : '}';
	size_t depth = 0, len;
	while (s->p < s->end && !s->bad) {
		skip_space(s);
		if (s->p >= s->end)
			break;
		if (*s->p == '"') {
			string(s, &len);
			continue;
		}
		uint8_t c = *s->p++;
		if (c == open) {
			depth++;
		} else if (c == close && !--depth) {
			return;
		}
	}
	s->bad = true;
}

/* A symbol's name in an expression: also '.' and '$' (ld's lexer). */
static bool name_char(uint8_t c, bool first)
{
	return ident_char(c, first) || c == '.' || c == '$';
}

/* The symbols an expression names, up to its end: a ';', a ')' it did not
 * open or a '}' (left unread), or the end.  A name before '(' is a
 * function's (ABSOLUTE, ADDR...), '.' the location counter; numbers (0x10,
 * 4K) name nothing. */
static int expr(struct scan *s, ofl_ldscript_fn fn, void *ctx)
{
	size_t depth = 0;
	while (!s->bad) {
		skip_space(s);
		if (s->p >= s->end || *s->p == ';' || *s->p == '}' || (*s->p == ')' && !depth))
			return 0;
		const uint8_t *w = s->p;
		size_t len;
		if (*s->p == '"') {
			w = string(s, &len);
			int rc = len ? fn(ctx, OFL_LDSCRIPT_EXTERN, (const char *)w, len) : 0;
			if (rc)
				return rc;
			continue;
		}
		if (!name_char(*s->p, true)) {
			depth += *s->p == '(';
			depth -= *s->p == ')';
			s->p++;
			continue;
		}
		bool number = *s->p >= '0' && *s->p <= '9';
		while (s->p < s->end && name_char(*s->p, s->p == w && !number))
			s->p++;
		len = (size_t)(s->p - w);
		skip_space(s);
		bool call = s->p < s->end && *s->p == '(';
		int rc = number || call || (len == 1 && *w == '.')
		             ? 0
		             : fn(ctx, OFL_LDSCRIPT_EXTERN, (const char *)w, len);
		if (rc)
			return rc;
	}
	return 0;
}

int ofl_ldscript_expr_symbols(const char *e, size_t n, ofl_ldscript_fn fn, void *ctx)
{
	struct scan s = {(const uint8_t *)e, (const uint8_t *)e + strnlen(e, n), false};
	int rc = 0;
	while (!rc && !s.bad && s.p < s.end) {
		rc = expr(&s, fn, ctx);
		s.p += s.p < s.end; /* past what ended it: ld would refuse the rest */
	}
	return rc;
}

/* Past an assignment operator (=, +=, <<=, ...; not ==) at s->p: true when
 * one is there. */
static bool assign_op(struct scan *s)
{
	size_t left = (size_t)(s->end - s->p), n = 0;
	if (left >= 3 && (!memcmp(s->p, "<<=", 3) || !memcmp(s->p, ">>=", 3)))
		n = 3;
	else if (left >= 2 && strchr("+-*/&|^", s->p[0]) && s->p[1] == '=')
		n = 2;
	else if (left && s->p[0] == '=' && (left == 1 || s->p[1] != '='))
		n = 1;
	s->p += n;
	return n;
}

/* PROVIDE( / PROVIDE_HIDDEN( / HIDDEN( (s->p past the parenthesis): the
 * symbol assigned, then the expression's symbols, to the close. */
static int provide(struct scan *s, ofl_ldscript_fn fn, void *ctx)
{
	skip_space(s);
	while (s->p < s->end && !strchr(" \t\n\r\f=+-*/&|^<>()", *s->p))
		s->p++;
	skip_space(s);
	if (!assign_op(s)) {
		s->bad = true;
		return 0;
	}
	int rc = expr(s, fn, ctx);
	if (!rc && (s->p >= s->end || *s->p != ')'))
		s->bad = true;
	s->p += s->p < s->end;
	return rc;
}

/* The names inside INPUT( / GROUP( / EXTERN( (s->p past the parenthesis),
 * to its close; AS_NEEDED( nests once. */
static int names(struct scan *s, enum ofl_ldscript_kind kind, unsigned depth, ofl_ldscript_fn fn,
                 void *ctx)
{
	while (!s->bad) {
		skip_space(s);
		if (s->p >= s->end)
			break;
		if (*s->p == ')')
			return s->p++, 0;
		if (*s->p == ',') {
			s->p++;
			continue;
		}
		const uint8_t *w = s->p, *quote = s->p;
		size_t len;
		if (*s->p == '"') {
			if (!(w = string(s, &len))) {
				s->p = quote; /* the error's offset: the open quote */
				break;
			}
		} else {
			while (s->p < s->end && !strchr(" \t\n\r\f,()\"", *s->p))
				s->p++;
			len = (size_t)(s->p - w);
		}
		skip_space(s);
		bool call = len == 9 && !memcmp(w, "AS_NEEDED", 9) && s->p < s->end && *s->p == '(';
		if (call && depth == 0) {
			s->p++;
			int rc = names(s, kind, 1, fn, ctx);
			if (rc)
				return rc;
		} else if (!len || call || (s->p < s->end && *s->p == '(')) {
			break;
		} else {
			int rc = fn(ctx, kind, (const char *)w, len);
			if (rc)
				return rc;
		}
	}
	s->bad = true;
	return 0;
}

/* One step of a walk over a script, at what follows blanks and comments
 * (s->p before the end): at least one byte read, or s->bad.  fn's code,
 * or 0. */
typedef int step_fn(struct scan *s, ofl_ldscript_fn fn, void *ctx);

/* The script d of n bytes read step by step: 0, fn's code, or OFL_EINVAL
 * when it is no script. */
static int walk(const uint8_t *d, size_t n, step_fn *step, ofl_ldscript_fn fn, void *ctx,
                struct ofl_error *err)
{
	struct scan s = {d, d + n, memchr(d, 0, n) != NULL};
	int rc = 0;
	while (!rc && !s.bad) {
		skip_space(&s);
		if (s.p >= s.end)
			break;
		rc = step(&s, fn, ctx);
	}
	if (!rc && s.bad)
		return ofl_error_set(err, OFL_EINVAL, NULL, (uint64_t)(s.p - d),
		                     "not a linker script");
	return rc;
}

/* A command at the top of a script: its names, its expression's symbols;
 * a block or another command's arguments skipped. */
static int command(struct scan *s, ofl_ldscript_fn fn, void *ctx)
{
	const uint8_t *w = s->p;
	while (s->p < s->end && ident_char(*s->p, s->p == w))
		s->p++;
	size_t len = (size_t)(s->p - w);
	skip_space(s);
	bool open = s->p < s->end && *s->p == '(';
	bool input = len == 5 && !memcmp(w, "INPUT", 5);
	bool group = len == 5 && !memcmp(w, "GROUP", 5);
	/* ENTRY's symbol is undefined as EXTERN's is (lld pulls it) */
	bool ext = (len == 6 && !memcmp(w, "EXTERN", 6)) || (len == 5 && !memcmp(w, "ENTRY", 5));
	if (len == 6 && !memcmp(w, "INSERT", 6))
		return fn(ctx, OFL_LDSCRIPT_INSERT, (const char *)w, len);
	/* one folder (file) each: AS_NEEDED( is no name there */
	bool dir = len == 10 && !memcmp(w, "SEARCH_DIR", 10);
	bool startup = len == 7 && !memcmp(w, "STARTUP", 7);
	if (open && (dir || startup)) {
		s->p++;
		return names(s, dir ? OFL_LDSCRIPT_SEARCH_DIR : OFL_LDSCRIPT_STARTUP, 1, fn, ctx);
	}
	bool prov = (len == 7 && !memcmp(w, "PROVIDE", 7)) ||
	            (len == 14 && !memcmp(w, "PROVIDE_HIDDEN", 14)) ||
	            (len == 6 && !memcmp(w, "HIDDEN", 6));
	if (open && (input || group || ext)) {
		s->p++;
		return names(s,
		             ext     ? OFL_LDSCRIPT_EXTERN
		             : group ? OFL_LDSCRIPT_GROUP
		                     : OFL_LDSCRIPT_INPUT,
		             0, fn, ctx);
	}
	if (open && prov) {
		s->p++;
		return provide(s, fn, ctx);
	}
	if (len && assign_op(s))
		return expr(s, fn, ctx);
	if (s->p < s->end && (*s->p == '(' || *s->p == '{')) {
		skip_balanced(s);
	} else if (!len && s->p < s->end) {
		s->bad |= *s->p == ')' || *s->p == '}';
		s->p++; /* ';', '=', an operator: nothing to read */
	}
	return 0;
}

int ofl_ldscript_inputs(const uint8_t *d, size_t n, ofl_ldscript_fn fn, void *ctx,
                        struct ofl_error *err)
{
	return walk(d, n, command, fn, ctx, err);
}

/* A token anywhere in a script: INCLUDE's name, or nothing. */
static int include(struct scan *s, ofl_ldscript_fn fn, void *ctx)
{
	size_t len = 0;
	if (*s->p == '"') {
		string(s, &len);
		return 0;
	}
	const uint8_t *w = s->p;
	while (s->p < s->end && name_char(*s->p, false) /* names, numbers, file names */)
		s->p++;
	if (s->p == w) {
		s->p++; /* an operator, a parenthesis, a brace */
		return 0;
	}
	if (s->p - w != 7 || memcmp(w, "INCLUDE", 7))
		return 0;
	skip_space(s);
	const uint8_t *name = s->p;
	if (s->p < s->end && *s->p == '"') {
		name = string(s, &len);
	} else {
		while (s->p < s->end && !strchr(" \t\n\r\f;{}()\"", *s->p))
			s->p++;
		len = (size_t)(s->p - name);
	}
	if (!len) {
		s->bad = true;
		return 0;
	}
	return fn(ctx, OFL_LDSCRIPT_INCLUDE, (const char *)name, len);
}

int ofl_ldscript_includes(const uint8_t *d, size_t n, ofl_ldscript_fn fn, void *ctx,
                          struct ofl_error *err)
{
	return walk(d, n, include, fn, ctx, err);
}

const char *ofl_ldscript_included_place(enum ofl_linker ld, const char *into, const char *path)
{
	return ld == OFL_LINKER_LLD ? path : into;
}

const char *ofl_ldscript_option_place(enum ofl_linker ld, const char *path)
{
	return ld == OFL_LINKER_LLD ? path : "";
}

/* name, when there is something there: *found. */
static int try_path(const struct ofl_ldscript_search *s, const char *name, char **found,
                    struct ofl_error *err)
{
	bool there = false;
	int rc = s->exists(s->ctx, name, &there);
	if (!rc && there && !(*found = ofl_strdup(name)))
		rc = OFL_NOMEM(err);
	return rc;
}

int ofl_ldscript_find(const struct ofl_ldscript_search *s, const char *path,
                      enum ofl_ldscript_kind kind, const char *name, char **found,
                      struct ofl_error *err)
{
	bool include = kind == OFL_LDSCRIPT_INCLUDE;
	const char *slash = strrchr(path, '/');
	char *p = NULL;
	int rc = 0;
	*found = NULL;
	if (name[0] == '-' && name[1] == 'l' && !include)
		return s->library(s->ctx, name, found);
	if (name[0] == '/')
		return (*found = ofl_strdup(name)) ? 0 : OFL_NOMEM(err);
	/* the script's folder: the working one for a path without a slash */
	if (!include) {
		int dir = slash ? (int)(slash - path + 1) : 0;
		bool there = false;
		rc = asprintf(&p, "%.*s%s", dir, path, name) < 0 ? OFL_NOMEM(err)
		                                                 : s->exists(s->ctx, p, &there);
		if (!rc && there) {
			*found = p;
			p = NULL;
		}
		free(p);
	}
	if (!rc && !*found && (include || (slash && s->ld != OFL_LINKER_GOLD)))
		rc = try_path(s, name, found, err);
	if (rc || *found)
		return rc;
	if (asprintf(&p, "-l:%s", name) < 0)
		return OFL_NOMEM(err);
	rc = s->library(s->ctx, p, found);
	free(p);
	return rc;
}
