import ArgumentParser
import Foundation
import Pipeline

struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join the folders of a sharded build into the output a single build makes.",
        discussion: """
        Each SHARD_DIR is the output folder of one `venuetiles build --shard i/N` of the same \
        inputs; all N must be given. The merged folder holds exactly the files, manifest.json and \
        index that `venuetiles build` of the same config writes in one process, byte for byte. \
        Shards of other inputs, another generator version or another N are refused, and a missing \
        or repeated shard is named. Files already in the output with the right bytes are left \
        alone; files the last merge wrote and this one does not are removed after the new \
        manifest is in place. On any error the output stays as it was.

        Examples:
          venuetiles build --config pipeline.json --shard 0/2 --output shards/0
          venuetiles build --config pipeline.json --shard 1/2 --output shards/1
          venuetiles merge --output output shards/0 shards/1
        """
    )

    @Option(help: ArgumentHelp("The merged output folder.", valueName: "dir"))
    var output: String

    @Argument(help: ArgumentHelp("The shard folders, every shard 0…N-1 once.", valueName: "shard-dir"))
    var shards: [String]

    @Flag(name: .customLong("allow-existing"), help: "Merge into a non-empty folder that venuetiles did not make (its files are never deleted).")
    var allowExisting = false

    @Flag(name: .shortAndLong, help: "Print only warnings, errors and the summary line.")
    var quiet = false

    func validate() throws {
        if output.isEmpty { throw ValidationError("--output must name a folder") }
        if shards.isEmpty { throw ValidationError("give the shard folders to merge") }
    }

    func run() throws {
        let quiet = self.quiet
        let absolute = { (p: String) in URL(fileURLWithPath: p).standardizedFileURL.path }
        let summary: MergeSummary
        do {
            summary = try ShardMerge.run(output: absolute(output), shards: shards.map(absolute), allowExisting: allowExisting) { line in
                if quiet && !(line.hasPrefix("warning") || line.hasPrefix("error")) { return }
                FileHandle.standardError.write(Data((line + "\n").utf8))
            }
        } catch { throw exitStatus(for: error) }
        print(String(format: "merged %d shards: %d tiles (%.1f MB) into %@: %d files copied, %d unchanged, %d deleted",
                     summary.shards, summary.tiles, Double(summary.bytes) / 1e6, summary.output, summary.copied, summary.unchanged, summary.deleted))
    }
}
