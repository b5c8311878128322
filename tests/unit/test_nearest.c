#include "harness.h"
#include "offlink/nearest.h"

static const char *const commands[] = {"bundle",  "unbundle", "list", "package",
                                       "inspect", "wrap",     "link"};
#define NCOMMANDS (sizeof commands / sizeof *commands)

static const char *near(const char *word)
{
	return ofl_nearest(word, strlen(word), commands, NCOMMANDS);
}

OFL_TEST(nearest_typos)
{
	CHECK_STR(near("lnk"), "link");        /* a letter left out */
	CHECK_STR(near("linkk"), "link");      /* one too many */
	CHECK_STR(near("wrsp"), "wrap");       /* one replaced */
	CHECK_STR(near("isnpect"), "inspect"); /* neighbours swapped: one edit */
	CHECK_STR(near("unbundel"), "unbundle");
	CHECK_STR(near("bundel"), "bundle");
	CHECK_STR(near("pakcgae"), "package"); /* two swaps */
}

OFL_TEST(nearest_none)
{
	CHECK(!near("frobnicate"));
	CHECK(!near("ls")); /* 2 edits from "list": half of it */
	CHECK(!near("x"));
	CHECK(!near(""));
	CHECK(!near("pkcgae")); /* 3 edits */
	static const char *const one[] = {"o"};
	CHECK(!ofl_nearest("x", 1, one, 1)); /* one letter is no typo of another */
}

OFL_TEST(nearest_prefix_and_ties)
{
	/* only the first len bytes count: an option's name before its value */
	static const char *const opts[] = {"format", "json", "extract", "extract-all"};
	CHECK_STR(ofl_nearest("frmat=json", 5, opts, 4), "format");
	/* equally near: the first */
	static const char *const tie[] = {"jobs", "jabs"};
	CHECK_STR(ofl_nearest("jbbs", 4, tie, 2), "jobs");
	/* nearer wins over first */
	static const char *const two[] = {"device-linker", "device-launcher"};
	CHECK_STR(ofl_nearest("device-launchr", 14, two, 2), "device-launcher");
}

OFL_TEST(nearest_long_words)
{
	char w[200];
	memset(w, 'a', sizeof w - 1);
	w[sizeof w - 1] = '\0';
	const char *const choices[] = {w};
	CHECK(!ofl_nearest(w, strlen(w), choices, 1)); /* too long to be a name */
}
