import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension CLI {
    struct Measured {
        var result: Result
        /// The child's peak resident set (wait4's ru_maxrss), in MiB.
        var peakRSSMiB: Int
        var seconds: Double
    }

    /// Runs the binary like `run`, and measures its peak memory from wait4: Foundation's
    /// Process reaps the child without its resource usage.
    static func runMeasured(_ args: [String]) throws -> Measured {
        let dir = try tempDir("measured")
        defer { removeTree(dir) }
        let outPath = dir.appendingPathComponent("stdout").path, errPath = dir.appendingPathComponent("stderr").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([binary] + args).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid = pid_t()
        let t0 = Date()
        let rc = posix_spawn(&pid, binary, &actions, nil, argv, environ)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = Date().timeIntervalSince(t0)
        let code: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let out = String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
        let err = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
        return Measured(result: Result(status: code, stdout: out, stderr: err), peakRSSMiB: Int(usage.ru_maxrss) / 1024, seconds: seconds)
    }
}
