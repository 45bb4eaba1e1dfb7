/*
 * shim.h: Swift-callable helpers around sd-bus (<systemd/sd-bus.h>) for the linux.fprintd
 * sensor. sd_bus_message_append_basic / sd_bus_message_read_basic take `void *` values whose
 * meaning depends on the type character; these wrappers give each use a typed signature.
 * Functions only, no mutable state.
 */
#ifndef TOUCHSTONE_CSDBUS_SHIM_H
#define TOUCHSTONE_CSDBUS_SHIM_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

/*
 * Opens a connection to the system bus: the one DBUS_SYSTEM_BUS_ADDRESS names (or the
 * default socket) when address is NULL, else the bus at address (e.g. "unix:path=/tmp/x/bus").
 * Returns 0 or a negative errno.
 */
static inline int ts_bus_open(const char *address, sd_bus **out) {
    if (address == NULL) return sd_bus_open_system(out);
    sd_bus *bus = NULL;
    int r = sd_bus_new(&bus);
    if (r < 0) return r;
    if ((r = sd_bus_set_address(bus, address)) < 0 ||
        (r = sd_bus_set_bus_client(bus, 1)) < 0 ||
        (r = sd_bus_start(bus)) < 0) {
        sd_bus_unref(bus);
        return r;
    }
    *out = bus;
    return 0;
}

/* Appends one string ('s') or object path ('o'). */
static inline int ts_bus_append_string(sd_bus_message *m, char type, const char *value) {
    return sd_bus_message_append_basic(m, type, value);
}

/* Reads one string-like value ('s', 'o', 'g'); *out stays owned by the message. */
static inline int ts_bus_read_string(sd_bus_message *m, char type, const char **out) {
    return sd_bus_message_read_basic(m, type, out);
}

/* Reads one boolean ('b'). */
static inline int ts_bus_read_bool(sd_bus_message *m, int *out) {
    return sd_bus_message_read_basic(m, 'b', out);
}

/* Reads one int32 ('i'). */
static inline int ts_bus_read_int32(sd_bus_message *m, int32_t *out) {
    return sd_bus_message_read_basic(m, 'i', out);
}

/* Frees a NULL-terminated string array from sd_bus_message_read_strv. */
static inline void ts_strv_free(char **strv) {
    if (strv == NULL) return;
    for (char **p = strv; *p != NULL; p++) free(*p);
    free(strv);
}

#endif /* TOUCHSTONE_CSDBUS_SHIM_H */
