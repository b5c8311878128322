/* The link context's contract with its front ends (offlink/link.h). */
#include <fcntl.h>
#include <unistd.h>

#include "harness.h"
#include "offlink/buf.h"
#include "offlink/io.h"
#include "offlink/link.h"
#include "offlink/offload_binary.h"

/* An OffloadBinary file holding one image for the x86_64 host device. */
static void write_obin(const char *path)
{
	const char *k[2] = {"triple", "arch"}, *v[2] = {"x86_64-pc-linux-gnu", ""};
	struct ofl_obin_image im = {
	    OFL_IMG_OBJECT, OFL_OFK_OPENMP, 0, (const uint8_t *)"img", 3, 2, k, v};
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	if (ofl_obin_write(&im, &b, &e) || ofl_write_file(path, b.data, b.len, &e))
		abort();
	ofl_buf_release(&b);
}

/* A context links once: the plugin loaded twice by gold would run it
 * twice over the same state (memory corruption before); a second run, and
 * an input added after the run, are errors. */
OFL_TEST(link_runs_once)
{
	struct ofl_link_opts o = {0};
	o.jobserver_rfd = o.jobserver_wfd = -1;
	o.dry_run = true;
	o.tmpdir = ".";
	struct ofl_link *l = NULL;
	struct ofl_error e = OFL_ERROR_INIT;
	struct ofl_link_result r;
	write_obin("a.obin");
	CHECK_EQ_U(ofl_link_new(&l, &o, &e), 0);
	struct ofl_link_input in = {"a.obin", -1, 0, 0, false, 0, false};
	CHECK_EQ_U(ofl_link_add(l, &in, &e), 0);
	CHECK(ofl_link_has_device_code(l));
	CHECK_EQ_U(ofl_link_run(l, &r, &e), 0);
	CHECK_EQ_U(r.nobjects, 1);
	CHECK_EQ_U(ofl_link_run(l, &r, &e), OFL_EINVAL);
	CHECK(strstr(e.msg, "ran already") != NULL);
	ofl_error_clear(&e);
	CHECK_EQ_U(ofl_link_add(l, &in, &e), OFL_EINVAL);
	ofl_link_free(l);
}
