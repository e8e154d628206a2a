#ifndef PETSPOT_CLIBGPS_SHIM_H
#define PETSPOT_CLIBGPS_SHIM_H

#include <gps.h>
#include <math.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/// `WATCH_ENABLE | WATCH_JSON` are macros built from unsigned constants that
/// Swift imports with inconsistent types; exposing them as one function keeps
/// the flag arithmetic in C.
static inline unsigned int petspot_watch_json_flags(void) {
    return WATCH_ENABLE | WATCH_JSON;
}

/// Puts the gpsd socket in non-blocking mode. `fcntl` is variadic, which
/// Swift cannot call portably. The reader reads the socket itself after
/// `poll` says it is readable; non-blocking, a spurious wake-up makes `recv`
/// answer EAGAIN instead of blocking the thread past a stop request.
/// Returns -1 on failure.
static inline int petspot_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/// The reader thread's stop request: an eventfd its `poll` waits on beside
/// the gpsd socket (the flags are macros Swift does not import). Returns -1
/// on failure.
static inline int petspot_stop_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

/// The calling thread's kernel id (`gettid`, which Swift's Glibc module
/// does not import).
static inline int petspot_thread_id(void) {
    return (int)syscall(SYS_gettid);
}

#endif
