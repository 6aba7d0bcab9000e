import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// How often and how patiently a request is tried again.
public struct RetryPolicy: Sendable, Equatable {
    /// Tries in all, the first included.
    public var attempts: Int
    /// The wait before the second try; doubled for every further one, up to `maxDelay`.
    public var baseDelay: Double
    public var maxDelay: Double
    public init(attempts: Int = 5, baseDelay: Double = 0.2, maxDelay: Double = 5) {
        self.attempts = max(1, attempts); self.baseDelay = baseDelay; self.maxDelay = maxDelay
    }

    /// Exponential backoff with jitter (half fixed, half random), so that many
    /// workers refused at once by a busy server do not come back in step.
    func delay(beforeAttempt n: Int) -> Double {
        let d = min(maxDelay, baseDelay * pow(2, Double(n - 2)))
        return d / 2 + Double.random(in: 0...(d / 2))
    }
}

/// An S3 bucket and prefix, spoken to over HTTP with SigV4. AWS endpoints use
/// virtual-hosted addressing (`bucket.s3.region.amazonaws.com`); a custom
/// endpoint (`--endpoint`, `AWS_ENDPOINT_URL`: MinIO, moto, R2…) uses path-style
/// addressing (`endpoint/bucket/key`).
public final class S3Destination: PublishDestination, @unchecked Sendable {
    public let bucket: String
    public let prefix: String
    public let region: String
    let signer: SigV4Signer
    let retry: RetryPolicy
    /// scheme://host[:port] and the path before the key ("/bucket/" or "/").
    let origin: String
    let hostHeader: String
    let basePath: String
    let client: HTTPClient
    let timeout: TimeAmount

    public var description: String { "s3://\(bucket)/\(prefix)" }

    public init(bucket: String, prefix: String, region: String, credentials: AWSCredentials, endpoint: String?,
                connections: Int = 16, retry: RetryPolicy = RetryPolicy(), timeoutSeconds: Int64 = 60) throws {
        self.bucket = bucket; self.prefix = prefix; self.region = region; self.retry = retry
        signer = SigV4Signer(credentials: credentials, region: region, service: "s3")
        if let endpoint {
            guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = url.host, !host.isEmpty else {
                throw PublishError.badDestination(endpoint, reason: "--endpoint must be http://host[:port] or https://host[:port]")
            }
            guard url.path.isEmpty || url.path == "/" else {
                throw PublishError.badDestination(endpoint, reason: "--endpoint must not have a path (the bucket goes there)")
            }
            let defaultPort = scheme == "https" ? 443 : 80
            hostHeader = url.port.map { $0 == defaultPort ? host : "\(host):\($0)" } ?? host
            origin = "\(scheme)://\(hostHeader)"
            basePath = "/\(bucket)/"
        } else if bucket.contains(".") {
            // A dotted name breaks the wildcard TLS certificate of virtual hosts.
            hostHeader = "s3.\(region).amazonaws.com"
            origin = "https://\(hostHeader)"
            basePath = "/\(bucket)/"
        } else {
            hostHeader = "\(bucket).s3.\(region).amazonaws.com"
            origin = "https://\(hostHeader)"
            basePath = "/"
        }
        var config = HTTPClient.Configuration()
        config.redirectConfiguration = .disallow
        config.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, connections))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
        timeout = .seconds(timeoutSeconds)
    }

    public func invalidationPath(_ key: String) -> String { "/" + prefix + key }

    public func close() async throws { try await client.shutdown() }

    public func read(_ key: String) async throws -> Data? {
        let r = try await send(method: .GET, key: key, body: nil, headers: [], allowNotFound: true)
        return r.map { Data($0) }
    }

    public func write(_ key: String, data: Data, headers: ObjectHeaders) async throws {
        var h = [("content-type", headers.contentType), ("cache-control", headers.cacheControl)]
        if let enc = headers.contentEncoding { h.append(("content-encoding", enc)) }
        _ = try await send(method: .PUT, key: key, body: data, headers: h, allowNotFound: false)
    }

    public func delete(_ key: String) async throws {
        // S3 answers 204 for a key that is not there, so a repeated delete is fine.
        _ = try await send(method: .DELETE, key: key, body: nil, headers: [], allowNotFound: true)
    }

    /// One request, signed anew for every try. Returns the body of a 2xx, nil for
    /// a 404 NoSuchKey when `allowNotFound`; throws on other 4xx at once and on
    /// 5xx or transport errors once the retries are spent.
    func send(method: HTTPMethod, key: String, body: Data?, headers: [(String, String)], allowNotFound: Bool) async throws -> [UInt8]? {
        let objectKey = prefix + key
        let path = basePath + objectKey
        let payloadHash = SigV4Signer.hexSHA256(body ?? Data())
        var attempt = 0
        while true {
            attempt += 1
            let amzDate = SigV4Signer.amzDate(Date())
            var signed = headers + [("host", hostHeader), ("x-amz-date", amzDate), ("x-amz-content-sha256", payloadHash)]
            if let token = signer.credentials.sessionToken { signed.append(("x-amz-security-token", token)) }
            let sig = signer.sign(.init(method: method.rawValue, path: path, headers: signed, payloadHash: payloadHash), amzDate: amzDate)
            var request = HTTPClientRequest(url: origin + SigV4Signer.uriEncode(path, keepSlash: true))
            request.method = method
            for (n, v) in signed { request.headers.add(name: n, value: v) }
            request.headers.add(name: "authorization", value: sig.authorization)
            if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
            var failure: PublishError
            do {
                let response = try await client.execute(request, timeout: timeout)
                let bytes = Array((try await response.body.collect(upTo: 1 << 31)).readableBytesView)
                let status = Int(response.status.code)
                if (200..<300).contains(status) { return bytes }
                let (code, message) = Self.errorFields(bytes)
                if status == 404 && allowNotFound && (code == "NoSuchKey" || code.isEmpty) { return nil }
                failure = .http(method: method.rawValue, key: description + key, status: status, code: code, message: message, attempts: attempt)
                // 4xx is our request's fault (or the credentials'): trying again will not help.
                if status < 500 { throw failure }
            } catch let e as PublishError {
                throw e
            } catch {
                failure = .transport(method: method.rawValue, key: description + key, reason: "\(error)", attempts: attempt)
            }
            if attempt >= retry.attempts { throw failure }
            try await Task.sleep(nanoseconds: UInt64(retry.delay(beforeAttempt: attempt + 1) * 1e9))
        }
    }

    /// `<Code>` and `<Message>` of an S3 error document (empty when absent).
    static func errorFields(_ body: [UInt8]) -> (String, String) {
        let text = String(decoding: body.prefix(65536), as: UTF8.self)
        func field(_ name: String) -> String {
            guard let a = text.range(of: "<\(name)>"), let b = text.range(of: "</\(name)>", range: a.upperBound..<text.endIndex) else { return "" }
            return String(text[a.upperBound..<b.lowerBound])
        }
        return (field("Code"), field("Message"))
    }
}
