import Foundation
import Testing
import TestSupport

/// `petspot-locationd --check-config`: every error with its key, exit 1.
@Suite("petspot-locationd --check-config")
struct ConfigurationCheckTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var toml: String
        var mentions: [String]
    }

    static let cases: [Case] = [
        Case(description: "TOML syntax error", toml: "[daemon]\nmax_clients = 4\nsocket = \n", mentions: ["line 3"]),
        Case(description: "unknown key", toml: "[daemon]\nmax_client = 4\n", mentions: ["daemon.max_client"]),
        Case(description: "wrong type", toml: "[daemon]\nmax_clients = \"many\"\n", mentions: ["daemon.max_clients"]),
        Case(
            description: "static latitude out of range",
            toml: "[source]\nkind = \"static\"\n[source.static]\nlatitude = 90.5\nlongitude = 10\n",
            mentions: ["source.static.latitude"]),
        Case(
            description: "static longitude out of range",
            toml: "[source]\nkind = \"static\"\n[source.static]\nlatitude = 10\nlongitude = -181\n",
            mentions: ["source.static.longitude"]),
    ]

    @Test("each bad configuration exits 1 naming the key or line", arguments: cases)
    func badConfiguration(_ testCase: Case) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("bad.toml", testCase.toml)
        let run = try ChildProcess.run(
            RepositoryPaths.executable("petspot-locationd"), ["--config", path, "--check-config"])
        #expect(run.status == 1)
        for mention in testCase.mentions {
            #expect(run.stderr.contains(mention), "stderr: \(run.stderr)")
        }
        #expect(run.stdout.isEmpty)
    }

    @Test("a missing file exits 1 naming the path")
    func missingFile() throws {
        let run = try ChildProcess.run(
            RepositoryPaths.executable("petspot-locationd"),
            ["--config", "/nonexistent/petspot.toml", "--check-config"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("/nonexistent/petspot.toml"))
    }

    @Test("a daemon started on a bad configuration exits 1 without serving")
    func badConfigurationDoesNotStart() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("bad.toml", "[daemon]\nsocket = \"\(directory.file("s.sock"))\"\nbogus = 1\n")
        let run = try ChildProcess.run(RepositoryPaths.executable("petspot-locationd"), ["--config", path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("daemon.bogus"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("s.sock")))
    }

    @Test("the shipped example configurations validate, and the effective configuration round-trips")
    func shippedConfigurations() throws {
        let configDirectory = RepositoryPaths.root + "/config"
        // kiosk.toml is the kiosk's own file (petspot-kiosk --check-config), not the daemon's.
        let files = try FileManager.default.contentsOfDirectory(atPath: configDirectory).filter {
            $0.hasSuffix(".toml") && $0 != "kiosk.toml"
        }
        #expect(!files.isEmpty)
        for file in files {
            let run = try ChildProcess.run(
                RepositoryPaths.executable("petspot-locationd"),
                ["--config", "\(configDirectory)/\(file)", "--check-config"])
            #expect(run.status == 0, "\(file): \(run.stderr)")
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let effective = try directory.write("effective.toml", run.stdout)
            let again = try ChildProcess.run(
                RepositoryPaths.executable("petspot-locationd"), ["--config", effective, "--check-config"])
            #expect(again.status == 0, "\(file) effective: \(again.stderr)")
            #expect(again.stdout == run.stdout)
        }
    }

    @Test("--demo --check-config prints the embedded simulated configuration")
    func demoConfiguration() throws {
        let run = try ChildProcess.run(RepositoryPaths.executable("petspot-locationd"), ["--demo", "--check-config"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("kind = \"simulated\""))
    }

    /// Issue 13 item 22: the scenario file is part of the configuration.
    @Test(
        "item22: a bad or missing scenario fails --check-config naming the key",
        arguments: [
            ("missing", nil as String?),
            ("not JSON", "{\"steps\": [\n"),
            ("unknown step", "{\"steps\": [{\"teleport\": 1}]}"),
        ])
    func item22_badScenarioFailsTheCheck(_ name: String, _ contents: String?) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.file("scenario.json")
        if let contents { _ = try directory.write("scenario.json", contents) }
        let path = try directory.write(
            "petspot.toml", "[source]\nkind = \"simulated\"\n[source.simulated]\nscenario = \"\(scenario)\"\n")
        let run = try ChildProcess.run(
            RepositoryPaths.executable("petspot-locationd"), ["--config", path, "--check-config"])
        #expect(run.status == 1, "\(name): \(run.stdout)")
        #expect(run.stderr.contains("source.simulated.scenario"), "\(name): \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("item22: a good scenario passes --check-config")
    func item22_goodScenarioPasses() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            "petspot.toml",
            "[source]\nkind = \"simulated\"\n[source.simulated]\nscenario = \"\(RepositoryPaths.root)/config/scenarios/demo.json\"\n"
        )
        let run = try ChildProcess.run(
            RepositoryPaths.executable("petspot-locationd"), ["--config", path, "--check-config"])
        #expect(run.status == 0, "\(run.stderr)")
    }
}
