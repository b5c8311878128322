/* Fuzzes the scan of linker scripts given as inputs, and of an expression
 * (--defsym's): every name it hands out (a file of INPUT, GROUP, INCLUDE,
 * STARTUP, a folder of SEARCH_DIR, a symbol, INSERT) lies inside the
 * input, is not empty and holds no NUL; each scan ends (linear: each step
 * consumes a byte). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "offlink/ldscript.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct span {
	const uint8_t *data;
	size_t size, names;
};

static int check(void *ctx, enum ofl_ldscript_kind kind, const char *name, size_t len)
{
	struct span *s = ctx;
	if (kind > OFL_LDSCRIPT_STARTUP)
		abort();
	const uint8_t *p = (const uint8_t *)name;
	if (!len || p < s->data || p + len > s->data + s->size || memchr(p, 0, len))
		abort();
	if (++s->names > s->size)
		abort(); /* more names than bytes */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct span s = {data, size, 0};
	struct ofl_error err = OFL_ERROR_INIT;
	int rc = ofl_ldscript_inputs(data, size, check, &s, &err);
	if (rc && rc != OFL_EINVAL)
		abort();
	s.names = 0;
	if (ofl_ldscript_expr_symbols((const char *)data, size, check, &s))
		abort();
	s.names = 0;
	rc = ofl_ldscript_includes(data, size, check, &s, &err);
	if (rc && rc != OFL_EINVAL)
		abort();
	return 0;
}
