#include <xxhash.h>
#if defined(__x86_64__)
// The library's runtime-dispatched XXH3 picks AVX2/AVX-512 where the CPU has
// them; the plain entry points are built for baseline x86-64 (SSE2), 2-4x slower.
#include <xxh_x86dispatch.h>
#endif
