/* Fuzzes CCOB header parsing and decompression; inputs whose header claims
 * more than 16 MiB are only parsed, so a run stays small.  Inputs that are
 * not CCOB are compressed and decompressed again as a round-trip check. */
#include <stdlib.h>
#include <string.h>

#include "offlink/ccob.h"

#define MAX_RAW (16u << 20)

static void decompress_all(const uint8_t *data, size_t size)
{
	struct ofl_buf out = OFL_BUF_INIT;
	size_t pos = 0;
	while (ofl_ccob_is(data + pos, size - pos)) {
		struct ofl_ccob_header h;
		struct ofl_error e = OFL_ERROR_INIT;
		size_t used = 0;
		bool hash_ok;
		if (ofl_ccob_parse_header(data + pos, size - pos, &h, &e) < 0 ||
		    h.raw_size > MAX_RAW)
			break;
		size_t before = out.len;
		if (ofl_ccob_decompress(data + pos, size - pos, &out, &used, &hash_ok, &e) < 0) {
			if (out.len != before || e.code == 0)
				abort();
			break;
		}
		if (used != h.total_size || out.len - before != h.raw_size || used == 0)
			abort();
		pos += used;
	}
	ofl_buf_release(&out);
}

static void round_trip(const uint8_t *data, size_t size)
{
	struct ofl_ccob_options o = OFL_CCOB_OPTIONS_INIT;
	struct ofl_buf z = OFL_BUF_INIT, back = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	o.method = size & 1 ? OFL_CCOB_ZLIB : OFL_CCOB_ZSTD;
	o.version = size & 2 ? 2 : 3;
	o.level = 1;
	size_t used;
	bool ok;
	if (ofl_ccob_compress(data, size, &o, &z, &e) < 0 ||
	    ofl_ccob_decompress(z.data, z.len, &back, &used, &ok, &e) < 0 || !ok || used != z.len ||
	    back.len != size || (size && memcmp(back.data, data, size) != 0))
		abort();
	ofl_buf_release(&z);
	ofl_buf_release(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 4 && memcmp(data, "CCOB", 4) == 0)
		decompress_all(data, size);
	else if (size <= 65536)
		round_trip(data, size);
	return 0;
}
