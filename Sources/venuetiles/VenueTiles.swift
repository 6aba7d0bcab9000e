import ArgumentParser
import Foundation
import Pipeline
import Styling
import VenueFormats

@main
struct VenueTiles: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "venuetiles",
        abstract: "Build raster and vector map tiles for every floor of indoor venues.",
        discussion: """
        Reads the venues listed in a pipeline.json (Apple IMDF folders or .zip files), groups \
        their levels into floors by ordinal, and writes PNG tiles and Mapbox Vector Tiles for \
        every floor and zoom under the output folder, with TileJSON documents and a manifest.json \
        holding every file's SHA-256 and every tile's input key. A second build re-renders only \
        the tiles whose inputs changed.

        Exit status: 0 success; 1 bad input or configuration, an output folder that is not \
        venuetiles' to write or delete, or `verify` found a difference (the output folder is not \
        touched); 3 a failure while rendering or writing output; 4 another \
        build holds the output folder; 64 bad command-line usage; 130 or 143 stopped by SIGINT or \
        SIGTERM (the output folder is as the last complete build left it).
        """,
        version: Generator.version,
        subcommands: [Build.self, Merge.self, Validate.self, Verify.self, Clean.self, Archive.self, PublishCommand.self]
    )
}

struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The pipeline configuration file.", valueName: "file"))
    var config: String = "pipeline.json"

    @Option(name: .long, help: ArgumentHelp("Use this output folder instead of the config's \"output\".", valueName: "dir"))
    var output: String?

    var outputOverride: String? { output.map { URL(fileURLWithPath: $0).standardizedFileURL.path } }

    /// The output folder: --output, else the config's (read only for its "output").
    func outputFolder() throws -> String {
        if let o = outputOverride { return o }
        return try PipelineConfig.load(path: config).output
    }
}

func printError(_ e: Error) {
    // A venue with several errors lists each on its own line.
    for line in "\(e)".split(separator: "\n") { FileHandle.standardError.write(Data("error: \(line)\n".utf8)) }
}

/// Maps an error to the documented exit status.
func exitStatus(for e: Error) -> ExitCode {
    printError(e)
    switch e {
    case is ConfigError, is VenueFormatError, is VenueFormatErrors, is StyleError, is OutputFolderError, is OutputStateError, is TileLimitError,
         is MergeError, is ShardSpecError: return ExitCode(1)
    case is LockError: return ExitCode(4)
    case let e as BuildInterrupted: return ExitCode(128 + e.signal)
    default: return ExitCode(3)
    }
}

