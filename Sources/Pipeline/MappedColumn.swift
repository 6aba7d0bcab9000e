import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fixed number of plain values, one per planned tile of the whole build
/// (jobs, paths, keys, decisions, outcomes), kept in an unlinked temporary
/// file mapped into memory instead of on the heap.
///
/// Why: these lists are the only state of a build that grows with its tiles
/// and venues, and each stage sweeps them in job order, a venue or a batch at
/// a time. On the heap every page stays resident from planning to the
/// manifest; here `dropResident()` (called by the stages after each venue,
/// batch or sweep) hands the pages back to the page cache of the file, from
/// which the next access maps them again. Peak RSS then holds the part of
/// the lists in use, not all of them. The kernel can write the file out
/// under memory pressure (on a disk-backed `TMPDIR`; on tmpfs it stays in
/// RAM, outside the process).
///
/// Contract: the values are the ones stored, whatever `dropResident` did
/// (a shared file mapping keeps them in the file). Concurrent writes to
/// distinct indices are safe (the writer's threads do that); a value read
/// while another thread writes it is not. The file's blocks are reserved
/// when it is made (`posix_fallocate`), so a full disk cannot fault a later
/// write (a mapped write past the disk's room would kill the process); where
/// no such file can be made, the values are in anonymous memory, as a heap
/// array would be, and `dropResident` does nothing: mapping saves memory,
/// and a build must not fail for want of it. Raw calls (`mmap`, `madvise`,
/// `posix_fallocate`) are in this file only.
final class MappedColumn<Element: BitwiseCopyable>: RandomAccessCollection, @unchecked Sendable {
    let startIndex = 0
    let endIndex: Int
    private let base: UnsafeMutablePointer<Element>
    private let length: Int
    private let fileBacked: Bool

    /// `count` copies of `value`.
    init(repeating value: Element, count: Int) {
        precondition(count >= 0, "a column of \(count) values")
        endIndex = count
        // mmap refuses an empty mapping: an empty column still maps a page.
        length = Swift.max(1, count * MemoryLayout<Element>.stride)
        var raw: UnsafeMutableRawPointer?
        var fileBacked = false
        if let fd = FileSpill.unlinkedTemporaryFile(prefix: "venuetiles-column") {
            if posix_fallocate(fd, 0, off_t(length)) == 0 {
                let m = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                if let m, m != MAP_FAILED { raw = m; fileBacked = true }
            }
            close(fd)   // the mapping keeps the file
        }
        if raw == nil {
            let m = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            guard let m, m != MAP_FAILED else { fatalError("out of memory: \(length) bytes for a column of \(count) values") }
            raw = m
        }
        self.fileBacked = fileBacked
        base = raw!.bindMemory(to: Element.self, capacity: Swift.max(count, 1))
        // A new file and new anonymous memory read as zeros: zero values need no
        // writing (which would make every page resident at once).
        let zero = withUnsafeBytes(of: value) { $0.allSatisfy { $0 == 0 } }
        guard !zero else { return }
        // Other values are written a mebibyte at a time, each let go of once written.
        let window = Swift.max(1, (1 << 20) / MemoryLayout<Element>.stride)
        let page = Int(getpagesize())
        var i = 0, released = 0
        while i < count {
            let n = Swift.min(window, count - i)
            (base + i).initialize(repeating: value, count: n)
            i += n
            let through = i * MemoryLayout<Element>.stride / page * page
            if fileBacked && through > released {
                madvise(UnsafeMutableRawPointer(base) + released, through - released, MADV_DONTNEED)
                released = through
            }
        }
    }

    /// The values of `values`, in order.
    convenience init<C: Collection>(_ values: C, placeholder: Element) where C.Element == Element {
        self.init(repeating: placeholder, count: values.count)
        for (i, v) in values.enumerated() { base[i] = v }
    }

    deinit { munmap(base, length) }

    subscript(i: Int) -> Element {
        get {
            precondition(i >= 0 && i < endIndex, "index \(i) of a column of \(endIndex)")
            return base[i]
        }
        set {
            precondition(i >= 0 && i < endIndex, "index \(i) of a column of \(endIndex)")
            base[i] = newValue
        }
    }

    /// The values, for a loop that writes many of them (each thread its own indices).
    var buffer: UnsafeMutableBufferPointer<Element> { UnsafeMutableBufferPointer(start: base, count: endIndex) }

    /// Lets go of the resident pages: the values stay in the file and come
    /// back on the next access. Nothing for a column in anonymous memory.
    func dropResident() {
        guard fileBacked else { return }
        madvise(base, length, MADV_DONTNEED)
    }

    /// Whether the values are in a temporary file (for tests).
    var isFileBacked: Bool { fileBacked }
}

/// The columns of one build, let go of together between stages and batches.
/// It holds them (strongly: a weak reference would move every retain of a
/// column to Swift's slow side-table path, measured at 6 % of an edit build),
/// so they live as long as the build's plan.
final class ResidentColumns: @unchecked Sendable {
    private let lock = NSLock()
    private var drops: [() -> Void] = []
    private var rowsSinceDrop = 0
    /// Rows a stage reads or writes between two drops.
    static let window = 1 << 16

    /// Registers `column`; returns it.
    @discardableResult
    func track<E>(_ column: MappedColumn<E>) -> MappedColumn<E> {
        lock.lock(); defer { lock.unlock() }
        drops.append { column.dropResident() }
        return column
    }

    /// `other`'s columns, let go of with these too.
    func track(_ other: ResidentColumns) {
        lock.lock(); defer { lock.unlock() }
        drops.append { other.drop() }
    }

    /// Every tracked column's pages handed back to its file.
    func drop() {
        lock.lock(); let all = drops; rowsSinceDrop = 0; lock.unlock()
        for d in all { d() }
    }

    /// Counts `rows` read or written and lets go of the columns once a window
    /// of them has gone by: for a fill or sweep that `sweep` cannot drive (a
    /// loop over pyramids and plans, runs on worker threads), so that what
    /// stays resident is a window of rows whatever the size of each pyramid
    /// or run.
    func advance(by rows: Int) {
        lock.lock()
        rowsSinceDrop += rows
        let due = rowsSinceDrop >= ResidentColumns.window
        lock.unlock()
        if due { drop() }
    }

    /// `body` for each index of `0..<count` in order, the columns let go of
    /// every `window` indexes: a sweep over a whole build's lists keeps a
    /// window of their pages resident, not all of them.
    func sweep(_ count: Int, _ body: (Int) throws -> Void) rethrows {
        var start = 0
        while start < count {
            let end = min(start + ResidentColumns.window, count)
            for i in start..<end { try body(i) }
            drop()
            start = end
        }
    }
}
