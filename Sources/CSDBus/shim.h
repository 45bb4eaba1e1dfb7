/*
 * shim.h: the sd-bus (<systemd/sd-bus.h>) calls of the linux.fprintd sensor.
 *
 * libsystemd is not linked into the programs that carry the plugin: it is opened with dlopen
 * the first time an fprintd operation needs it (ts_sdbus_load), so the REPL starts without
 * libsystemd and its six dependencies, and a machine without libsystemd gets an error from
 * the plugin instead of a program that does not start. The declarations still come from the
 * system header: every function pointer below has the exact type of the function it names.
 *
 * sd_bus_message_append_basic / sd_bus_message_read_basic take `void *` values whose meaning
 * depends on the type character; the ts_bus_* wrappers give each use a typed signature.
 * Functions only, no mutable state: the loaded table belongs to the caller.
 */
#ifndef TOUCHSTONE_CSDBUS_SHIM_H
#define TOUCHSTONE_CSDBUS_SHIM_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "ts_dynamic_library.h"

/* The shared object opened at run time (libsystemd's soname on every current distribution). */
#define TS_SDBUS_LIBRARY "libsystemd.so.0"

/* Every libsystemd function the client calls. */
#define TS_SDBUS_FUNCTIONS(X) \
    X(sd_bus_open_system) \
    X(sd_bus_new) \
    X(sd_bus_set_address) \
    X(sd_bus_set_bus_client) \
    X(sd_bus_start) \
    X(sd_bus_unref) \
    X(sd_bus_flush_close_unref) \
    X(sd_bus_message_new_method_call) \
    X(sd_bus_message_append_basic) \
    X(sd_bus_message_read_basic) \
    X(sd_bus_message_read_strv) \
    X(sd_bus_message_enter_container) \
    X(sd_bus_message_exit_container) \
    X(sd_bus_message_get_member) \
    X(sd_bus_message_ref) \
    X(sd_bus_message_unref) \
    X(sd_bus_call) \
    X(sd_bus_error_free) \
    X(sd_bus_match_signal) \
    X(sd_bus_slot_unref) \
    X(sd_bus_process) \
    X(sd_bus_wait)

/* The loaded functions, one field per function, named and typed as the function itself. */
typedef struct ts_sdbus {
#define TS_SDBUS_FIELD(name) __typeof__(name) * _Nonnull name;
    TS_SDBUS_FUNCTIONS(TS_SDBUS_FIELD)
#undef TS_SDBUS_FIELD
} ts_sdbus;

/*
 * Opens TS_SDBUS_LIBRARY and fills *lib (ts_dynamic_library_load). Returns 0, or -1 with a sentence in
 * error (the loader's message, or the missing function). The library stays loaded for the
 * process.
 */
static inline int ts_sdbus_load(ts_sdbus *lib, char *error, size_t capacity) {
#define TS_SDBUS_NAME(name) #name,
#define TS_SDBUS_SLOT(name) (void **)&lib->name,
    static const char *const names[] = { TS_SDBUS_FUNCTIONS(TS_SDBUS_NAME) };
    void **const slots[] = { TS_SDBUS_FUNCTIONS(TS_SDBUS_SLOT) };
#undef TS_SDBUS_NAME
#undef TS_SDBUS_SLOT
    return ts_dynamic_library_load(TS_SDBUS_LIBRARY, names, slots, sizeof names / sizeof names[0],
                                   "libsystemd is too old", error, capacity);
}

/*
 * Opens a connection to the system bus: the one DBUS_SYSTEM_BUS_ADDRESS names (or the
 * default socket) when address is NULL, else the bus at address (e.g. "unix:path=/tmp/x/bus").
 * Returns 0 or a negative errno.
 */
static inline int ts_bus_open(const ts_sdbus *lib, const char *address, sd_bus **out) {
    if (address == NULL) return lib->sd_bus_open_system(out);
    sd_bus *bus = NULL;
    int r = lib->sd_bus_new(&bus);
    if (r < 0) return r;
    if ((r = lib->sd_bus_set_address(bus, address)) < 0 ||
        (r = lib->sd_bus_set_bus_client(bus, 1)) < 0 ||
        (r = lib->sd_bus_start(bus)) < 0) {
        lib->sd_bus_unref(bus);
        return r;
    }
    *out = bus;
    return 0;
}

/* Appends one string ('s') or object path ('o'). */
static inline int ts_bus_append_string(const ts_sdbus *lib, sd_bus_message *m, char type, const char *value) {
    return lib->sd_bus_message_append_basic(m, type, value);
}

/* Reads one string-like value ('s', 'o', 'g'); *out stays owned by the message. */
static inline int ts_bus_read_string(const ts_sdbus *lib, sd_bus_message *m, char type, const char **out) {
    return lib->sd_bus_message_read_basic(m, type, out);
}

/* Reads one boolean ('b'). */
static inline int ts_bus_read_bool(const ts_sdbus *lib, sd_bus_message *m, int *out) {
    return lib->sd_bus_message_read_basic(m, 'b', out);
}

/* Reads one int32 ('i'). */
static inline int ts_bus_read_int32(const ts_sdbus *lib, sd_bus_message *m, int32_t *out) {
    return lib->sd_bus_message_read_basic(m, 'i', out);
}

/* Frees a NULL-terminated string array from sd_bus_message_read_strv. */
static inline void ts_strv_free(char **strv) {
    if (strv == NULL) return;
    for (char **p = strv; *p != NULL; p++) free(*p);
    free(strv);
}

#endif /* TOUCHSTONE_CSDBUS_SHIM_H */
