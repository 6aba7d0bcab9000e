import CMalloc

/// Gives the heap's free pages back to the system between stages.
///
/// Why: glibc keeps what a stage frees for later allocations of the same
/// arena, and the render workers allocate from arenas of their own, so the
/// main thread's planning lists (tens of megabytes on many venues, freed
/// once the plan's lists are in their `MappedColumn`s) stayed resident under
/// every venue's rendering. `malloc_trim` returns them; it costs about a
/// millisecond, so it is called between stages and venues, not per tile.
enum FreedMemory {
    static func giveBack() { _ = malloc_trim(0) }
}
