/* Parses arbitrary bytes as an archive; every member must lie inside the
 * input (or be a data-less thin member), whatever the parser accepted. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "offlink/archive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_archive a = OFL_ARCHIVE_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_archive_parse(data, size, &a, &err) != 0) {
		if (err.code == 0 || a.members != NULL)
			abort();
		return 0;
	}
	for (size_t i = 0; i < a.nmembers; i++) {
		const struct ofl_ar_member *m = &a.members[i];
		if (!m->name || m->header_offset + 60 > size)
			abort();
		if (m->data && (m->data != data + m->data_offset || m->data_offset > size ||
		                m->size > size - m->data_offset))
			abort();
		if (!m->data && !a.thin)
			abort();
		(void)strlen(m->name);
	}
	ofl_archive_release(&a);
	return 0;
}
