// glibc's malloc.h (malloc_trim), which Swift's Glibc module does not include.
#include <malloc.h>
