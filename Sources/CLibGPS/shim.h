#ifndef PETSPOT_CLIBGPS_SHIM_H
#define PETSPOT_CLIBGPS_SHIM_H

#include <gps.h>
#include <math.h>
#include <fcntl.h>

/// `gps_send` is variadic (printf-style); Swift cannot call C variadic
/// functions, so this wrapper passes an already formatted command through
/// "%s" and never lets the command text act as a format string.
static inline int petspot_gps_send(struct gps_data_t *gpsdata, const char *command) {
    return gps_send(gpsdata, "%s", command);
}

/// `gps_read` takes an optional message buffer; this wrapper fixes the
/// signature Swift sees so the call site does not depend on the libgps API
/// revision's (API 8 vs 9+) parameter list.
static inline int petspot_gps_read(struct gps_data_t *gpsdata) {
    return gps_read(gpsdata, NULL, 0);
}

/// `gps_read` with its message buffer: libgps copies the raw JSON line there.
/// The reader needs it because `gps_unpack` throws the JSON parser's status
/// away (it always returns 0), so the raw line is the only way to tell a TPV
/// from other classes and a truncated line from a complete one. Wrapped for
/// the same API-revision reason as `petspot_gps_read`.
static inline int petspot_gps_read_message(struct gps_data_t *gpsdata, char *message, int message_len) {
    return gps_read(gpsdata, message, message_len);
}

/// `WATCH_ENABLE | WATCH_JSON` are macros built from unsigned constants that
/// Swift imports with inconsistent types; exposing them as one function keeps
/// the flag arithmetic in C.
static inline unsigned int petspot_watch_json_flags(void) {
    return WATCH_ENABLE | WATCH_JSON;
}

/// `WATCH_DISABLE` for closing a stream cleanly.
static inline unsigned int petspot_watch_disable_flags(void) {
    return WATCH_DISABLE;
}

/// Puts the gpsd socket in non-blocking mode. `fcntl` is variadic, which
/// Swift cannot call portably; and libgps needs this: `gps_waiting` answers
/// true while a partial line is buffered, after which a blocking `recv`
/// inside `gps_read` would hang the reader on a gpsd that stopped mid-line.
/// With O_NONBLOCK `gps_read` returns 0 instead. Returns -1 on failure.
static inline int petspot_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

#endif