struct Build: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render every floor of every source into the output folder.",
        discussion: """
        Everything is read and checked before the output folder is touched: on bad input the \
        previous output stays as it was. Only tiles whose input key changed, whose file is \
        missing, or whose file no longer matches its recorded hash are rendered; tiles the new \
        build no longer produces are deleted. Files are written under a temporary name and \
        renamed; manifest.json is written last. A build killed at any point leaves the output \
        readable, and the next build finishes the job.
        """
    )

    @OptionGroup var common: CommonOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Render workers (default: the number of cores).", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Render every tile, ignoring the input keys of the previous build.")
    var force = false

    @Flag(name: .customLong("dry-run"), help: "Print what would be rendered, reused and deleted per floor and zoom; change nothing.")
    var dryRun = false

    @Flag(name: .customLong("allow-existing"), help: ArgumentHelp(
        "Build into a non-empty folder that venuetiles did not make.",
        discussion: "Its files are left alone: venuetiles deletes only what its own manifest lists. Without this flag such a folder is refused."))
    var allowExisting = false

    @Flag(name: .shortAndLong, help: "Print only warnings, errors and the summary line.")
    var quiet = false

    @Option(help: ArgumentHelp(
        "Build only shard i of N (0 ≤ i < N), for `venuetiles merge`; auto/N takes i from SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX.",
        valueName: "i/N"))
    var shard: String?

    @Flag(help: "Print wall and CPU time per stage (load, prepare, plan, keys, diff, render+encode, write, manifest) and tiles/s.")
    var timings = false

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        if common.output?.isEmpty == true { throw ValidationError("--output must name a folder (an empty value would be the current folder)") }
    }

    func run() throws {
        let quiet = self.quiet
        let log: (String) -> Void = { line in
            if quiet && !(line.hasPrefix("warning") || line.hasPrefix("error")) { return }
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        // On a terminal, a progress bar redrawn in place; otherwise plain log lines every few seconds.
        let bar: ((Int, Int, Double) -> Void)? = (quiet || isatty(STDERR_FILENO) == 0) ? nil : ProgressBar().update
        let summary: BuildSummary
        let builder: Builder
        do {
            let config = try PipelineConfig.load(path: common.config)
            var options = BuildOptions(jobs: jobs, output: common.outputOverride, force: force, dryRun: dryRun, allowExisting: allowExisting)
            options.shard = try shard.map { try ShardSpec.parse($0, environment: ProcessInfo.processInfo.environment) }
            builder = Builder(config: config, options: options, log: log, progress: bar)
            let stop = StopOnSignals(builder.cancellation)
            summary = try withExtendedLifetime(stop) { try builder.run() }
        } catch { throw exitStatus(for: error) }
        // The builder keeps the build's data until released: exiting here, with it
        // still held, leaves that memory to the OS instead of freeing it piece by piece.
        defer { withExtendedLifetime(builder) { Glibc.exit(EXIT_SUCCESS) } }
        if timings {
            for t in summary.timings {
                let line = "timing: " + t.stage.padding(toLength: 16, withPad: " ", startingAt: 0) + String(format: " wall %8.3f s  cpu %8.3f s", t.wall, t.cpu) + (t.peakMiB > 0 ? "  peak \(t.peakMiB) MiB\n" : "\n")
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
        if dryRun {
            summary.report.forEach { print($0) }
            print("dry run: would render \(summary.rendered) tiles, reuse \(summary.reused), delete \(summary.deleted) files in \(summary.output); nothing changed")
            return
        }
        if timings {
            let renderWall = summary.timings.first { $0.stage == "render+encode" }?.wall ?? 0
            FileHandle.standardError.write(Data(String(format: "timing: %d tiles rendered, %.0f tiles/s while rendering, %.0f tiles/s overall\n",
                                                       summary.rendered, Double(summary.rendered) / max(renderWall, 1e-9),
                                                       Double(summary.rendered) / max(summary.seconds, 1e-9)).utf8))
        }
        print(String(format: "built %d tiles (%.1f MB) into %@ in %.2f s: %d rendered, %d reused, %d deleted; %d blank tiles skipped, %d warnings",
                     summary.tilesWritten, Double(summary.bytes) / 1e6, summary.output, summary.seconds,
                     summary.rendered, summary.reused, summary.deleted, summary.blankSkipped, summary.warnings))
    }
}

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read and check venue data without writing anything.",
        discussion: """
        Checks every source of --config (default pipeline.json) and its style, or the one venue \
        at PATH (a folder, a .zip or a .geojson file; its format is detected). Prints every \
        problem with its severity, file, feature id and reason, then a summary per source. \
        Errors make a venue unbuildable (build refuses it); warnings are features the build \
        repairs or skips the same way every time. Exit status 0 when everything can be built, \
        1 on any error (with --strict, on any warning too), 64 on bad usage.
        """
    )

    @OptionGroup var common: CommonOptions

    @Argument(help: ArgumentHelp("A venue to check instead of the config's sources.", valueName: "path"))
    var path: String?

    @Option(name: .customLong("input-format"), help: ArgumentHelp("With PATH: imdf, mvf or geojson (default: detected).", valueName: "format"))
    var inputFormat: String?

    @Option(help: ArgumentHelp("Output: text (problems on stderr, summary on stdout) or json (one document on stdout).", valueName: "text|json"))
    var format: String = "text"

    @Flag(help: "Treat warnings (repaired or skipped features) as errors.")
    var strict = false

    func validate() throws {
        guard format == "text" || format == "json" else { throw ValidationError("--format must be text or json, not \"\(format)\"") }
        if let f = inputFormat, PipelineConfig.Source.Format(rawValue: f) == nil {
            throw ValidationError("--input-format must be imdf, mvf or geojson, not \"\(f)\"")
        }
    }

    func run() throws {
        let reports: [Validation.SourceReport]
        do {
            if let path {
                let full = URL(fileURLWithPath: path).standardizedFileURL.path
                let detected = try inputFormat.flatMap(PipelineConfig.Source.Format.init(rawValue:))
                    ?? PipelineConfig.Source.Format(rawValue: VenueFormats.detectFormat(path: full).rawValue)!
                let id = URL(fileURLWithPath: full).deletingPathExtension().lastPathComponent
                reports = [Validation.report(PipelineConfig.Source(id: id, format: detected, path: full))]
            } else {
                reports = Validation.run(config: try PipelineConfig.load(path: common.config))
            }
        } catch { throw exitStatus(for: error) }
        let errors = reports.reduce(0) { $0 + $1.errors }, warnings = reports.reduce(0) { $0 + $1.warnings }
        if format == "json" {
            FileHandle.standardOutput.write(Validation.json(reports, strict: strict))
            FileHandle.standardOutput.write(Data("\n".utf8))
        } else {
            for r in reports {
                for d in r.diagnostics {
                    let line = strict && d.kind == .warning ? "error (strict): \(d.location)" : d.description
                    FileHandle.standardError.write(Data("\(line)\n".utf8))
                }
                if r.readable {
                    print("\(r.sourceID): \(r.floors.count) floors (\(r.floors.joined(separator: ", "))), \(r.levels) levels, \(r.features) features, \(r.warnings) warnings")
                    print("  " + r.classes.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
                } else {
                    print("\(r.sourceID): cannot be built: \(r.errors) errors, \(r.warnings) warnings")
                }
            }
            print("validated \(reports.count) sources: \(errors) errors, \(warnings) warnings")
        }
        if errors > 0 || (strict && warnings > 0) { throw ExitCode(1) }
    }
}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check every file of the output folder against manifest.json.",
        discussion: "Lists missing, altered (hash differs) and unexpected files. Exit status 1 if there is any."
    )

    @OptionGroup var common: CommonOptions

    func run() throws {
        let report: VerifyReport
        do { report = try Pipeline.Verify.run(output: try common.outputFolder()) } catch { throw exitStatus(for: error) }
        report.missing.forEach { print("missing: \($0)") }
        report.altered.forEach { print("altered: \($0)") }
        report.unexpected.forEach { print("unexpected: \($0)") }
        print("verified \(report.checked) files: \(report.missing.count) missing, \(report.altered.count) altered, \(report.unexpected.count) unexpected")
        if !report.isClean { throw ExitCode(1) }
    }
}

