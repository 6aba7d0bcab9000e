import Foundation
import VenueFormats

/// Shared parts of the libFuzzer targets (Sources/Fuzz*/).
///
/// Each target exports `LLVMFuzzerTestOneInput` and is compiled with
/// `-parse-as-library`, so it has no Swift `main`. Built with
/// `--sanitize fuzzer`, libFuzzer's `main` drives it. In a normal build
/// SwiftPM links the executable's `main` to `<Target>_main`, which each target
/// defines as `FuzzReplay.main`: the binary then replays the files it is
/// given (a crash fixture, a corpus folder) without libFuzzer, so the fuzz
/// targets never break `swift build`.
public enum FuzzReplay {
    public static func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
                            _ body: (UnsafePointer<UInt8>, Int) -> CInt) -> CInt {
        let args = (1..<Int(argc)).compactMap { argv[$0].map { String(cString: $0) } }
        if args.isEmpty {
            FileHandle.standardError.write(Data("usage: \(CommandLine.arguments.first ?? "fuzz") FILE|FOLDER...\n(replays inputs; build with --sanitize fuzzer to fuzz)\n".utf8))
            return 2
        }
        var count = 0
        for path in args {
            for file in files(path) {
                guard let d = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("cannot read \(file)\n".utf8)); return 1
                }
                _ = d.withUnsafeBytes { raw in
                    // A pointer even for an empty input, as libFuzzer gives.
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, raw.count)) { buf in
                        _ = raw.copyBytes(to: buf)
                        return body(UnsafePointer(buf.baseAddress!), raw.count)
                    }
                }
                count += 1
            }
        }
        print("replayed \(count) input(s) without a crash")
        return 0
    }

    private static func files(_ path: String) -> [String] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else { return [path] }
        let names = (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }.filter {
            var d: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &d) && !d.boolValue
        }
    }
}

/// Several named files in one fuzz input, so that a multi-file dataset (IMDF,
/// MVF, a sprite's JSON and PNG) mutates as one input. Each file starts with a
/// line `#file NAME`; an input without that header is one file named `fallback`.
/// `scripts/fuzz` packs seed folders in this form (`pack`).
public enum FuzzFiles {
    static let marker = Array("#file ".utf8)

    public static func split(_ data: Data, fallback: String) -> [(name: String, data: Data)] {
        let b = [UInt8](data)
        guard b.starts(with: marker) else { return [(fallback, data)] }
        var out = [(String, Data)]()
        var starts = [0]
        var i = 0
        while i + marker.count < b.count {
            if b[i] == 0x0A, b[(i + 1)...].starts(with: marker) { starts.append(i + 1) }
            i += 1
        }
        for (k, s) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1] - 1 : b.count
            let nameStart = s + marker.count
            guard nameStart <= end else { continue }
            let nl = b[nameStart..<end].firstIndex(of: 0x0A) ?? end
            let name = String(decoding: b[nameStart..<nl], as: UTF8.self)
            let body = nl < end ? Data(b[(nl + 1)..<end]) : Data()
            out.append((name, body))
        }
        return out
    }
}

/// A venue dataset held in memory: the fuzz input's files.
public struct MemoryBundle: VenueBundle {
    public let location = "fuzz"
    let files: [String: Data]

    public init(_ files: [(name: String, data: Data)]) {
        var d = [String: Data]()
        for f in files where d[f.name] == nil { d[f.name] = f.data }
        self.files = d
    }

    public func fileNames() throws -> [String] { files.keys.sorted() }

    public func read(_ name: String) throws -> Data {
        guard let d = files[name] else { throw VenueFormatError(file: describe(name), problem: "no such file") }
        return d
    }
}

/// Fuzz inputs as Data.
public func fuzzData(_ p: UnsafePointer<UInt8>, _ n: Int) -> Data { Data(bytes: p, count: n) }
