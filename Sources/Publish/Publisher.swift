import Foundation
import Pipeline

/// What `venuetiles publish` was asked to do.
public struct PublishOptions: Sendable {
    /// Requests (or file writes) under way at once.
    public var concurrency: Int
    public var dryRun: Bool
    public var cache: CachePolicy
    public init(concurrency: Int = 16, dryRun: Bool = false, cache: CachePolicy = CachePolicy()) {
        self.concurrency = max(1, concurrency); self.dryRun = dryRun; self.cache = cache
    }
}

/// What a publish did (or, on a dry run, would do).
public struct PublishSummary: Sendable {
    public var uploaded: Int
    public var uploadedBytes: Int
    public var deleted: Int
    public var unchanged: Int
    /// Keys written or deleted, in the order they were, as a CDN invalidation names them.
    public var changedPaths: [String]
    public var dryRun: Bool
    public var destination: String
}

/// Progress of a publish: objects done of all to send or delete, and bytes sent.
public struct PublishProgress: Sendable {
    public var done: Int
    public var total: Int
    public var bytes: Int
}

/// Publishes an output folder: sends only the files whose SHA-256 differs from
/// the destination's manifest.json, tiles first, then TileJSON and other files,
/// then manifest.json, then deletes what the output no longer lists.
///
/// Before the first change it writes a journal (`.venuetiles-publish.json`) of the
/// keys it is about to change, and removes it at the end. A publish that stops
/// half way leaves the destination's old manifest in place (readers see the old
/// TileJSON and tiles, some already new), and the next publish sends every
/// journalled key again, so it finishes the job even if the output changed again
/// in between.
public struct Publisher {
    public let output: String
    public let destination: PublishDestination
    public let options: PublishOptions
    let progress: (@Sendable (PublishProgress) -> Void)?

    public init(output: String, destination: PublishDestination, options: PublishOptions,
                progress: (@Sendable (PublishProgress) -> Void)? = nil) {
        self.output = output; self.destination = destination; self.options = options; self.progress = progress
    }

    /// Reads and checks the output, compares it with the destination and — unless
    /// a dry run — brings the destination up to date. Nothing is changed at the
    /// destination before every file to send has been checked against its hash.
    public func run() async throws -> PublishSummary {
        let lock = try OutputLock(folder: output)
        defer { lock.release() }
        let local = try LocalOutput.load(folder: output, cache: options.cache)
        try local.checkSizes()
        let remote = try PublishState.parse(
            manifest: try await destination.read(Manifest.fileName),
            journal: try await destination.read(PublishState.fileName),
            manifestKey: destination.description + Manifest.fileName, journalKey: destination.description + PublishState.fileName)
        let plan = PublishPlan(local: local, remote: remote)
        // Every file to send is hashed before anything changes at the destination.
        try await forEach(plan.tileUploads + plan.indexUploads) { _ = try local.readVerified($0) }
        let changed = plan.uploads.map(\.path) + plan.deletes
        var summary = PublishSummary(uploaded: plan.uploads.count, uploadedBytes: plan.uploadBytes, deleted: plan.deletes.count,
                                     unchanged: plan.unchanged, changedPaths: changed.map(destination.invalidationPath),
                                     dryRun: options.dryRun, destination: destination.description)
        if options.dryRun || plan.isEmpty { return summary }

        let journal = plan.pending.union(changed)
        try await destination.write(PublishState.fileName, data: try PublishState.journalData(journal),
                                    headers: ObjectHeaders(contentType: "application/json", cacheControl: "no-store"))
        let counter = ProgressCounter(total: plan.uploads.count + plan.deletes.count, report: progress)
        let send: @Sendable (LocalObject) async throws -> Void = { [destination] object in
            let data = try local.readVerified(object)
            try await destination.write(object.path, data: data, headers: object.headers)
            counter.add(bytes: data.count)
        }
        try await forEach(plan.tileUploads, send)
        try await forEach(plan.indexUploads, send)
        if let m = plan.manifestUpload { try await send(m) }
        // Deleted after the manifest: until it is replaced, readers may still
        // ask for tiles the old one lists. The journal keeps them until done.
        try await forEach(plan.deletes) { [destination] key in
            try await destination.delete(key)
            counter.add(bytes: 0)
        }
        try await destination.delete(PublishState.fileName)
        summary.changedPaths = changed.map(destination.invalidationPath)
        return summary
    }

    /// Runs `body` on every element, at most `options.concurrency` at once; the
    /// first error cancels the rest and is thrown.
    func forEach<T: Sendable>(_ items: [T], _ body: @escaping @Sendable (T) async throws -> Void) async throws {
        guard !items.isEmpty else { return }
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            let width = min(options.concurrency, items.count)
            while next < width { let item = items[next]; group.addTask { try await body(item) }; next += 1 }
            while try await group.next() != nil {
                if next < items.count { let item = items[next]; group.addTask { try await body(item) }; next += 1 }
            }
        }
    }
}

/// Counts finished objects for the progress callback, from many tasks.
final class ProgressCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var done = 0, bytes = 0
    let total: Int
    let report: (@Sendable (PublishProgress) -> Void)?
    init(total: Int, report: (@Sendable (PublishProgress) -> Void)?) { self.total = total; self.report = report }

    func add(bytes n: Int) {
        lock.lock()
        done += 1; bytes += n
        let p = PublishProgress(done: done, total: total, bytes: bytes)
        lock.unlock()
        report?(p)
    }
}

/// A shared hold on the output folder's build lock (`.venuetiles/lock`), so that
/// no build rewrites files while they are read and sent (a build takes the lock
/// exclusively and stops with "another build holds the output folder").
struct OutputLock {
    let folder: OutputFolder

    init(folder path: String) throws {
        folder = OutputFolder(root: path)
        // No lock file: no build has run here, or the folder is read-only; a
        // missing manifest is reported next.
        do { try folder.lock(shared: true) } catch is LockError { throw PublishError.outputBusy(path: path) }
    }

    func release() { folder.unlock() }
}
