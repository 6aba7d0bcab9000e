import ArgumentParser
import Foundation
import Pipeline
import Styling
import VenueFormats

@main
struct VenueTiles: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "venuetiles",
        abstract: "Build raster map tiles for every floor of indoor venues.",
        discussion: """
        Reads the venues listed in a pipeline.json (Apple IMDF folders or .zip files), \
        groups their levels into floors by ordinal, and renders 256 px PNG tiles for \
        every floor and zoom into <output>/<venue>/<floor>/png/{z}/{x}/{y}.png, then \
        writes <output>/manifest.json with every tile's SHA-256.

        Exit status: 0 success; 1 bad input or configuration (the output folder is not \
        touched); 3 a failure while rendering or writing output; 64 bad command-line usage.
        """,
        version: Generator.version,
        subcommands: [Build.self],
        defaultSubcommand: nil
    )
}

struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The pipeline configuration file.", valueName: "file"))
    var config: String = "pipeline.json"

    @Option(name: .long, help: ArgumentHelp("Write tiles here instead of the config's \"output\" folder.", valueName: "dir"))
    var output: String?
}

struct Build: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render every floor of every source into the output folder.",
        discussion: """
        Everything is read and checked before the output folder is touched: on bad input \
        the previous output stays as it was. Tiles are written under a temporary name and \
        renamed; manifest.json is written last. Tiles that the previous manifest listed \
        and this build no longer produces are deleted.
        """
    )

    @OptionGroup var common: CommonOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Render workers (default: the number of cores).", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(name: .shortAndLong, help: "Print only warnings, errors and the summary line.")
    var quiet = false

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
    }

    func run() throws {
        let quiet = self.quiet
        let log: (String) -> Void = { line in
            if quiet && !(line.hasPrefix("warning") || line.hasPrefix("error")) { return }
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        let summary: BuildSummary
        do {
            let config = try PipelineConfig.load(path: common.config)
            let output = common.output.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            summary = try Builder(config: config, options: BuildOptions(jobs: jobs, output: output), log: log).run()
        } catch let e as ConfigError { throw fail(e, code: 1) }
        catch let e as VenueFormatError { throw fail(e, code: 1) }
        catch let e as StyleError { throw fail(e, code: 1) }
        catch { throw fail(error, code: 3) }
        print(String(format: "built %d tiles (%.1f MB) into %@ in %.2f s; %d blank tiles skipped, %d stale tiles deleted, %d warnings",
                     summary.tilesWritten, Double(summary.bytes) / 1e6, summary.output, summary.seconds,
                     summary.blankSkipped, summary.deleted, summary.warnings))
    }

    private func fail(_ e: Error, code: Int32) -> ExitCode {
        FileHandle.standardError.write(Data("error: \(e)\n".utf8))
        return ExitCode(code)
    }
}
