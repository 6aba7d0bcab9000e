import Foundation
import TestSupport
import XCTest
import Yams

/// The batch engine examples of docs/scale/: parsed (YAML with Yams, JSON),
/// checked against the fields the Kubernetes Job, AWS Batch and Slurm APIs
/// require, and against each other (N of `--shard auto/N` and the array size).
final class ScaleDocsTests: XCTestCase {
    let docs = CLI.packageRoot.appendingPathComponent("docs/scale")

    func text(_ name: String) throws -> String { try String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8) }
    func json(_ name: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: docs.appendingPathComponent(name))) as? [String: Any], name)
    }

    /// The N of `--shard auto/N` in a command line, or of `$SHARDS`.
    func shardCount(_ command: String) -> String? {
        guard let r = command.range(of: #"--shard auto/\S+"#, options: .regularExpression) else { return nil }
        return String(command[r].dropFirst("--shard auto/".count))
    }

    /// A batch/v1 Job: what the API server refuses a Job without.
    func checkJob(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> (spec: [String: Any], command: String) {
        let doc = try XCTUnwrap(try Yams.load(yaml: text(name)) as? [String: Any], name)
        XCTAssertEqual(doc["apiVersion"] as? String, "batch/v1", name, file: file, line: line)
        XCTAssertEqual(doc["kind"] as? String, "Job", name, file: file, line: line)
        let meta = try XCTUnwrap(doc["metadata"] as? [String: Any])
        let jobName = try XCTUnwrap(meta["name"] as? String)
        XCTAssertNotNil(jobName.range(of: #"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"#, options: .regularExpression), "DNS-1123 label: \(jobName)")
        let spec = try XCTUnwrap(doc["spec"] as? [String: Any])
        let pod = try XCTUnwrap((spec["template"] as? [String: Any])?["spec"] as? [String: Any])
        // A Job's pods must not restart in place.
        XCTAssertTrue(["Never", "OnFailure"].contains(pod["restartPolicy"] as? String ?? ""), name, file: file, line: line)
        let containers = try XCTUnwrap(pod["containers"] as? [[String: Any]])
        XCTAssertFalse(containers.isEmpty)
        let volumes = Set(((pod["volumes"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String })
        var command = ""
        for c in containers {
            XCTAssertNotNil(c["name"] as? String, name, file: file, line: line)
            XCTAssertNotNil(c["image"] as? String, name, file: file, line: line)
            for m in (c["volumeMounts"] as? [[String: Any]]) ?? [] {
                XCTAssertTrue(volumes.contains(m["name"] as? String ?? ""), "\(name): mount of an undeclared volume \(m)", file: file, line: line)
                XCTAssertNotNil(m["mountPath"] as? String)
            }
            command += (((c["command"] as? [String]) ?? []) + ((c["args"] as? [String]) ?? [])).joined(separator: " ")
        }
        return (spec, command)
    }

    func testKubernetesIndexedJobAndMergeJob() throws {
        let (shards, command) = try checkJob("k8s-shards-job.yaml")
        XCTAssertEqual(shards["completionMode"] as? String, "Indexed")
        let completions = try XCTUnwrap(shards["completions"] as? Int, "an Indexed Job needs completions")
        XCTAssertLessThanOrEqual(shards["parallelism"] as? Int ?? 1, completions)
        XCTAssertEqual(shardCount(command), "\(completions)", command)
        XCTAssertTrue(command.contains("$JOB_COMPLETION_INDEX"), "each pod writes a folder of its own: \(command)")
        let (_, merge) = try checkJob("k8s-merge-job.yaml")
        XCTAssertTrue(merge.contains("venuetiles merge --output"), merge)
    }

    func testAWSBatchJobDefinitionArrayJobAndDependentMerge() throws {
        let def = try json("aws-batch-job-definition.json")
        // RegisterJobDefinition: jobDefinitionName and type are required; a container job needs an image.
        let defName = try XCTUnwrap(def["jobDefinitionName"] as? String)
        XCTAssertTrue(["container", "multinode"].contains(def["type"] as? String ?? ""))
        let container = try XCTUnwrap(def["containerProperties"] as? [String: Any])
        XCTAssertNotNil(container["image"] as? String)
        let resources = try XCTUnwrap(container["resourceRequirements"] as? [[String: Any]])
        XCTAssertEqual(Set(resources.compactMap { $0["type"] as? String }), ["VCPU", "MEMORY"])
        XCTAssertTrue(resources.allSatisfy { $0["value"] is String }, "resource values are strings in the API")
        let volumes = Set(((container["volumes"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String })
        for m in (container["mountPoints"] as? [[String: Any]]) ?? [] { XCTAssertTrue(volumes.contains(m["sourceVolume"] as? String ?? ""), "\(m)") }
        let command = try XCTUnwrap(container["command"] as? [String]).joined(separator: " ")
        XCTAssertEqual(shardCount(command), "$SHARDS")
        XCTAssertTrue(command.contains("$AWS_BATCH_JOB_ARRAY_INDEX"))

        // SubmitJob: jobName, jobQueue and jobDefinition are required; an array job has 2…10,000 children.
        let submit = try json("aws-batch-submit-shards.json")
        for k in ["jobName", "jobQueue", "jobDefinition"] { XCTAssertNotNil(submit[k] as? String, k) }
        XCTAssertEqual(submit["jobDefinition"] as? String, defName)
        let size = try XCTUnwrap((submit["arrayProperties"] as? [String: Any])?["size"] as? Int)
        XCTAssertTrue((2...10_000).contains(size))
        let env = ((submit["containerOverrides"] as? [String: Any])?["environment"] as? [[String: String]]) ?? []
        XCTAssertEqual(env.first { $0["name"] == "SHARDS" }?["value"], "\(size)", "SHARDS must equal the array size")

        let merge = try json("aws-batch-submit-merge.json")
        for k in ["jobName", "jobQueue", "jobDefinition"] { XCTAssertNotNil(merge[k] as? String, k) }
        let deps = try XCTUnwrap(merge["dependsOn"] as? [[String: Any]])
        XCTAssertNotNil(deps.first?["jobId"] as? String)
        XCTAssertNil(deps.first?["type"], "N_TO_N is for array jobs; the merge waits for every child")
        let mergeCommand = try XCTUnwrap((merge["containerOverrides"] as? [String: Any])?["command"] as? [String]).joined(separator: " ")
        XCTAssertTrue(mergeCommand.contains("venuetiles merge --output"))
        for name in ["jobName"] {
            for doc in [submit, merge] {
                let v = doc[name] as! String
                XCTAssertNotNil(v.range(of: #"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$"#, options: .regularExpression), v)
            }
        }
    }

    /// The Slurm scripts are valid shell with #SBATCH options (the Slurm test submits them).
    func testSlurmScriptsAndTheGuide() throws {
        for name in ["slurm-shards.sbatch", "slurm-merge.sbatch"] {
            let t = try text(name)
            XCTAssertTrue(t.hasPrefix("#!/"), name)
            XCTAssertTrue(t.contains("#SBATCH --job-name="), name)
            let syntax = try ExternalTools.run("bash", ["-n", docs.appendingPathComponent(name).path])
            XCTAssertEqual(syntax.status, 0, syntax.stderr)
        }
        XCTAssertTrue(try text("slurm-shards.sbatch").contains("--shard \"auto/$n\""))
        let guide = try String(contentsOf: docs.deletingLastPathComponent().appendingPathComponent("scale.md"), encoding: .utf8)
        for f in try FileManager.default.contentsOfDirectory(atPath: docs.path) { XCTAssertTrue(guide.contains("docs/scale/\(f)"), "docs/scale.md does not mention \(f)") }
        XCTAssertTrue(guide.contains("--dependency=afterok"))
        XCTAssertTrue(guide.contains("parallel "))
    }
}
