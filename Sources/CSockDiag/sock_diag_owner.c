// The owner of the other end of a TCP connection on this machine, from the
// kernel (NETLINK_SOCK_DIAG, the interface `ss -e` reads). See sock_diag_owner.h.
#include "sock_diag_owner.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/inet_diag.h>

/// TCP states whose socket still carries its creator's uid (a TIME_WAIT
/// mini-socket reports uid 0, so it never counts).
#define PETSPOT_TCP_ESTABLISHED 1
#define PETSPOT_TCP_FIN_WAIT1 4
#define PETSPOT_TCP_FIN_WAIT2 5

int petspot_tcp_socket_owner(
    int family, const uint8_t *source, uint16_t source_port, const uint8_t *destination,
    uint16_t destination_port, uint32_t *uid, uint64_t *inode) {
    if (family != AF_INET && family != AF_INET6) return EAFNOSUPPORT;
    size_t length = family == AF_INET ? 4 : 16;
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0) return errno;

    struct {
        struct nlmsghdr header;
        struct inet_diag_req_v2 request;
    } message;
    memset(&message, 0, sizeof message);
    message.header.nlmsg_len = sizeof message;
    message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    message.header.nlmsg_flags = NLM_F_REQUEST;
    message.header.nlmsg_seq = 1;
    message.request.sdiag_family = (uint8_t)family;
    message.request.sdiag_protocol = IPPROTO_TCP;
    message.request.idiag_states = (1u << PETSPOT_TCP_ESTABLISHED) | (1u << PETSPOT_TCP_FIN_WAIT1)
        | (1u << PETSPOT_TCP_FIN_WAIT2);
    message.request.id.idiag_sport = htons(source_port);
    message.request.id.idiag_dport = htons(destination_port);
    memcpy(message.request.id.idiag_src, source, length);
    memcpy(message.request.id.idiag_dst, destination, length);
    message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;

    struct sockaddr_nl kernel;
    memset(&kernel, 0, sizeof kernel);
    kernel.nl_family = AF_NETLINK;
    if (sendto(fd, &message, sizeof message, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
        int error = errno;
        close(fd);
        return error;
    }
    // An inet_diag_msg plus its attributes fits easily; anything else is an error message.
    union {
        struct nlmsghdr header;
        uint8_t bytes[8192];
    } answer;
    ssize_t received = recv(fd, &answer, sizeof answer, MSG_DONTWAIT);
    int error = received < 0 ? errno : 0;
    close(fd);
    if (received < 0) return error == EAGAIN ? ETIMEDOUT : error;
    struct nlmsghdr *header = &answer.header;
    if (!NLMSG_OK(header, (size_t)received)) return EPROTO;
    if (header->nlmsg_type == NLMSG_ERROR) {
        struct nlmsgerr *failure = (struct nlmsgerr *)NLMSG_DATA(header);
        if (header->nlmsg_len < NLMSG_LENGTH(sizeof *failure)) return EPROTO;
        return failure->error == 0 ? EPROTO : -failure->error;
    }
    if (header->nlmsg_type != SOCK_DIAG_BY_FAMILY || header->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
        return EPROTO;
    struct inet_diag_msg *found = (struct inet_diag_msg *)NLMSG_DATA(header);
    // The lookup falls back to a listener on the same address and port: only
    // the connection itself, in a state that still carries its uid, counts.
    if (found->idiag_family != family || found->id.idiag_sport != htons(source_port)
        || found->id.idiag_dport != htons(destination_port)
        || memcmp(found->id.idiag_src, source, length) != 0 || memcmp(found->id.idiag_dst, destination, length) != 0)
        return ENOENT;
    if (found->idiag_state != PETSPOT_TCP_ESTABLISHED && found->idiag_state != PETSPOT_TCP_FIN_WAIT1
        && found->idiag_state != PETSPOT_TCP_FIN_WAIT2)
        return ENOENT;
    *uid = found->idiag_uid;
    *inode = found->idiag_inode;
    return 0;
}
