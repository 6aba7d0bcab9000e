import Foundation
import XCTest

/// Replays Tests/FuzzCorpus/<target>/ (inputs found by `scripts/fuzz` that once
/// crashed or hung, and hand-made seeds) through each fuzz target. A normal
/// build links the targets as replay tools (see Sources/FuzzSupport), so this
/// runs the very code libFuzzer runs, without the sanitizers.
final class FuzzRegressionTests: XCTestCase {
    static let targets = ["FuzzJSON", "FuzzIMDF", "FuzzMVF", "FuzzGeoJSON", "FuzzZip", "FuzzStyle", "FuzzSprite", "FuzzPipelineConfig"]

    func binary(_ name: String) -> String {
        URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent(name).path
    }

    func testEveryFuzzTargetReplaysItsCorpusWithoutACrash() throws {
        let corpus = CLI.packageRoot.appendingPathComponent("Tests/FuzzCorpus")
        var replayed = 0
        for t in Self.targets {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary(t)), "\(binary(t)) is built by swift build")
            let folder = corpus.appendingPathComponent(t)
            guard FileManager.default.fileExists(atPath: folder.path) else { continue }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: binary(t))
            p.arguments = [folder.path]
            p.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { _, b in b }
            let out = Pipe()
            p.standardOutput = out
            p.standardError = out
            try p.run()
            // A hang found by the fuzzer (its -timeout is 10 s per input) must not hang the suite.
            DispatchQueue.global().asyncAfter(deadline: .now() + 120) { if p.isRunning { p.terminate() } }
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, "\(t) on \(folder.path): \(text)")
            XCTAssertTrue(text.contains("without a crash"), text)
            replayed += 1
        }
        XCTAssertGreaterThan(replayed, 0)
    }
}
