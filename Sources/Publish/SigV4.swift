import Archives
import Crypto
import Foundation

/// AWS credentials: from the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
/// `AWS_SESSION_TOKEN`) or given.
public struct AWSCredentials: Sendable, Equatable {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID; self.secretAccessKey = secretAccessKey; self.sessionToken = sessionToken
    }

    /// Reads the standard variables; nil when the key id or the secret is missing or empty.
    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> AWSCredentials? {
        guard let id = env["AWS_ACCESS_KEY_ID"], !id.isEmpty,
              let secret = env["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else { return nil }
        let token = env["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
    }
}

/// AWS Signature Version 4 (header form), as AWS's "Signature Version 4 signing
/// process" describes it: canonical request → string to sign → HMAC chain of the
/// date, region, service and "aws4_request" → signature in the Authorization header.
///
/// Paths and query values are given decoded (as the object key is); the signer
/// percent-encodes them once with RFC 3986's unreserved set. That is what S3 wants
/// (its canonical URI is the key encoded once, never normalized), and it matches
/// AWS's test suite, whose requests carry decoded paths.
public struct SigV4Signer: Sendable {
    public var credentials: AWSCredentials
    public var region: String
    public var service: String

    public init(credentials: AWSCredentials, region: String, service: String) {
        self.credentials = credentials; self.region = region; self.service = service
    }

    /// A request to sign. `headers` must include `host`; names are case-insensitive.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var query: [(String, String)]
        public var headers: [(String, String)]
        /// Hex SHA-256 of the body, or "UNSIGNED-PAYLOAD".
        public var payloadHash: String

        public init(method: String, path: String, query: [(String, String)] = [], headers: [(String, String)], payloadHash: String) {
            self.method = method; self.path = path; self.query = query; self.headers = headers; self.payloadHash = payloadHash
        }
    }

    /// The parts of a signature, kept for tests and error messages.
    public struct Signature: Sendable {
        public var canonicalRequest: String
        public var stringToSign: String
        public var signedHeaders: String
        public var signature: String
        public var authorization: String
    }

    /// Hex SHA-256 of `data`, the form SigV4 uses for payloads and canonical requests.
    public static func hexSHA256<D: DataProtocol>(_ data: D) -> String {
        SHA256.hash(data: data).hexString
    }

    /// "20150830T123600Z" — the x-amz-date form, always UTC.
    public static func amzDate(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return f.string(from: date)
    }

    /// Signs `request` as of `amzDate` (which the request must also carry as
    /// `x-amz-date`).
    public func sign(_ request: Request, amzDate: String) -> Signature {
        let day = String(amzDate.prefix(8))
        // Header names lower-cased; values trimmed, inner runs of spaces collapsed;
        // a name given twice joins its values with commas, in the order given.
        var merged = [String: [String]]()
        for (name, value) in request.headers {
            merged[name.lowercased(), default: []].append(Self.trimHeaderValue(value))
        }
        let names = merged.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(merged[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let canonicalRequest = [
            request.method.uppercased(),
            Self.canonicalURI(request.path),
            Self.canonicalQuery(request.query),
            canonicalHeaders,
            signedHeaders,
            request.payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hexSHA256(Data(canonicalRequest.utf8))].joined(separator: "\n")
        let signature = Self.hmac(signingKey(day: day), stringToSign).hexString
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return Signature(canonicalRequest: canonicalRequest, stringToSign: stringToSign,
                         signedHeaders: signedHeaders, signature: signature, authorization: authorization)
    }

    /// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request").
    func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(Self.hmac(key, part)))
        }
        return key
    }

    static func hmac(_ key: SymmetricKey, _ message: String) -> HashedAuthenticationCode<SHA256> {
        HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: key)
    }

    static func trimHeaderValue(_ v: String) -> String {
        v.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// Every byte outside A–Z a–z 0–9 - . _ ~ as %XX (upper-case hex); '/' kept
    /// in paths only.
    public static func uriEncode(_ s: String, keepSlash: Bool) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            case UInt8(ascii: "/") where keepSlash:
                out.append("/")
            default:
                out += String(format: "%%%02X", b)
            }
        }
        return out
    }

    static func canonicalURI(_ path: String) -> String {
        path.isEmpty ? "/" : uriEncode(path, keepSlash: true)
    }

    /// Pairs encoded, then sorted by name and value (byte order of the encoded text).
    public static func canonicalQuery(_ query: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { pair in
            (uriEncode(pair.0, keepSlash: false), uriEncode(pair.1, keepSlash: false))
        }
        let sorted = encoded.sorted { a, b in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
    }
}
