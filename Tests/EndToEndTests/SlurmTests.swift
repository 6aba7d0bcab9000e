import Foundation
import TestSupport
import XCTest

/// A real batch engine: a one-node Slurm cluster on this machine
/// (scripts/slurm/start: munged, slurmctld, slurmd from Debian) runs the
/// array job of docs/scale/slurm-shards.sbatch and the merge job of
/// docs/scale/slurm-merge.sbatch after it (`--dependency=afterok`); the merged
/// folder equals a single build, byte for byte.
final class SlurmTests: XCTestCase {
    /// Runs a command through system(3), its output and status into files:
    /// scripts/slurm/start leaves daemons behind, and Foundation's Process
    /// was seen never to notice such a script's exit.
    static func shell(_ command: String, in dir: URL) -> (status: Int32, output: String) {
        let out = dir.appendingPathComponent("shell-\(UUID().uuidString)").path
        _ = system("\(command) > '\(out).txt' 2>&1 < /dev/null; echo $? > '\(out).rc'")
        let rc = (try? String(contentsOfFile: out + ".rc", encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? -1
        return (rc, (try? String(contentsOfFile: out + ".txt", encoding: .utf8)) ?? "")
    }

    func testArrayJobOfShardsThenMergeJob() throws {
        let dir = try CLI.tempDir("slurm")
        defer { CLI.removeTree(dir) }
        let state = dir.appendingPathComponent("cluster").path
        let scripts = CLI.packageRoot.appendingPathComponent("scripts/slurm")
        let t0 = Date()
        let (status, startOutput) = SlurmTests.shell("'\(scripts.path)/start' '\(state)'", in: dir)
        try ExternalTools.skipUnless(status == 0, needs: "a one-node Slurm cluster (scripts/slurm/start: \(startOutput.suffix(600)))")
        defer { _ = SlurmTests.shell("'\(scripts.path)/stop' '\(state)'", in: dir) }
        let started = Date().timeIntervalSince(t0)
        let conf = state + "/slurm.conf"

        let config = try ShardFixture.writeMixedConfig(dir)
        let single = dir.appendingPathComponent("single")
        let s = try CLI.run(["build", "--config", config.path, "--output", single.path, "-q"])
        XCTAssertEqual(s.status, 0, s.stderr)

        let n = 3
        let env = ["SLURM_CONF=\(conf)", "VENUETILES=\(CLI.binary)", "CONFIG=\(config.path)",
                   "SHARDS=\(dir.appendingPathComponent("shards").path)", "OUTPUT=\(dir.appendingPathComponent("merged").path)"]
        func sbatch(_ args: [String]) throws -> String {
            let r = try ExternalTools.run("env", env + ["sbatch", "--parsable", "--chdir", dir.path] + args)
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ";").first.map(String.init) ?? ""
        }
        let t1 = Date()
        let array = try sbatch(["--array=0-\(n - 1)", CLI.packageRoot.appendingPathComponent("docs/scale/slurm-shards.sbatch").path])
        let merge = try sbatch(["--dependency=afterok:\(array)", CLI.packageRoot.appendingPathComponent("docs/scale/slurm-merge.sbatch").path])
        // Wait for the merge job to leave the queue (10 minutes at most).
        var state_ = ""
        for _ in 0..<1200 {
            let q = try ExternalTools.run("env", ["SLURM_CONF=\(conf)", "scontrol", "show", "job", merge])
            if let r = q.text.range(of: #"JobState=\w+"#, options: .regularExpression) { state_ = String(q.text[r].dropFirst(9)) }
            if ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"].contains(state_) { break }
            usleep(500_000)
        }
        let ran = Date().timeIntervalSince(t1)
        let logs = (try? FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".log") }.sorted()) ?? []
        let logText = logs.map { "\($0): " + ((try? String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)) ?? "") }.joined(separator: "\n")
        XCTAssertEqual(state_, "COMPLETED", logText)
        print(String(format: "slurm: cluster up in %.1f s; %d-shard array job and merge job done in %.1f s", started, n, ran))
        XCTAssertEqual(ShardFixture.differences(single, dir.appendingPathComponent("merged")), [], logText)
    }
}
