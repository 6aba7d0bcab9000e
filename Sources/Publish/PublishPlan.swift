import Archives
import Crypto
import Foundation
import Pipeline

/// What the destination holds, as its last complete publish recorded it.
public struct PublishState: Sendable {
    /// The publish journal kept beside the manifest at the destination: the keys a
    /// publish was changing when it stopped. Their content at the destination is
    /// unknown, so the next publish sends (or deletes) them whatever the manifest says.
    public static let fileName = ".venuetiles-publish.json"

    /// path → SHA-256 (hex) from the destination's manifest.json.
    public var published: [String: String]
    /// SHA-256 of the destination's manifest.json bytes; nil when there is none.
    public var manifestSHA256: String?
    /// Keys a stopped publish left in doubt.
    public var pending: Set<String>

    public static let empty = PublishState(published: [:], manifestSHA256: nil, pending: [])

    public init(published: [String: String], manifestSHA256: String?, pending: Set<String>) {
        self.published = published; self.manifestSHA256 = manifestSHA256; self.pending = pending
    }

    /// Only the fields publish needs: a manifest of another generator version
    /// with other fields still reads.
    private struct ManifestPaths: Decodable {
        struct Entry: Decodable { var path: String; var sha256: String }
        var tiles: [Entry]
        var files: [Entry]
    }

    struct Journal: Codable {
        var version: Int
        var pending: [String]
    }

    /// Parses what the destination returned for manifest.json and the journal.
    public static func parse(manifest: Data?, journal: Data?, manifestKey: String, journalKey: String) throws -> PublishState {
        var state = PublishState.empty
        if let manifest {
            let m: ManifestPaths
            do { m = try JSONDecoder().decode(ManifestPaths.self, from: manifest) } catch {
                throw PublishError.unreadableState(key: manifestKey, reason: "is not a VenueTiles manifest (\(error)); publish to an empty prefix or folder, or remove it")
            }
            for e in m.tiles { state.published[e.path] = e.sha256 }
            for e in m.files { state.published[e.path] = e.sha256 }
            state.manifestSHA256 = SHA256.hash(data: manifest).hexString
        }
        if let journal {
            do { state.pending = Set(try JSONDecoder().decode(Journal.self, from: journal).pending) } catch {
                throw PublishError.unreadableState(key: journalKey, reason: "is not a VenueTiles publish journal (\(error)); remove it to publish every file again")
            }
        }
        return state
    }

    static func journalData(_ keys: Set<String>) throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try e.encode(Journal(version: 1, pending: keys.sorted()))
    }
}

/// The work of one publish: what to send, in which order, and what to delete.
public struct PublishPlan: Sendable {
    /// Tiles and meshes whose hash differs from the destination's (or in doubt).
    public var tileUploads: [LocalObject]
    /// TileJSON, archives and other listed files, sent after the tiles.
    public var indexUploads: [LocalObject]
    /// manifest.json, sent last; nil when the destination's is already these bytes.
    public var manifestUpload: LocalObject?
    /// Keys the destination has (or may have) that the output no longer lists.
    public var deletes: [String]
    /// Objects already at the destination with the same hash.
    public var unchanged: Int
    /// Keys left in doubt by a stopped publish, carried into this one's journal.
    public var pending: Set<String>

    public var uploads: [LocalObject] { tileUploads + indexUploads + (manifestUpload.map { [$0] } ?? []) }
    public var uploadBytes: Int { uploads.reduce(0) { $0 + $1.bytes } }
    public var isEmpty: Bool { uploads.isEmpty && deletes.isEmpty && pending.isEmpty }

    /// Compares the output with the destination's state. Order is deterministic
    /// (the manifest's order for uploads, sorted keys for deletes).
    public init(local: LocalOutput, remote: PublishState) {
        var tiles = [LocalObject](), index = [LocalObject]()
        var manifest: LocalObject?
        var unchanged = 0
        var listed = Set<String>()
        for o in local.objects {
            listed.insert(o.path)
            switch o.kind {
            case .manifest:
                manifest = o
            case .tile, .index:
                if remote.published[o.path] == o.sha256 && !remote.pending.contains(o.path) { unchanged += 1; continue }
                if o.kind == .tile { tiles.append(o) } else { index.append(o) }
            }
        }
        let gone = Set(remote.published.keys).union(remote.pending).subtracting(listed)
        deletes = gone.sorted()
        tileUploads = tiles
        indexUploads = index
        // The manifest goes again whenever anything else changed, so that it is
        // always the last write, and when its bytes differ.
        let changed = !tiles.isEmpty || !index.isEmpty || !deletes.isEmpty || !remote.pending.isEmpty
        if let m = manifest, changed || remote.manifestSHA256 != m.sha256 {
            manifestUpload = m
        } else {
            manifestUpload = nil
            if manifest != nil { unchanged += 1 }
        }
        self.unchanged = unchanged
        pending = remote.pending
    }
}
