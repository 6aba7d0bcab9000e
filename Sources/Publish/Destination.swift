import Foundation

/// Where a publish writes: a folder or an S3 bucket and prefix. Keys are paths
/// relative to the output folder ("harbour-arcade/floor_0/png/1x/19/…").
public protocol PublishDestination: Sendable {
    /// "s3://bucket/prefix/" or the folder's path, for messages.
    var description: String { get }
    /// The object's bytes, or nil when there is none.
    func read(_ key: String) async throws -> Data?
    /// Creates or replaces the object; readers see the old or the new bytes, never a part.
    func write(_ key: String, data: Data, headers: ObjectHeaders) async throws
    /// Removes the object; no error when it is already gone.
    func delete(_ key: String) async throws
    /// What a CDN invalidation names for `key` ("/prefix/key").
    func invalidationPath(_ key: String) -> String
    /// Releases connections; called once, at the end.
    func close() async throws
}

/// A destination given on the command line.
public enum DestinationSpec: Equatable, Sendable {
    case folder(String)
    case s3(bucket: String, prefix: String)

    /// `s3://bucket`, `s3://bucket/prefix/` or a folder path (relative to the
    /// current folder, made absolute).
    public static func parse(_ text: String) throws -> DestinationSpec {
        if text.lowercased().hasPrefix("s3://") {
            let rest = String(text.dropFirst(5))
            let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            let bucket = String(parts[0])
            // Bucket names: 3-63 of a-z 0-9 . - (S3's rules), so they fit in a host name and a path.
            guard (3...63).contains(bucket.count),
                  bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "." || $0 == "-") }) else {
                throw PublishError.badDestination(text, reason: "\"\(bucket)\" is not an S3 bucket name (3-63 characters of a-z, 0-9, '.', '-')")
            }
            var prefix = parts.count > 1 ? String(parts[1]) : ""
            while prefix.hasPrefix("/") { prefix.removeFirst() }
            if !prefix.isEmpty && !prefix.hasSuffix("/") { prefix += "/" }
            if prefix.contains("//") { throw PublishError.badDestination(text, reason: "the prefix has an empty part") }
            return .s3(bucket: bucket, prefix: prefix)
        }
        if text.contains("://") { throw PublishError.badDestination(text, reason: "only folders and s3:// destinations are supported") }
        guard !text.isEmpty else { throw PublishError.badDestination(text, reason: "empty") }
        return .folder(URL(fileURLWithPath: text).standardizedFileURL.path)
    }
}

extension DestinationSpec {
    /// Opens the destination. A folder must not be the output folder, nor inside
    /// it, nor hold it; S3 needs credentials (from `env`), and takes the region
    /// from `region`, `AWS_REGION`, `AWS_DEFAULT_REGION` or us-east-1, and a custom
    /// endpoint from `endpoint`, `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`.
    public func open(output: String, endpoint: String? = nil, region: String? = nil, connections: Int = 16,
                     retry: RetryPolicy = RetryPolicy(),
                     env: [String: String] = ProcessInfo.processInfo.environment) throws -> PublishDestination {
        switch self {
        case .folder(let path):
            let out = URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath().path
            let dest = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
            if dest == out || dest.hasPrefix(out + "/") || out.hasPrefix(dest + "/") || dest == "/" {
                throw PublishError.badDestination(path, reason: "overlaps the output folder \(out); publish to a folder outside it")
            }
            return FolderDestination(root: dest)
        case let .s3(bucket, prefix):
            guard let credentials = AWSCredentials.fromEnvironment(env) else { throw PublishError.missingCredentials }
            let region = region ?? [env["AWS_REGION"], env["AWS_DEFAULT_REGION"]].compactMap { $0 }.first { !$0.isEmpty } ?? "us-east-1"
            let endpoint = endpoint ?? [env["AWS_ENDPOINT_URL_S3"], env["AWS_ENDPOINT_URL"]].compactMap { $0 }.first { !$0.isEmpty }
            return try S3Destination(bucket: bucket, prefix: prefix, region: region, credentials: credentials,
                                     endpoint: endpoint, connections: connections, retry: retry)
        }
    }
}
