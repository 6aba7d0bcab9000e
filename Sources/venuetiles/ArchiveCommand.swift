import Archives
import ArgumentParser
import Foundation
import Pipeline

struct Archive: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pack a built output folder into PMTiles, MBTiles or zip archives.",
        discussion: """
        Reads the output folder's manifest.json and packs what it lists: with --format pmtiles \
        (the default) or mbtiles, one archive per pyramid — each floor's tileset, and the \
        venue-wide vector tiles — at DEST/<venue>/<floor>/<tileset>.<format>; with --format zip, \
        one package per venue at DEST/<venue>.zip holding its tiles (stored), its TileJSON \
        documents and a manifest.json of its own (deflated), so that the unpacked package is an \
        output folder `venuetiles verify` accepts.

        Every file is checked against its recorded size and SHA-256 first; if one differs, \
        nothing is written (exit status 1: run `venuetiles build` again). Identical tiles are \
        stored once. PMTiles archives are written beside the old one and renamed over it; an \
        existing MBTiles archive is updated in place, in one transaction, changing only the rows \
        of tiles that were added, changed or removed. The same output gives byte-identical \
        PMTiles and zip files.

        Examples:
          venuetiles archive --output output --to archives
          venuetiles archive --output output --format mbtiles --tileset mvt --max-zoom 22 --to archives
          venuetiles archive --output output --format zip --venue harbour-arcade --to packages
        """
    )

    @OptionGroup var common: CommonOptions

    @Option(help: ArgumentHelp("pmtiles, mbtiles or zip.", valueName: "format"))
    var format: ArchiveExport.Format = .pmtiles

    @Option(help: ArgumentHelp("Folder the archives go to (default: <output>-archives beside the output folder).", valueName: "dest"))
    var to: String?

    @Option(help: ArgumentHelp("Only this tileset (png, png@2x, mvt); repeat for several. Default: all.", valueName: "name"))
    var tileset: [String] = []

    @Option(help: ArgumentHelp("Only this venue (source id); repeat for several. Default: all.", valueName: "id"))
    var venue: [String] = []

    @Option(name: .customLong("min-zoom"), help: ArgumentHelp("Leave out tiles below this zoom (pmtiles, mbtiles).", valueName: "z"))
    var minZoom: Int?

    @Option(name: .customLong("max-zoom"), help: ArgumentHelp("Leave out tiles above this zoom (pmtiles, mbtiles; GDAL reads MBTiles up to z22).", valueName: "z"))
    var maxZoom: Int?

    func validate() throws {
        let lo = minZoom ?? 0, hi = maxZoom ?? 30
        guard (0...30).contains(lo), (0...30).contains(hi), lo <= hi else {
            throw ValidationError("need 0 ≤ --min-zoom ≤ --max-zoom ≤ 30, found \(lo) and \(hi)")
        }
        if format == .zip && (minZoom != nil || maxZoom != nil) {
            throw ValidationError("--min-zoom and --max-zoom apply to pmtiles and mbtiles; a zip package holds whole tilesets")
        }
    }

    func run() throws {
        do {
            let output = try common.outputFolder()
            let dest = to.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? (output.hasSuffix("/") ? String(output.dropLast()) : output) + "-archives"
            let started = Date()
            let written = try ArchiveExport.run(output: output, request: .init(format: format, destination: dest, tilesets: Set(tileset), venues: Set(venue),
                                                                zooms: minZoom == nil && maxZoom == nil ? nil : (minZoom ?? 0)...(maxZoom ?? 30)))
            for w in written {
                var line = "\(w.path): \(w.bytes) bytes, \(w.tiles) tiles, \(w.contents) distinct, tiles in the tree \(w.treeBytes) bytes"
                if format == .mbtiles { line += "; rows +\(w.rowsInserted) ~\(w.rowsReplaced) -\(w.rowsDeleted)" }
                FileHandle.standardError.write(Data((line + "\n").utf8))
            }
            let bytes = written.reduce(0) { $0 + $1.bytes }, tree = written.reduce(0) { $0 + $1.treeBytes }
            let tiles = written.reduce(0) { $0 + $1.tiles }
            print(String(format: "wrote %d %@ archive%@ (%d tiles, %d bytes; the tiles take %d bytes in the tree) into %@ in %.2f s",
                         written.count, format.rawValue, written.count == 1 ? "" : "s", tiles, bytes, tree, dest, Date().timeIntervalSince(started)))
        } catch let e as ArchiveError {
            printError(e)
            // The output no longer matches its manifest, or a TileJSON is unusable: bad input.
            throw ExitCode(e.format == "tiles" || e.format == "tilejson" ? 1 : 3)
        } catch let e as StoreError where e.operation == "archive" {
            printError(e)
            throw ExitCode(1)
        } catch { throw exitStatus(for: error) }
    }
}

extension ArchiveExport.Format: ExpressibleByArgument {}
