extension Manifest {
    /// The manifest's tile entries: an array when read from a file or merged
    /// from shards; in a build, made on access from the build's per-tile lists
    /// (path, key and outcome, in `MappedColumn`s), so that the manifest, the
    /// index and the archives are written without an entry object per tile of
    /// the whole build in memory (a large venue has a million). Encoded and
    /// decoded as the JSON array of entries either way.
    public struct TileEntries: RandomAccessCollection, ExpressibleByArrayLiteral, Codable, Equatable, Sendable {
        private enum Storage: Sendable {
            case array([TileEntry])
            case made(count: Int, entry: @Sendable (Int) -> TileEntry, release: @Sendable () -> Void)
        }
        private var storage: Storage

        public init(_ entries: [TileEntry]) { storage = .array(entries) }
        public init(arrayLiteral entries: TileEntry...) { storage = .array(entries) }

        /// `count` entries, the i-th made by `entry(i)` each time it is read;
        /// `letGo` is called after each run of entries a writer has read (the
        /// lists' pages can go back to their files).
        init(count: Int, entry: @escaping @Sendable (Int) -> TileEntry, letGo: @escaping @Sendable () -> Void) {
            storage = .made(count: count, entry: entry, release: letGo)
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int {
            switch storage {
            case .array(let a): return a.count
            case .made(let n, _, _): return n
            }
        }

        public subscript(i: Int) -> TileEntry {
            switch storage {
            case .array(let a): return a[i]
            case .made(let n, let entry, _):
                precondition(i >= 0 && i < n, "tile entry \(i) of \(n)")
                return entry(i)
            }
        }

        /// The entries as an array (no copy when they are one).
        public var entries: [TileEntry] {
            if case .array(let a) = storage { return a }
            return Array(self)
        }

        /// Done reading a run of entries (see `init(count:entry:letGo:)`).
        func letGo() {
            if case .made(_, _, let f) = storage { f() }
        }

        public mutating func append(_ e: TileEntry) {
            var a = materialized()
            a.append(e)
            storage = .array(a)
        }

        public mutating func append<S: Sequence>(contentsOf s: S) where S.Element == TileEntry {
            var a = materialized()
            a.append(contentsOf: s)
            storage = .array(a)
        }

        private mutating func materialized() -> [TileEntry] {
            if case .array(let a) = storage {
                storage = .array([])   // `a` uniquely referenced: appended in place
                return a
            }
            return Array(self)
        }

        public init(from decoder: Decoder) throws { storage = .array(try [TileEntry](from: decoder)) }
        public func encode(to encoder: Encoder) throws { try Array(self).encode(to: encoder) }
        public static func == (a: TileEntries, b: TileEntries) -> Bool { a.elementsEqual(b) }
    }
}
