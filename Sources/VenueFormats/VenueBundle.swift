import Foundation

/// The files of one venue dataset: a folder or a zip archive.
/// Names are relative to the dataset root ("unit.geojson").
public protocol VenueBundle {
    /// The path the user gave, for messages.
    var location: String { get }
    /// Relative names of the regular files in the bundle, sorted.
    func fileNames() throws -> [String]
    func read(_ name: String) throws -> Data
}

extension VenueBundle {
    /// How a file is named in messages: the bundle path plus the entry.
    public func describe(_ name: String) -> String { "\(location)/\(name)" }

    /// The bundle's files without macOS metadata entries, and the dataset root: the
    /// folder of the shallowest file named `marker` (zips often wrap the dataset in
    /// a folder). nil when no file has that name.
    func datasetRoot(marker: String) throws -> (files: [String], prefix: String)? {
        let all = try fileNames().filter { !$0.hasPrefix("__MACOSX/") && !($0 as NSString).lastPathComponent.hasPrefix("._") }
        guard let path = all.filter({ ($0 as NSString).lastPathComponent == marker })
            .min(by: { $0.split(separator: "/").count < $1.split(separator: "/").count }) else { return nil }
        return (all, String(path.dropLast(marker.count)))
    }
}

/// Limits that keep a hostile archive from exhausting memory.
public struct ArchiveLimits: Sendable, Equatable {
    /// Total uncompressed bytes, declared and actually read (default 1 GiB).
    public var maxUncompressedBytes: UInt64
    /// Entries in the central directory (default 100,000).
    public var maxEntries: Int

    public init(maxUncompressedBytes: UInt64 = 1 << 30, maxEntries: Int = 100_000) {
        self.maxUncompressedBytes = maxUncompressedBytes; self.maxEntries = maxEntries
    }

    public static let `default` = ArchiveLimits()
}

/// Opens a folder or a `.zip` file.
public func openBundle(at path: String, limits: ArchiveLimits = .default) throws -> VenueBundle {
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
        throw VenueFormatError(file: path, problem: "no such file or folder")
    }
    if isDir.boolValue { return DirectoryBundle(root: path) }
    return try ZipBundle(path: path, limits: limits)
}

/// The venue formats a bundle can hold.
public enum VenueFormat: String, Sendable, CaseIterable { case imdf, mvf, geojson }

/// Tells the format of a venue by its files: IMDF has `manifest.json`, MVF
/// `manifest.geojson`; a `.geojson` file or a folder of them is indoor GeoJSON.
public func detectFormat(path: String, limits: ArchiveLimits = .default) throws -> VenueFormat {
    if path.hasSuffix(".geojson") || path.hasSuffix(".json") { return .geojson }
    let names = try openBundle(at: path, limits: limits).fileNames().map { ($0 as NSString).lastPathComponent }
    if names.contains("manifest.json") { return .imdf }
    if names.contains("manifest.geojson") { return .mvf }
    if names.contains(where: { $0.hasSuffix(".geojson") }) { return .geojson }
    throw VenueFormatError(file: path, problem: "cannot tell the venue format: no manifest.json (IMDF), manifest.geojson (MVF) or .geojson file")
}

public struct DirectoryBundle: VenueBundle {
    public let root: String
    public var location: String { root }

    public init(root: String) { self.root = root }

    public func fileNames() throws -> [String] {
        let url = URL(fileURLWithPath: root)
        guard let e = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw VenueFormatError(file: root, problem: "cannot list folder")
        }
        var names = [String]()
        let prefix = url.standardizedFileURL.path + "/"
        for case let f as URL in e {
            guard (try? f.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let p = f.standardizedFileURL.path
            names.append(p.hasPrefix(prefix) ? String(p.dropFirst(prefix.count)) : f.lastPathComponent)
        }
        return names.sorted()
    }

    public func read(_ name: String) throws -> Data {
        let path = (root as NSString).appendingPathComponent(name)
        guard let d = FileManager.default.contents(atPath: path) else {
            throw VenueFormatError(file: path, problem: "cannot read file")
        }
        return d
    }
}

/// A zip archive read through libzip. Entries are read on the calling thread only.
///
/// Nothing is ever extracted to disk, but a hostile archive is still refused
/// whole, before any entry is read: entry names that are absolute or climb out
/// with `..`, symbolic links, encrypted entries, more entries or more declared
/// bytes than `limits` allow. Reading counts the bytes that actually come out,
/// so an entry that lies about its size stops at the limit too.
public final class ZipBundle: VenueBundle {
    public let location: String
    private let archive: ZipArchive
    private let names: [String]
    private let limits: ArchiveLimits
    private var bytesRead: UInt64 = 0

    public init(path: String, limits: ArchiveLimits = .default) throws {
        location = path
        self.limits = limits
        let entries: [ZipArchive.Entry]
        do {
            archive = try ZipArchive(path: path)
            entries = try archive.entries()
        } catch let e as ZipError {
            throw VenueFormatError(file: path, problem: "not a readable zip archive (\(e.message))")
        }
        if entries.count > limits.maxEntries {
            throw VenueFormatError(file: path, problem: "refusing the archive: \(entries.count) entries, more than the limit of \(limits.maxEntries)")
        }
        var declared: UInt64 = 0
        for e in entries {
            let where_ = "\(path)/\(e.name)"
            if e.name.hasPrefix("/") || e.name.hasPrefix("\\") || (e.name.count > 1 && Array(e.name)[1] == ":") {
                throw VenueFormatError(file: where_, problem: "refusing the archive: the entry has an absolute name")
            }
            if e.name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).contains("..") {
                throw VenueFormatError(file: where_, problem: "refusing the archive: the entry name climbs out of the archive's folder (\"..\")")
            }
            if e.isSymlink {
                throw VenueFormatError(file: where_, problem: "refusing the archive: the entry is a symbolic link")
            }
            if e.encrypted {
                throw VenueFormatError(file: where_, problem: "refusing the archive: the entry is encrypted (venue data must not need a password)")
            }
            declared &+= e.size
            if declared > limits.maxUncompressedBytes || e.size > limits.maxUncompressedBytes {
                throw VenueFormatError(file: path, problem: "refusing the archive: its entries declare more than \(limits.maxUncompressedBytes) uncompressed bytes (zip bomb limit)")
            }
        }
        names = entries.filter { !$0.isDirectory }.map(\.name).sorted()
    }

    public func fileNames() throws -> [String] { names }

    public func read(_ name: String) throws -> Data {
        do {
            let d = try archive.read(name, limit: limits.maxUncompressedBytes - min(bytesRead, limits.maxUncompressedBytes))
            bytesRead += UInt64(d.count)
            return d
        } catch let e as ZipError {
            throw VenueFormatError(file: describe(name), problem: "cannot read entry (\(e.message))")
        }
    }
}
