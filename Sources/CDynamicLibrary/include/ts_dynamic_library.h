/*
 * ts_dynamic_library.h: opens a shared library with dlopen and resolves a table of its
 * functions. The one loader behind the system-library shims (CPAM: libpam, CSDBus:
 * libsystemd): their plugins open the library the first time it is needed, so programs that
 * carry them start without it, and a machine without it gets an error from the plugin.
 */
#ifndef TOUCHSTONE_DYNAMIC_LIBRARY_H
#define TOUCHSTONE_DYNAMIC_LIBRARY_H

#include <stddef.h>

/*
 * Opens library (a soname) and stores the address of each of the count functions named in
 * names into the pointer slots[i] points at. Returns 0, or -1 with a sentence in error: the
 * loader's message, or "<library> has no <name> (<too_old>)" for a missing function. On
 * failure the library is closed again and no slot is meaningful; on success it stays loaded
 * for the life of the process.
 */
int ts_dynamic_library_load(const char *library, const char *const *names, void **const *slots,
                            size_t count, const char *too_old, char *error, size_t capacity);

#endif /* TOUCHSTONE_DYNAMIC_LIBRARY_H */
