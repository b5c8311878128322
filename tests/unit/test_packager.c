/* The packager's --image parsing, matching and extraction names. */
#include "harness.h"
#include "offlink/packager.h"

OFL_TEST(image_args)
{
	struct ofl_pkg_args a;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_pkg_args_parse("file=a.o,k=x=y,novalue,=v,file=b.o,k=z,arch=", &a, &err) == 0);
	CHECK_EQ_U(a.n, 5);
	CHECK_STR(a.keys[0], "file");
	CHECK_STR(a.values[0], "a.o,b.o");
	CHECK_STR(ofl_pkg_args_get(&a, "k"), "x=y,z");
	CHECK_STR(ofl_pkg_args_get(&a, "novalue"), "");
	CHECK_STR(ofl_pkg_args_get(&a, ""), "v");
	CHECK_STR(ofl_pkg_args_get(&a, "arch"), "");
	CHECK(ofl_pkg_args_get(&a, "triple") == NULL);
	CHECK(ofl_pkg_args_check(&a, OFL_LLVM_22, &err) == 0);
	CHECK(ofl_pkg_args_check(&a, OFL_LLVM_19, &err) == OFL_EINVAL);
	CHECK_STR(err.msg, "'file' and 'triple' are required image arguments");
	ofl_pkg_args_release(&a);
}

OFL_TEST(match_and_names)
{
	struct ofl_obin_string s[] = {{"triple", "t1", 2}, {"arch", "", 0}};
	struct ofl_pkg_entry e = {
	    "a.o", 0, {1, OFL_IMG_BITCODE, OFL_OFK_HIP, 0, NULL, 0, 0, 2, s, 0}};
	struct ofl_obin b = e.bin;
	struct ofl_pkg_args a;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_pkg_args_parse("file=x,triple=t1,kind=hip,arch=", &a, &err) == 0);
	CHECK(ofl_pkg_match(&a, &e, OFL_LLVM_22, false));
	CHECK(!ofl_pkg_match(&a, &e, OFL_LLVM_19, false)); /* 19's hip is 3 */
	ofl_pkg_args_release(&a);
	CHECK(ofl_pkg_args_parse("feature=", &a, &err) == 0);
	CHECK(ofl_pkg_match(&a, &e, OFL_LLVM_22, false)); /* absent means "" */
	ofl_pkg_args_release(&a);
	/* member= names the archive member, or is a stored string (22) */
	CHECK(ofl_pkg_args_parse("member=a.o,triple=t1", &a, &err) == 0);
	CHECK(ofl_pkg_match(&a, &e, OFL_LLVM_23, true));
	CHECK(!ofl_pkg_match(&a, &e, OFL_LLVM_22, false));
	e.ident = "b.o";
	CHECK(!ofl_pkg_match(&a, &e, OFL_LLVM_23, true));
	ofl_pkg_args_release(&a);
	char *n = ofl_pkg_extract_name("dir.x/multi.tar.bin", &b, 3, OFL_LLVM_22);
	CHECK_STR(n, "multi.tar-t1-.3.bc");
	free(n);
	b.image_kind = 9;
	n = ofl_pkg_extract_name(".bin", &b, 0, OFL_LLVM_22);
	CHECK_STR(n, "-t1-.0.");
	free(n);
}
