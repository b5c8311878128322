/* Fuzzes the linker plugin through a fake linker: onload with the tags
 * ld.bfd offers, claim_file on the input (as a whole file, and as an
 * archive member at an offset the first byte picks), all_symbols_read in
 * a dry run (no process started), cleanup.  A fatal message must come
 * instead of a crash; the plugin's source is compiled in. */
#include "../../plugin/offlink_plugin.c"

#include <sys/mman.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ld_plugin_claim_file_handler claim;
static ld_plugin_all_symbols_read_handler all_read;
static ld_plugin_cleanup_handler done;
static int fatal;

static enum ld_plugin_status reg_claim(ld_plugin_claim_file_handler h)
{
	claim = h;
	return LDPS_OK;
}
static enum ld_plugin_status reg_all(ld_plugin_all_symbols_read_handler h)
{
	all_read = h;
	return LDPS_OK;
}
static enum ld_plugin_status reg_cleanup(ld_plugin_cleanup_handler h)
{
	done = h;
	return LDPS_OK;
}
static enum ld_plugin_status fake_message(int level, const char *fmt, ...)
{
	fatal |= level == LDPL_FATAL;
	return LDPS_OK;
}
static enum ld_plugin_status fake_add_file(const char *path)
{
	return access(path, R_OK) && !P.c.o.dry_run ? LDPS_ERR : LDPS_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	struct ld_plugin_tv tv[] = {
	    {LDPT_MESSAGE, {.tv_message = fake_message}},
	    {LDPT_LINKER_OUTPUT, {.tv_val = LDPO_EXEC}},
	    {LDPT_ADD_INPUT_FILE, {.tv_add_input_file = fake_add_file}},
	    {LDPT_REGISTER_CLAIM_FILE_HOOK, {.tv_register_claim_file = reg_claim}},
	    {LDPT_REGISTER_ALL_SYMBOLS_READ_HOOK, {.tv_register_all_symbols_read = reg_all}},
	    {LDPT_REGISTER_CLEANUP_HOOK, {.tv_register_cleanup = reg_cleanup}},
	    {LDPT_OPTION, {.tv_string = "dry-run"}},
	    {LDPT_OPTION, {.tv_string = "jobs=1"}},
	    {LDPT_NULL, {0}},
	};
	int fd = memfd_create("fuzz_plugin", MFD_CLOEXEC);
	size_t skip = data[0] % 64 < size - 1 ? data[0] % 64 : 0;
	if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	fatal = 0;
	if (onload(tv) != LDPS_OK)
		abort();
	struct ld_plugin_input_file f = {"input", fd, (off_t)skip, (off_t)(size - 1 - skip), NULL};
	int claimed = 1;
	if (claim(&f, &claimed) == LDPS_OK && !claimed)
		(void)all_read();
	else if (claimed || !fatal)
		abort(); /* never claims; a refusal is always a fatal message */
	done();
	close(fd);
	return 0;
}
