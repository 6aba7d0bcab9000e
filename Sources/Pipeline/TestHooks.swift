import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Points where the end-to-end tests stop a build or make it fail, so that a
/// race or a fault happens at a chosen moment instead of by chance. Read from
/// the environment once; unset (as in every real run) they cost one branch.
///
/// - `VENUETILES_TEST_PAUSE=<point>:<file>`: at `<point>` the build creates
///   `<file>.reached` and waits (at most 60 s) until `<file>` exists. The
///   points, in order: `locked`, `loading`, `writing` (the commit begun),
///   `committing` (every file written, none switched), `switched` (the switch
///   done, no manifest), `committed` (the manifest in place, not the index).
/// - `VENUETILES_TEST_FAIL=write-after:<n>`: the tile writer fails as a full
///   disk would after `<n>` tiles written; `switch-after:<n>`: the switch
///   before the manifest fails after `<n>` staged tiles renamed.
enum TestHooks {
    static let pause: (point: String, file: String)? = {
        guard let v = ProcessInfo.processInfo.environment["VENUETILES_TEST_PAUSE"], let colon = v.firstIndex(of: ":") else { return nil }
        return (String(v[..<colon]), String(v[v.index(after: colon)...]))
    }()

    static let failWritesAfter = failure("write-after:")
    static let failSwitchAfter = failure("switch-after:")

    private static func failure(_ prefix: String) -> Int? {
        guard let v = ProcessInfo.processInfo.environment["VENUETILES_TEST_FAIL"], v.hasPrefix(prefix) else { return nil }
        return Int(v.dropFirst(prefix.count))
    }
}

/// Waits at `point` when a test asked for it (see `TestHooks`), or until a
/// stop is requested.
func pauseForTests(_ point: String, _ cancellation: Cancellation) throws {
    guard let p = TestHooks.pause, p.point == point else { return }
    _ = FileManager.default.createFile(atPath: p.file + ".reached", contents: nil)
    for _ in 0..<600 where !FileManager.default.fileExists(atPath: p.file) && cancellation.signal == nil { usleep(100_000) }
    try cancellation.check()
}

/// Counts the prepared venues alive with their features and drawing (each
/// copy of one holds its token; `PreparedVenue.hollowed` drops it): the
/// working set a test checks to be one venue, whatever the number of venues.
final class LiveVenues: @unchecked Sendable {
    private let lock = NSLock()
    private var alive = 0
    private var highest = 0
    private var prepared = 0

    final class Token: Sendable {
        let owner: LiveVenues
        init(_ owner: LiveVenues) {
            self.owner = owner
            owner.lock.lock(); owner.alive += 1; owner.prepared += 1; owner.highest = max(owner.highest, owner.alive); owner.lock.unlock()
        }
        deinit { owner.lock.lock(); owner.alive -= 1; owner.lock.unlock() }
    }

    /// The most prepared venues alive at once so far.
    var peak: Int { lock.lock(); defer { lock.unlock() }; return highest }

    /// How many times a venue was prepared (each reading of one).
    var preparations: Int { lock.lock(); defer { lock.unlock() }; return prepared }
}
