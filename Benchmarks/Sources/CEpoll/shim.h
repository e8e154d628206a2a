// epoll for petspot-bench's fan-out reader, and eventfd for the hand-off
// floor's wake-ups: Swift's Glibc module includes neither <sys/epoll.h> nor
// <sys/eventfd.h>.
#include <sys/epoll.h>
#include <sys/eventfd.h>
