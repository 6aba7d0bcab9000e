import ArgumentParser
import Foundation
import Publish

struct PublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Copy a built output folder to another folder or to S3, sending only what changed.",
        discussion: """
        Compares the output's manifest.json with the one last published at the destination and \
        sends only the files whose SHA-256 differs: tiles first, then TileJSON, then manifest.json; \
        then deletes the files the output no longer lists. A publish that stops half way leaves the \
        destination's old manifest in place, and the next publish finishes the job. Internal files \
        (.venuetiles*) are never sent. S3 credentials come from AWS_ACCESS_KEY_ID, \
        AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN; the region from --region or AWS_REGION; a \
        custom endpoint (MinIO, R2, moto…) from --endpoint or AWS_ENDPOINT_URL, addressed path-style.

        Exit status: 0 success; 1 bad input (no manifest, a file that does not match it, a bad \
        destination, no credentials); 3 a failure at the destination; 64 bad command-line usage.
        """
    )

    @OptionGroup var common: CommonOptions

    @Option(name: .customLong("to"), help: ArgumentHelp("A folder, or s3://bucket/prefix.", valueName: "dest"))
    var destination: String

    @Option(help: ArgumentHelp("S3 endpoint URL (path-style addressing), e.g. http://127.0.0.1:9000.", valueName: "url"))
    var endpoint: String?

    @Option(help: ArgumentHelp("S3 region (default: AWS_REGION, else us-east-1).", valueName: "region"))
    var region: String?

    @Flag(name: .customLong("dry-run"), help: "Print what would be uploaded and deleted; change nothing.")
    var dryRun = false

    @Option(name: .customLong("changed-list"), help: ArgumentHelp("Write the changed paths (one per line, \"/prefix/key\") for a CDN invalidation.", valueName: "file"))
    var changedList: String?

    @Option(help: ArgumentHelp("Uploads under way at once.", valueName: "n"))
    var concurrency: Int = 16

    @Option(name: .customLong("cache-control-tiles"), help: ArgumentHelp("Cache-Control of tiles.", valueName: "value"))
    var cacheControlTiles: String = CachePolicy.defaultTiles

    @Option(name: .customLong("cache-control-index"), help: ArgumentHelp("Cache-Control of manifest.json, TileJSON and archives.", valueName: "value"))
    var cacheControlIndex: String = CachePolicy.defaultIndex

    @Flag(name: .shortAndLong, help: "Print only errors and the summary line.")
    var quiet = false

    func validate() throws {
        guard concurrency >= 1 && concurrency <= 256 else { throw ValidationError("--concurrency must be between 1 and 256") }
    }

    func run() throws {
        let started = Date()
        let summary: PublishSummary
        do {
            let output = try common.outputFolder()
            let spec = try DestinationSpec.parse(destination)
            let dest = try spec.open(output: output, endpoint: endpoint, region: region, connections: concurrency)
            let options = PublishOptions(concurrency: concurrency, dryRun: dryRun,
                                         cache: CachePolicy(tiles: cacheControlTiles, index: cacheControlIndex))
            let bar = PublishProgressBar.forTerminal(quiet: quiet)
            summary = try blockingRun {
                let publisher = Publisher(output: output, destination: dest, options: options, progress: bar)
                do {
                    let s = try await publisher.run()
                    try await dest.close()
                    return s
                } catch {
                    try? await dest.close()
                    throw error
                }
            }
            if let changedList {
                let text = summary.changedPaths.map { $0 + "\n" }.joined()
                do { try Data(text.utf8).write(to: URL(fileURLWithPath: changedList), options: .atomic) } catch {
                    throw PublishError.io(path: changedList, operation: "write", reason: error.localizedDescription)
                }
            }
        } catch let e as PublishError {
            printError(e)
            throw ExitCode(e.isBadInput ? 1 : 3)
        } catch {
            throw exitStatus(for: error)
        }
        let mb = String(format: "%.1f MB", Double(summary.uploadedBytes) / 1e6)
        if summary.dryRun {
            print("dry run: would upload \(summary.uploaded) files (\(mb)), delete \(summary.deleted), \(summary.unchanged) unchanged at \(summary.destination); nothing changed")
        } else {
            let secs = String(format: "%.2f s", Date().timeIntervalSince(started))
            print("published to \(summary.destination) in \(secs): \(summary.uploaded) uploaded (\(mb)), \(summary.deleted) deleted, \(summary.unchanged) unchanged")
        }
    }
}

/// Runs async work from the synchronous command and waits for it: the root
/// command is synchronous, and publishing is async (HTTP, task groups).
func blockingRun<T>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// Carries the result out of the task; written once, read after the semaphore.
final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, Error>?
}

/// A progress line redrawn in place on a terminal.
final class PublishProgressBar: @unchecked Sendable {
    /// The bar's update function when stderr is a terminal and not --quiet; else nil.
    static func forTerminal(quiet: Bool) -> (@Sendable (PublishProgress) -> Void)? {
        guard !quiet && isatty(STDERR_FILENO) != 0 else { return nil }
        let drawer = PublishProgressBar()
        return { drawer.update($0) }
    }

    private let lock = NSLock()
    private var lastDraw = 0.0
    private let start = Date()

    func update(_ p: PublishProgress) {
        lock.lock(); defer { lock.unlock() }
        let now = Date().timeIntervalSince(start)
        guard p.total > 0, p.done == p.total || now - lastDraw > 0.1 else { return }
        lastDraw = now
        let width = 30, filled = p.done * width / p.total
        let line = "\r[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + String(format: "%3d%%  %d/%d files  %.1f MB", p.done * 100 / p.total, p.done, p.total, Double(p.bytes) / 1e6)
        FileHandle.standardError.write(Data((line + (p.done == p.total ? "\n" : "")).utf8))
    }
}
