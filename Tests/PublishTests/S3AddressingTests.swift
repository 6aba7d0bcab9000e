import Foundation
import XCTest
@testable import Publish

/// Where S3 requests go, how errors are read, and how long retries wait.
final class S3AddressingTests: XCTestCase {
    let creds = AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret")

    func testAddressing() async throws {
        let aws = try S3Destination(bucket: "venue-tiles", prefix: "maps/", region: "eu-west-1", credentials: creds, endpoint: nil)
        XCTAssertEqual(aws.origin, "https://venue-tiles.s3.eu-west-1.amazonaws.com")
        XCTAssertEqual(aws.basePath, "/")
        XCTAssertEqual(aws.invalidationPath("h/a.png"), "/maps/h/a.png")
        let dotted = try S3Destination(bucket: "tiles.example.com", prefix: "", region: "us-east-1", credentials: creds, endpoint: nil)
        XCTAssertEqual(dotted.origin, "https://s3.us-east-1.amazonaws.com")
        XCTAssertEqual(dotted.basePath, "/tiles.example.com/")
        let custom = try S3Destination(bucket: "b", prefix: "p/", region: "us-east-1", credentials: creds, endpoint: "http://127.0.0.1:9000")
        XCTAssertEqual(custom.origin, "http://127.0.0.1:9000")
        XCTAssertEqual(custom.hostHeader, "127.0.0.1:9000")
        XCTAssertEqual(custom.basePath, "/b/")
        let defaultPort = try S3Destination(bucket: "b", prefix: "", region: "us-east-1", credentials: creds, endpoint: "https://minio.example:443")
        XCTAssertEqual(defaultPort.hostHeader, "minio.example")
        for d in [aws, dotted, custom, defaultPort] { try await d.close() }
        XCTAssertThrowsError(try S3Destination(bucket: "b", prefix: "", region: "r", credentials: creds, endpoint: "ftp://x"))
        XCTAssertThrowsError(try S3Destination(bucket: "b", prefix: "", region: "r", credentials: creds, endpoint: "http://x/some/path"))
    }

    func testErrorDocument() {
        let body = Array("<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>".utf8)
        let (code, message) = S3Destination.errorFields(body)
        XCTAssertEqual(code, "NoSuchBucket")
        XCTAssertEqual(message, "The specified bucket does not exist")
        XCTAssertEqual(S3Destination.errorFields([]).0, "")
    }

    func testBackoffGrowsAndIsCapped() {
        let p = RetryPolicy(attempts: 6, baseDelay: 0.2, maxDelay: 1)
        for _ in 0..<50 {
            let d2 = p.delay(beforeAttempt: 2), d3 = p.delay(beforeAttempt: 3), d6 = p.delay(beforeAttempt: 6)
            XCTAssertTrue((0.1...0.2).contains(d2), "\(d2)")
            XCTAssertTrue((0.2...0.4).contains(d3), "\(d3)")
            XCTAssertTrue((0.5...1).contains(d6), "\(d6)")
        }
    }

    func testCredentialsFromEnvironment() {
        XCTAssertNil(AWSCredentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "a"]))
        XCTAssertEqual(AWSCredentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "AWS_SESSION_TOKEN": "t"]),
                       AWSCredentials(accessKeyID: "a", secretAccessKey: "s", sessionToken: "t"))
        XCTAssertNil(AWSCredentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "AWS_SESSION_TOKEN": ""])?.sessionToken)
    }
}
