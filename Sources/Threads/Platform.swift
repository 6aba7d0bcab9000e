// VenueTiles is built and tested on Linux (Debian) only: its POSIX calls
// (openat with O_NOFOLLOW, renameat, linkat, the thread CPU clock) and its C
// libraries come from there. Rather than claim a platform no CI builds, other
// systems stop here with a clear message.
#if !os(Linux)
#error("VenueTiles builds on Linux only (Debian with the Swift toolchain); see README.md")
#endif
