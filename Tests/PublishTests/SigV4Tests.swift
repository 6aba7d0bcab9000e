import Foundation
import XCTest
@testable import Publish
import TestSupport

/// The signer against AWS's SigV4 test suite (aws-sig-v4-test-suite: the
/// requests and Authorization headers AWS publishes, credentials AKIDEXAMPLE,
/// 2015-08-30T12:36:00Z, us-east-1, service "service"), and against botocore's
/// S3 signer for S3-style requests.
final class SigV4Tests: XCTestCase {
    let signer = SigV4Signer(credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
                             region: "us-east-1", service: "service")
    let date = "20150830T123600Z"
    let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    struct Vector {
        var name: String; var method: String; var path: String
        var query: [(String, String)] = []; var headers: [(String, String)] = []; var body = ""
        var signedHeaders = "host;x-amz-date"; var signature: String
    }

    var vectors: [Vector] {[
        Vector(name: "get-vanilla", method: "GET", path: "/", signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(name: "get-vanilla-empty-query-key", method: "GET", path: "/", query: [("Param1", "value1")],
               signature: "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"),
        Vector(name: "get-vanilla-query-order-key-case", method: "GET", path: "/", query: [("Param2", "value2"), ("Param1", "value1")],
               signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        Vector(name: "get-vanilla-query-unreserved", method: "GET", path: "/",
               query: [("-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")],
               signature: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
        Vector(name: "get-vanilla-utf8-query", method: "GET", path: "/", query: [("ሴ", "bar")],
               signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        Vector(name: "get-unreserved", method: "GET", path: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
               signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        Vector(name: "get-utf8", method: "GET", path: "/ሴ", signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
        Vector(name: "get-header-key-duplicate", method: "GET", path: "/", headers: [("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1")],
               signedHeaders: "host;my-header1;x-amz-date", signature: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"),
        Vector(name: "get-header-value-order", method: "GET", path: "/", headers: [("My-Header1", "value4"), ("My-Header1", "value1"), ("My-Header1", "value3"), ("My-Header1", "value2")],
               signedHeaders: "host;my-header1;x-amz-date", signature: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"),
        Vector(name: "get-header-value-trim", method: "GET", path: "/", headers: [("My-Header1", " value1"), ("My-Header2", " \"a   b   c\"")],
               signedHeaders: "host;my-header1;my-header2;x-amz-date", signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        Vector(name: "post-vanilla", method: "POST", path: "/", signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        Vector(name: "post-vanilla-query", method: "POST", path: "/", query: [("Param1", "value1")],
               signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        Vector(name: "post-vanilla-query-nonunreserved", method: "POST", path: "/", query: [("@#$%^", ""), ("+", "/,?><`\";:\\|][{}")],
               signature: "66c82657c86e26fb25238d0e69f011edc4c6df5ae71119d7cb98ed9b87393c1e"),
        Vector(name: "post-vanilla-query-space", method: "POST", path: "/", query: [("p", "")],
               signature: "e71688addb58a26418614085fb730ba3faa623b461c17f48f2fbdb9361b94a9b"),
        Vector(name: "post-header-key-sort", method: "POST", path: "/", headers: [("My-Header1", "value1")],
               signedHeaders: "host;my-header1;x-amz-date", signature: "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"),
        Vector(name: "post-header-value-case", method: "POST", path: "/", headers: [("My-Header1", "VALUE1")],
               signedHeaders: "host;my-header1;x-amz-date", signature: "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"),
        Vector(name: "post-x-www-form-urlencoded", method: "POST", path: "/", headers: [("Content-Type", "application/x-www-form-urlencoded")],
               body: "Param1=value1", signedHeaders: "content-type;host;x-amz-date",
               signature: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
        Vector(name: "post-x-www-form-urlencoded-parameters", method: "POST", path: "/", headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf8")],
               body: "Param1=value1", signedHeaders: "content-type;host;x-amz-date",
               signature: "1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe"),
    ]}

    func testAWSTestSuite() {
        for v in vectors {
            let headers = [("Host", "example.amazonaws.com"), ("X-Amz-Date", date)] + v.headers
            let req = SigV4Signer.Request(method: v.method, path: v.path, query: v.query, headers: headers,
                                          payloadHash: SigV4Signer.hexSHA256(Data(v.body.utf8)))
            let sig = signer.sign(req, amzDate: date)
            let expected = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=\(v.signedHeaders), Signature=\(v.signature)"
            XCTAssertEqual(sig.authorization, expected, v.name + "\n" + sig.canonicalRequest)
        }
    }

    /// The canonical request of get-vanilla-query-order-key-case, as the suite's .creq file gives it.
    func testCanonicalRequestText() {
        let req = SigV4Signer.Request(method: "GET", path: "/", query: [("Param2", "value2"), ("Param1", "value1")],
                                      headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", date)], payloadHash: emptyHash)
        let sig = signer.sign(req, amzDate: date)
        XCTAssertEqual(sig.canonicalRequest, "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\nx-amz-date:\(date)\n\nhost;x-amz-date\n\(emptyHash)")
        XCTAssertEqual(sig.stringToSign.split(separator: "\n").prefix(3).joined(separator: "\n"),
                       "AWS4-HMAC-SHA256\n\(date)\n20150830/us-east-1/service/aws4_request")
    }

    func testURIEncoding() {
        XCTAssertEqual(SigV4Signer.uriEncode("a b/c+d~e", keepSlash: true), "a%20b/c%2Bd~e")
        XCTAssertEqual(SigV4Signer.uriEncode("a/b", keepSlash: false), "a%2Fb")
        XCTAssertEqual(SigV4Signer.uriEncode("é", keepSlash: false), "%C3%A9")
    }

    /// S3 requests as the publisher makes them (PUT with content headers, a
    /// session token, x-amz-content-sha256 and a key with characters to encode),
    /// signed by botocore's S3SigV4Auth as an independent oracle.
    func testS3RequestsAgainstBotocore() throws {
        let creds = AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", sessionToken: "FQoGZXIvYXdzEXAMPLETOKEN")
        let s3 = SigV4Signer(credentials: creds, region: "eu-west-1", service: "s3")
        let body = Data("tile bytes".utf8)
        let cases: [(method: String, host: String, path: String, headers: [(String, String)], body: Data)] = [
            ("PUT", "127.0.0.1:9000", "/tiles/venue/floor 0/png/1x/19/262144/174762.png",
             [("content-type", "image/png"), ("cache-control", "public, max-age=86400"), ("content-encoding", "gzip")], body),
            ("GET", "my-bucket.s3.eu-west-1.amazonaws.com", "/prefix/manifest.json", [], Data()),
            ("DELETE", "s3.eu-west-1.amazonaws.com", "/my.bucket/prefix/a+b/ሴ.pbf", [], Data()),
        ]
        for c in cases {
            let hash = SigV4Signer.hexSHA256(c.body)
            let headers = c.headers + [("host", c.host), ("x-amz-date", "20260123T101112Z"), ("x-amz-content-sha256", hash),
                                       ("x-amz-security-token", creds.sessionToken!)]
            let ours = s3.sign(.init(method: c.method, path: c.path, headers: headers, payloadHash: hash), amzDate: "20260123T101112Z")
            let theirs = try botocoreAuthorization(method: c.method, url: "http://\(c.host)" + SigV4Signer.uriEncode(c.path, keepSlash: true),
                                                   headers: c.headers, body: c.body, creds: creds, region: "eu-west-1")
            XCTAssertEqual(ours.authorization, theirs, "\(c.method) \(c.path)\n\(ours.canonicalRequest)")
        }
    }

    /// Runs botocore (installed by scripts/setup) to sign the same request at the same time.
    func botocoreAuthorization(method: String, url: String, headers: [(String, String)], body: Data,
                               creds: AWSCredentials, region: String) throws -> String {
        let script = """
        import sys, json, datetime
        from unittest import mock
        from botocore.auth import S3SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials
        a = json.loads(sys.stdin.read())
        req = AWSRequest(method=a["method"], url=a["url"], data=bytes.fromhex(a["body"]), headers=dict(a["headers"]))
        auth = S3SigV4Auth(Credentials(a["id"], a["secret"], a["token"]), "s3", a["region"])
        fixed = datetime.datetime(2026, 1, 23, 10, 11, 12)
        import botocore.auth as ba
        if hasattr(ba, "get_current_datetime"):
            with mock.patch("botocore.auth.get_current_datetime", return_value=fixed):
                auth.add_auth(req)
        else:
            with mock.patch("botocore.auth.datetime") as dt:
                dt.datetime.utcnow.return_value = fixed
                auth.add_auth(req)
        print(req.headers["Authorization"])
        """
        let input: [String: Any] = ["method": method, "url": url, "body": body.map { String(format: "%02x", $0) }.joined(),
                                    "headers": headers.map { [$0.0, $0.1] }, "id": creds.accessKeyID,
                                    "secret": creds.secretAccessKey, "token": creds.sessionToken ?? "", "region": region]
        let out = try PythonHelper.run(script: script, stdin: try JSONSerialization.data(withJSONObject: input))
        return out.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
