import Foundation

/// Debian's nginx on 127.0.0.1, serving `root` with the repository's
/// scripts/nginx/venuetiles-locations.conf, with every path (pid, logs, temp
/// folders) under a temporary prefix. Stopped when the object goes.
public final class NginxServer {
    public private(set) var port = 0
    public let prefix: URL

    public static var binary: String? {
        ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public init(root: URL, locations: URL) throws {
        guard let binary = Self.binary else { throw NSError(domain: "nginx", code: 1, userInfo: [NSLocalizedDescriptionKey: "nginx is not installed"]) }
        prefix = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("logs"), withIntermediateDirectories: true)
        var lastLog = ""
        // A free port can be taken between the probe and nginx's bind: try a few.
        for _ in 0..<5 {
            let port = try Self.freePort()
            let p = prefix.path
            let conf = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(p)/nginx.pid;
            error_log \(p)/logs/error.log;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(p)/client_body;
                proxy_temp_path \(p)/proxy;
                fastcgi_temp_path \(p)/fastcgi;
                uwsgi_temp_path \(p)/uwsgi;
                scgi_temp_path \(p)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    root \(root.path);
                    include \(locations.path);
                }
            }
            """
            try conf.write(to: prefix.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            let proc = Process()
            proc.executableURL = URL(fileURLWithPath: binary)
            proc.arguments = ["-p", p, "-c", p + "/nginx.conf", "-e", p + "/logs/error.log"]
            proc.standardOutput = FileHandle.nullDevice
            proc.standardError = FileHandle.nullDevice
            try proc.run()
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline && proc.isRunning {
                if Self.canConnect(port) { self.port = port; self.running = proc; return }
                usleep(50_000)
            }
            if proc.isRunning { kill(proc.processIdentifier, SIGKILL); proc.waitUntilExit() }
            lastLog = (try? String(contentsOf: prefix.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
        }
        throw NSError(domain: "nginx", code: 2, userInfo: [NSLocalizedDescriptionKey: "nginx did not start: \(lastLog)"])
    }

    private var running: Process?

    deinit {
        if let p = running, p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
    }

    /// GET `path` with Python's http.client (no decoding of Content-Encoding):
    /// status, lower-cased headers and the raw body.
    public func get(_ path: String, headers: [String: String] = [:]) throws -> (status: Int, headers: [String: String], body: Data) {
        let script = """
        import http.client, json, sys
        c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
        c.request("GET", sys.argv[2], headers=json.loads(sys.argv[3]))
        r = c.getresponse()
        body = r.read()
        print(json.dumps({"status": r.status, "headers": {k.lower(): v for k, v in r.getheaders()}, "body": body.hex()}))
        """
        let hdrs = String(decoding: try JSONSerialization.data(withJSONObject: headers), as: UTF8.self)
        let out = try PythonHelper.run(script: script, args: [String(port), path, hdrs])
        let obj = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String: Any]
        return (obj["status"] as! Int, obj["headers"] as! [String: String], hexData(obj["body"] as! String))
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { throw NSError(domain: "nginx", code: 3, userInfo: [NSLocalizedDescriptionKey: "no free port"]) }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// Bytes from lower- or upper-case hex text.
public func hexData(_ hex: String) -> Data {
    let chars = Array(hex.utf8)
    var out = Data(capacity: chars.count / 2)
    func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 0x20) - 87 }
    var i = 0
    while i + 1 < chars.count { out.append(nibble(chars[i]) << 4 | nibble(chars[i + 1])); i += 2 }
    return out
}
