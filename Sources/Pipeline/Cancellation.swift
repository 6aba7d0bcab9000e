import Synchronization

/// A build stopped on request (SIGINT, SIGTERM: Ctrl-C, a batch scheduler's
/// time limit) before its manifest switched: the output folder was put back
/// as it was.
public struct BuildInterrupted: Error, CustomStringConvertible {
    /// The signal that asked for it.
    public var signal: Int32
    public var description: String {
        "interrupted by signal \(signal); the output folder is as the last complete build left it"
    }
}

/// A request to stop, set from any thread (the CLI's signal handler) and
/// checked by the build at every stage and between render batches: a build
/// never stops half way through a file, and stops within a batch (about 1,024
/// tiles) of the request. Once the manifest is being written the build
/// finishes instead: its output is complete then.
public final class Cancellation: Sendable {
    private let requested = Atomic<Int32>(0)

    public init() {}

    /// Asks the build to stop (the first signal wins).
    public func request(signal: Int32) {
        _ = requested.compareExchange(expected: 0, desired: signal, ordering: .relaxed)
    }

    /// The signal that asked, or nil.
    public var signal: Int32? {
        let s = requested.load(ordering: .relaxed)
        return s == 0 ? nil : s
    }

    /// Throws `BuildInterrupted` once a stop was requested.
    func check() throws {
        if let s = signal { throw BuildInterrupted(signal: s) }
    }
}
