/* The object clang's old offload driver assembles at link time for HIP
 * -fgpu-rdc programs (docs/abi.md, "HIP, old driver"): host objects of that
 * driver register their fat binary themselves, through the undefined
 * symbols __hip_fatbin_<cuid> and __hip_gpubin_handle_<cuid>; this object
 * defines them as the driver does.  The first CUID (in the sorted order the
 * caller gives) owns the one 8-byte handle in .hip_gpubin_handle and the
 * label of the bundle in .hip_fatbin (4096-aligned), global and protected;
 * every other CUID's symbols are global aliases of those, so all the
 * program's translation units share one handle: the first constructor
 * registers the fat binary, the others find the handle set and register
 * nothing again.  Like the assembler's, the symbols have no size. */
#include <elf.h>
#include <stdio.h>

#include "elf_writer.h"
#include "internal.h"
#include "offlink/wrapper_obj.h"

/* One symbol per CUID at offset 0 of sec: protected for the first, plain
 * global (the assembler's .set alias) for the others. */
static int define_all(struct ofl_ew_obj *o, const char *prefix, int sec, const char *const *cuids,
                      size_t n)
{
	char name[512];
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s%s", prefix, cuids[i]);
		if (!ofl_ew_symbol(o, name, STB_GLOBAL, STT_OBJECT, i ? STV_DEFAULT : STV_PROTECTED,
		                   sec, 0, 0))
			return -1;
	}
	return 0;
}

int ofl_hip_gpubin_write_fd(int fd, enum ofl_wrap_machine m, const uint8_t *fatbin, size_t size,
                            const char *const *cuids, size_t n, struct ofl_error *err)
{
	struct ofl_ew_obj o;
	if (ofl_wrap_machine_coff(m))
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "the old HIP driver's fat binary object is written for ELF "
		                     "hosts only, not Windows");
	for (size_t i = 0; i < n; i++)
		if (strlen(cuids[i]) > 256)
			return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
			                     "HIP CUID of %zu characters", strlen(cuids[i]));
	ofl_ew_init(&o, m == OFL_WRAP_AARCH64 ? EM_AARCH64 : EM_X86_64, err);
	int handles =
	    ofl_ew_section(&o, ".hip_gpubin_handle", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8);
	int bin = ofl_ew_section(&o, ".hip_fatbin", SHT_PROGBITS, SHF_ALLOC, 4096);
	int note = ofl_ew_section(&o, ".note.GNU-stack", SHT_PROGBITS, 0, 1);
	uint64_t off;
	int rc = handles < 0 || bin < 0 || note < 0 ? -1 : 0;
	if (!rc && n && ofl_buf_append_zeros(&o.secs[handles].data, 8))
		rc = OFL_NOMEM(err);
	rc = rc ? rc : ofl_ew_piece(&o, bin, fatbin, size, 4096, -1, 0, &off);
	rc = rc ? rc : define_all(&o, "__hip_gpubin_handle_", handles, cuids, n);
	rc = rc ? rc : define_all(&o, "__hip_fatbin_", bin, cuids, n);
	rc = rc ? rc : ofl_ew_write_fd(&o, fd);
	ofl_ew_release(&o);
	return rc ? (err->code ? err->code : OFL_NOMEM(err)) : 0;
}
