/* What libofflink exports.  Core is built with hidden visibility, so that
 * linked into a shared object (a linker plugin, someone's library) it
 * exports nothing of its own; every public header wraps its declarations in
 * OFL_API_BEGIN/OFL_API_END, and only those (all ofl_-prefixed) stay
 * visible. */
#ifndef OFFLINK_API_H
#define OFFLINK_API_H

#define OFL_API_BEGIN _Pragma("GCC visibility push(default)")
#define OFL_API_END _Pragma("GCC visibility pop")

#endif
