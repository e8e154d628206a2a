// The owner of the other end of a TCP connection on this machine, from the
// kernel (NETLINK_SOCK_DIAG, the interface `ss -e` reads): what SO_PEERCRED
// is for a Unix socket. The kiosk uses it to serve its own browser only.
// The request and answer structures live in <linux/inet_diag.h>, whose
// macros clash with glibc's in Swift: they stay in the .c file, and this
// header shows only the one function.
#ifndef PETSPOT_SOCK_DIAG_OWNER_H
#define PETSPOT_SOCK_DIAG_OWNER_H

#include <stdint.h>

/// Looks up the TCP socket whose own end is `source`:`source_port` and whose
/// other end is `destination`:`destination_port` (`family` AF_INET with
/// 4-byte addresses or AF_INET6 with 16-byte ones, network order; ports in
/// host order), and stores the uid that created it and its inode.
///
/// Returns 0; ENOENT when there is no such connection in a state that
/// carries a uid (closed, TIME_WAIT, on another machine); or the errno of
/// the netlink exchange. Never blocks: the kernel answers an exact lookup
/// before sendto returns, and the receive is non-blocking.
int petspot_tcp_socket_owner(
    int family, const uint8_t *source, uint16_t source_port, const uint8_t *destination,
    uint16_t destination_port, uint32_t *uid, uint64_t *inode);

#endif
