#ifndef PETSPOT_CLIBGPS_SHIM_H
#define PETSPOT_CLIBGPS_SHIM_H

#include <gps.h>
#include <math.h>

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

#endif
