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
}

/// Opens a folder or a `.zip` file.
public func openBundle(at path: String) throws -> VenueBundle {
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
        throw VenueFormatError(file: path, problem: "no such file or folder")
    }
    if isDir.boolValue { return DirectoryBundle(root: path) }
    return try ZipBundle(path: path)
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
public final class ZipBundle: VenueBundle {
    public let location: String
    private let archive: ZipArchive

    public init(path: String) throws {
        location = path
        do { archive = try ZipArchive(path: path) } catch let e as ZipError {
            throw VenueFormatError(file: path, problem: "not a readable zip archive (\(e.message))")
        }
    }

    public func fileNames() throws -> [String] {
        do { return try archive.entryNames().filter { !$0.hasSuffix("/") }.sorted() } catch let e as ZipError {
            throw VenueFormatError(file: location, problem: "cannot list entries (\(e.message))")
        }
    }

    public func read(_ name: String) throws -> Data {
        do { return try archive.read(name) } catch let e as ZipError {
            throw VenueFormatError(file: describe(name), problem: "cannot read entry (\(e.message))")
        }
    }
}