struct Clean: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove what venuetiles wrote into the output folder.",
        discussion: """
        Removes the files the output's manifest.json lists (and those an unfinished build meant \
        to write), venuetiles' own .venuetiles/ folder, every folder that became empty, and the \
        output folder when nothing else is left. Files venuetiles did not write stay where they \
        are; symbolic links are never followed. A folder without .venuetiles/owner.json (one \
        venuetiles did not make) is refused with exit status 1, and a folder that a running build \
        holds with exit status 4.
        """
    )

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if common.output?.isEmpty == true { throw ValidationError("--output must name a folder (an empty value would be the current folder)") }
    }

    func run() throws {
        do {
            let dir = try common.outputFolder()
            let r = try Pipeline.Verify.clean(output: dir)
            if r.folderRemoved {
                print("removed \(dir) (\(r.removed) files)")
            } else if r.removed == 0 && r.kept.isEmpty {
                print("nothing to remove at \(dir)")
            } else {
                print("removed \(r.removed) files from \(dir); kept \(r.kept.count) entries venuetiles did not write: \(r.kept.prefix(5).joined(separator: ", "))")
            }
        } catch { throw exitStatus(for: error) }
    }
}

/// `[########------] 45%  12345/27000 tiles  10234 tiles/s  ETA 0:03` on one line of stderr.
final class ProgressBar {
    private var lastDraw = 0.0

    func update(done: Int, total: Int, elapsed: Double) {
        guard total > 0, done == total || elapsed - lastDraw > 0.1 else { return }
        lastDraw = elapsed
        let width = 30
        let filled = done * width / total
        let rate = Double(done) / max(elapsed, 1e-3)
        let eta = Int((Double(total - done) / max(rate, 1e-3)).rounded())
        let line = "\r[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + String(format: "%3d%%  %d/%d tiles  %.0f tiles/s  ETA %d:%02d", done * 100 / total, done, total, rate, eta / 60, eta % 60)
        FileHandle.standardError.write(Data((line + (done == total ? "\n" : "")).utf8))
    }
}
