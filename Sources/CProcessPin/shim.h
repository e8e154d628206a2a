// Pinning a socket peer's process (hardening item 13): a pidfd for it.
// glibc offers pidfd_open only through the variadic syscall(2), which Swift
// cannot call: this wrapper is why the module exists.
#include <sys/syscall.h>
#include <unistd.h>

/// pidfd_open(2): a descriptor that refers to process `pid` for as long as
/// it is open, whatever pid the kernel reuses; -1 with errno on failure.
static inline int petspot_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    return -1;
#endif
}
