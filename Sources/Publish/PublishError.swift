import Foundation

/// Why a publish stopped. Every case names the file or key and the problem.
public enum PublishError: Error, Equatable, CustomStringConvertible {
    /// The output folder has no readable manifest.json.
    case noManifest(path: String, reason: String)
    /// A file of the output does not match its manifest entry; nothing was published.
    case outputMismatch(path: String, problem: String)
    /// The manifest names a path that must never leave the output folder.
    case unsafePath(path: String, reason: String)
    /// `--to` is neither a folder nor `s3://bucket[/prefix]`, or overlaps the output.
    case badDestination(String, reason: String)
    /// S3 needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
    case missingCredentials
    /// A build holds the output folder's lock.
    case outputBusy(path: String)
    /// The destination's manifest.json or publish state is not one of ours.
    case unreadableState(key: String, reason: String)
    /// The server refused a request (4xx), or kept failing (5xx) after every retry.
    case http(method: String, key: String, status: Int, code: String, message: String, attempts: Int)
    /// No answer from the server (connection refused, reset, timeout) after every retry.
    case transport(method: String, key: String, reason: String, attempts: Int)
    /// Reading or writing a file failed.
    case io(path: String, operation: String, reason: String)

    public var description: String {
        switch self {
        case let .noManifest(path, reason):
            return "\(path): no manifest to publish (\(reason)); build the output first"
        case let .outputMismatch(path, problem):
            return "\(path): does not match manifest.json: \(problem); run `venuetiles build` (or `verify`) before publishing"
        case let .unsafePath(path, reason):
            return "manifest.json names \"\(path)\": \(reason); refusing to publish it"
        case let .badDestination(dest, reason):
            return "--to \(dest): \(reason)"
        case .missingCredentials:
            return "s3: no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials)"
        case let .outputBusy(path):
            return "\(path): a build is writing this output folder; publish after it ends"
        case let .unreadableState(key, reason):
            return "\(key): \(reason)"
        case let .http(method, key, status, code, message, attempts):
            let what = [code, message].filter { !$0.isEmpty }.joined(separator: ": ")
            let tries = attempts > 1 ? " after \(attempts) attempts" : ""
            return "\(method) \(key): HTTP \(status)\(what.isEmpty ? "" : " " + what)\(tries)"
        case let .transport(method, key, reason, attempts):
            return "\(method) \(key): \(reason) (\(attempts) attempt\(attempts == 1 ? "" : "s"))"
        case let .io(path, operation, reason):
            return "\(operation) \(path): \(reason)"
        }
    }

    /// True for errors in what the user gave (exit status 1), false for failures
    /// while talking to the destination (exit status 3).
    public var isBadInput: Bool {
        switch self {
        case .noManifest, .outputMismatch, .unsafePath, .badDestination, .missingCredentials, .unreadableState: return true
        case .outputBusy, .http, .transport, .io: return false
        }
    }
}

/// The reason of a failed POSIX call, from errno.
func posixReason(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
