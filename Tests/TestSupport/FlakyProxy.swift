import Foundation

/// An HTTP proxy on 127.0.0.1 in front of an S3 server that fails the first PUT
/// of every key: every other one with 503 SlowDown, the rest by closing the
/// connection without an answer. `failKeysWith403` keys are refused for good
/// with 403 AccessDenied. `stats()` counts what it did.
public final class FlakyProxy {
    let process = Process()
    public let port: Int
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    static let script = #"""
import http.server, http.client, json, socket, sys, threading
upstream = int(sys.argv[1]); deny = set(json.loads(sys.argv[2]))
seen = set(); lock = threading.Lock(); stats = {"slowdown": 0, "dropped": 0, "denied": 0, "forwarded": 0}
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def reply(self, status, body, headers=()):
        self.send_response(status)
        for k, v in headers: self.send_header(k, v)
        self.send_header("Content-Length", str(len(body))); self.end_headers()
        if self.command != "HEAD": self.wfile.write(body)
    def any(self):
        if self.path == "/__stats":
            return self.reply(200, json.dumps(stats).encode())
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        if self.command == "PUT":
            if any(self.path.endswith(d) for d in deny):
                with lock: stats["denied"] += 1
                return self.reply(403, b"<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>")
            with lock:
                first = self.path not in seen
                seen.add(self.path)
                k = len(seen)
            if first and k % 2 == 0:
                with lock: stats["slowdown"] += 1
                return self.reply(503, b"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>")
            if first:
                with lock: stats["dropped"] += 1
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
        c = http.client.HTTPConnection("127.0.0.1", upstream, timeout=30)
        c.request(self.command, self.path, body=body, headers=dict(self.headers))
        r = c.getresponse(); data = r.read()
        with lock: stats["forwarded"] += 1
        self.reply(r.status, data, [(k, v) for k, v in r.getheaders() if k.lower() not in ("transfer-encoding", "connection", "content-length")])
    do_GET = do_PUT = do_DELETE = do_HEAD = do_POST = any
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"""#

    public init(upstreamPort: Int, failKeysWith403: [String] = []) throws {
        let out = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let deny = String(decoding: try JSONSerialization.data(withJSONObject: failKeysWith403), as: UTF8.self)
        process.arguments = ["python3", "-c", Self.script, String(upstreamPort), deny]
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let b = try out.fileHandleForReading.read(upToCount: 1), !b.isEmpty, b != Data([0x0A]) { line.append(b) }
        guard let p = Int(String(decoding: line, as: UTF8.self)) else {
            kill(process.processIdentifier, SIGKILL)
            throw NSError(domain: "proxy", code: 1, userInfo: [NSLocalizedDescriptionKey: "the proxy did not start"])
        }
        port = p
    }

    // SIGKILL: a child of the test runner may inherit a blocked SIGTERM.
    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }

    public func stats() throws -> [String: Int] {
        let out = try PythonHelper.run(script: "import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1]).read().decode())", args: [endpoint + "/__stats"])
        return try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String: Int]
    }
}
