// glibc's malloc extensions (malloc_trim) for the daemon's start-up memory
// release: Swift's Glibc module does not include <malloc.h>.
#include <malloc.h>
