// The one C call the tests' child processes need that Swift's Glibc module does not show
// (glibc declares it under _GNU_SOURCE / __USE_MISC only).
#ifndef C_TEST_SUPPORT_H
#define C_TEST_SUPPORT_H

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor from `from` on.
int ts_spawn_actions_close_from(posix_spawn_file_actions_t *actions, int from);

#endif
