/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Macros for the probe-counters scan (spatch --macro-file): spatch 1.1.1,
 * Debian's, cannot parse a block that follows a macro call, so a function
 * that takes a lock with scoped_guard() is skipped whole, and with it the
 * count in saa7164_dev_setup(). As loops, their bodies parse. make
 * coccicheck takes the same file with SPFLAGS="--macro-file <file>".
 */
#define scoped_guard(_name, args...) for (;;)
#define scoped_cond_guard(_name, _fail, args...) for (;;)
