// epoll for petspot-bench's fan-out reader: Swift's Glibc module does not
// include <sys/epoll.h>.
#include <sys/epoll.h>
