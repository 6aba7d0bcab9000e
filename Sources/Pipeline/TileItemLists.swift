/// The item lists of a plan's tiles, flat: every tile's item indices one
/// after another in one array, and where each tile's list ends.
///
/// Contract:
/// - `count` lists; `self[i]` is list `i`, in the order the lists were
///   appended. A list may be empty.
/// - `self[i]` is a slice of `items`: its indices are positions in `items`,
///   not `0..<self[i].count`; iterate it, or index it from its `startIndex`.
/// - A list appended is never changed by later appends; derived lists
///   (`selecting`, `mappingItems`, `prefixing`) are new values.
/// - `items` holds at most `UInt32.max` indices (one plan of one zoom of one
///   floor holds a few million at most).
/// - Equal when the lists are equal, one by one.
///
/// A tile's list as an array of its own costs an allocation (header, malloc
/// rounding, the outer array's slot) per tile; here a tile costs its indices
/// and one offset.
public struct TileItemLists: RandomAccessCollection, Equatable, Sendable {
    /// Every list's indices, list after list.
    public private(set) var items: [Int32] = []
    /// `ends[i]`: the position in `items` after list `i`'s last index.
    private var ends: [UInt32] = []

    public init() {}

    /// The lists of `lists`, in order, stored at their exact size.
    public init<S: Sequence>(_ lists: S) where S.Element: Collection, S.Element.Element == Int32 {
        var total = 0, count = 0
        for l in lists { total += l.count; count += 1 }
        reserveCapacity(lists: count, items: total)
        for l in lists { append(l) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { ends.count }

    public subscript(i: Int) -> ArraySlice<Int32> {
        items[start(i)..<Int(ends[i])]
    }

    @inline(__always) private func start(_ i: Int) -> Int { i == 0 ? 0 : Int(ends[i - 1]) }

    public mutating func reserveCapacity(lists: Int, items count: Int) {
        ends.reserveCapacity(lists)
        items.reserveCapacity(count)
    }

    /// Adds `list` as the last list.
    public mutating func append<C: Collection>(_ list: C) where C.Element == Int32 {
        items.append(contentsOf: list)
        closeList()
    }

    /// Adds `first` followed by `then` as one list, the last.
    public mutating func append<A: Collection, B: Collection>(_ first: A, then: B) where A.Element == Int32, B.Element == Int32 {
        items.append(contentsOf: first)
        items.append(contentsOf: then)
        closeList()
    }

    private mutating func closeList() {
        precondition(items.count <= Int(UInt32.max), "more than \(UInt32.max) item indices in the tiles of one plan")
        ends.append(UInt32(items.count))
    }

    /// The lists at `positions` (in that order), stored at their exact size.
    public func selecting(_ positions: [Int]) -> TileItemLists {
        var out = TileItemLists()
        out.reserveCapacity(lists: positions.count, items: positions.reduce(0) { $0 + self[$1].count })
        for p in positions { out.append(self[p]) }
        return out
    }

    /// The same lists with every index `i` replaced by `transform(i)`.
    public func mappingItems(_ transform: (Int32) -> Int32) -> TileItemLists {
        var out = self
        out.items = items.map(transform)
        return out
    }

    /// Every list with `prefix` before its own indices.
    public func prefixing(_ prefix: [Int32]) -> TileItemLists {
        guard !prefix.isEmpty else { return self }
        var out = TileItemLists()
        out.reserveCapacity(lists: count, items: items.count + prefix.count * count)
        for l in self { out.append(prefix, then: l) }
        return out
    }

    /// This value with no spare room: lists built by appending may hold up to
    /// twice the room they use, and a plan's lists are kept for its venue's keying.
    public func exactSize() -> TileItemLists {
        guard items.capacity > items.count || ends.capacity > ends.count else { return self }
        var out = TileItemLists()
        out.items = items.withUnsafeBufferPointer { Array($0) }
        out.ends = ends.withUnsafeBufferPointer { Array($0) }
        return out
    }
}
