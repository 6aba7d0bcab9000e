import Foundation

/// Runs python3 with a script and input on stdin; throws with its stderr on failure.
public enum PythonHelper {
    public static func run(script: String, stdin: Data = Data(), args: [String] = []) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script] + args
        let inPipe = Pipe(), out = Pipe(), err = Pipe()
        p.standardInput = inPipe; p.standardOutput = out; p.standardError = err
        try p.run()
        inPipe.fileHandleForWriting.write(stdin)
        try inPipe.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw NSError(domain: "python3", code: Int(p.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "python3 failed: " + String(decoding: e, as: UTF8.self)])
        }
        return String(decoding: o, as: UTF8.self)
    }
}

/// A moto S3 server on 127.0.0.1 (PyPI moto[server]), on a port it picks,
/// stopped when the object goes.
public final class MotoServer {
    let process = Process()
    public let port: Int
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    public init() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("moto-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "from moto.server import main; main()", "-H", "127.0.0.1", "-p", "0"]
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        // moto prints "Running on http://127.0.0.1:PORT" once it listens.
        let deadline = Date().addingTimeInterval(30)
        var found: Int?
        while Date() < deadline && process.isRunning && found == nil {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let r = text.range(of: #"Running on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                found = Int(text[r].split(separator: ":").last!)
            } else { usleep(100_000) }
        }
        guard let found else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw NSError(domain: "moto", code: 1, userInfo: [NSLocalizedDescriptionKey: "moto_server did not start: " + ((try? String(contentsOf: log, encoding: .utf8)) ?? "")])
        }
        port = found
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }

    public static var available: Bool {
        (try? PythonHelper.run(script: "import moto.server, flask, boto3")) != nil
    }

    /// Runs a boto3 snippet against this server; `s3` is a client, `bucket` given.
    public func boto(_ body: String, bucket: String) throws -> String {
        let script = """
        import boto3, json, sys
        s3 = boto3.client("s3", endpoint_url="\(endpoint)", region_name="us-east-1",
                          aws_access_key_id="testing", aws_secret_access_key="testing")
        bucket = "\(bucket)"
        \(body)
        """
        return try PythonHelper.run(script: script)
    }

    public func createBucket(_ bucket: String) throws { _ = try boto("s3.create_bucket(Bucket=bucket)", bucket: bucket) }

    /// Every key under the bucket with its ETag (the MD5 of the bytes for single-part uploads).
    public func listObjects(_ bucket: String) throws -> [String: String] {
        let out = try boto("""
        out = {}
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            for o in page.get("Contents", []):
                out[o["Key"]] = o["ETag"].strip('"')
        print(json.dumps(out))
        """, bucket: bucket)
        return try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String: String]
    }

    /// An object's body and headers.
    public func getObject(_ bucket: String, _ key: String) throws -> (body: Data, headers: [String: String]) {
        let out = try boto("""
        r = s3.get_object(Bucket=bucket, Key=sys.argv[1] if len(sys.argv) > 1 else \(String(reflecting: key)))
        h = {k.lower(): v for k, v in r["ResponseMetadata"]["HTTPHeaders"].items()}
        print(json.dumps({"body": r["Body"].read().hex(), "headers": h}))
        """, bucket: bucket)
        let obj = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String: Any]
        let body = hexData(obj["body"] as! String)
        return (body, obj["headers"] as! [String: String])
    }
}
