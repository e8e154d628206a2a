import Foundation
import Logging
@testable import PetSpotDaemon
@testable import PetSpotDaemonApp
import PetSpotJSON
import PetSpotLocation
import PetSpotPolicy
import PetSpotProtocol
import Testing
import TestSupport

/// Hardening item 24: everything that changes who may see the location is audited.
@Suite struct PolicyAuditTests {
    static let alice = PolicyEngineTests.alice
    static let root = PolicyEngineTests.root

    static func engine(_ policy: Policy, _ directory: TemporaryDirectory) -> (PolicyEngine, String) {
        let path = directory.file("audit.jsonl")
        let audit = AuditLog(path: path, maxBytes: 1 << 20, logger: Logger(label: "test"))
        return (
            PolicyEngine(policy: policy, stateDirectory: directory.path, audit: audit, logger: Logger(label: "test")),
            path
        )
    }

    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The reload's diff lives with the reloader (``ConfigurationReloader/putInForce(_:engine:audit:)``),
    /// which judges the recent clients with the engine's grant before and after.
    @Test func item24_aReloadRecordsWhatChangedAndWhoseStatusMoved() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("audit.jsonl")
        let audit = AuditLog(path: path, maxBytes: 1 << 20, logger: Logger(label: "test"))
        let engine = PolicyEngine(
            policy: Policy(defaultStatus: .denied, rules: [PolicyRule(user: "alice", status: .authorized)]),
            stateDirectory: directory.path, audit: audit, logger: Logger(label: "test"))
        #expect(engine.grant(for: Self.alice, connection: ConnectionID(1)).state.status == .authorized)
        await ConfigurationReloader.putInForce(
            Policy(defaultStatus: .denied, rules: [PolicyRule(user: "bob", status: .authorized)]), engine: engine,
            audit: audit)
        let lines = Self.lines(path)
        let reloaded = try #require(lines.first { $0.contains(#""method":"policy.reloaded""#) })
        #expect(reloaded.contains("changed at 0"))
        let moved = try #require(lines.first { $0.contains(#""method":"policy.statusChanged""#) })
        #expect(moved.contains(#""uid":1000"#) && moved.contains(#""status":"denied""#))
        #expect(moved.contains("was authorized"))
        // The same policy again changes nothing, and records nothing.
        await ConfigurationReloader.putInForce(
            Policy(defaultStatus: .denied, rules: [PolicyRule(user: "bob", status: .authorized)]), engine: engine,
            audit: audit)
        #expect(Self.lines(path).count == lines.count)
        #expect(engine.grant(for: Self.alice, connection: ConnectionID(1)).state.status == .denied)
    }

    /// A reload reads the recent clients' states before and after in the
    /// same step as the swap: a decision another connection takes while the
    /// reload runs is the decision's, never recorded as the reload's. The
    /// two policies here judge every client alike, so no reload may record a
    /// `policy.statusChanged`, however the decisions interleave.
    @Test func aDecisionTakenDuringAReloadIsNotCountedAsTheReloads() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let admin = PrincipalSet(users: ["root"])
        let policies = [
            Policy(prompt: .allow, promptTimeout: .seconds(30), admin: admin),
            Policy(prompt: .allow, promptTimeout: .seconds(31), admin: admin),
        ]
        let path = directory.file("audit.jsonl")
        let audit = AuditLog(path: path, maxBytes: 1 << 22, logger: Logger(label: "test"))
        let engine = PolicyEngine(
            policy: policies[0], stateDirectory: directory.path, audit: audit, logger: Logger(label: "test"))
        for round in 0..<200 {
            _ = engine.grant(for: Self.alice, connection: ConnectionID(1))
            async let reloaded: Void = ConfigurationReloader.putInForce(
                policies[(round + 1) % 2], engine: engine, audit: audit)
            async let decided = engine.request(for: Self.alice, connection: ConnectionID(1), accuracy: .full)
            _ = await reloaded
            #expect(try await decided.status == .authorized)
            try await engine.reset(uid: Self.alice.uid, by: Self.root)
        }
        let lines = Self.lines(path)
        #expect(lines.filter { $0.contains(#""method":"policy.reloaded""#) }.count == 200)
        #expect(!lines.contains { $0.contains(#""method":"policy.statusChanged""#) })
    }

    @Test func item24_agentRegistrationReplacementAndAllowOnceEndAreRecorded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (engine, path) = Self.engine(Policy(prompt: .agent, promptTimeout: .seconds(30)), directory)
        let first = FakeAgent()
        let second = FakeAgent()
        try await engine.registerAgent(Self.root, connection: ConnectionID(1), send: first.send)
        try await engine.registerAgent(Self.root, connection: ConnectionID(2), send: second.send)
        async let state = engine.request(for: Self.alice, connection: ConnectionID(3), accuracy: .full)
        let prompt = try #require(await second.nextPrompt())
        await engine.received(
            RPCResponse(id: prompt["id"] ?? .null, outcome: .success(["decision": "allowOnce"])),
            connection: ConnectionID(2))
        #expect(try await state.status == .authorized)
        await engine.connectionClosed(ConnectionID(3))
        let lines = Self.lines(path)
        #expect(lines.filter { $0.contains(#""method":"agent.register""#) }.count == 2)
        #expect(lines.contains { $0.contains(#""method":"agent.replaced""#) })
        #expect(
            lines.contains { $0.contains(#""method":"authorization.allowOnceEnded""#) && $0.contains(#""uid":1000"#) })
    }

    /// Items 3 and 5 (found by the soak): a flood of requests on one
    /// connection answered "allow once" is one decision and one synced audit
    /// record per connection, not one per request.
    @Test func item03_anAllowOnceAnswerIsRecordedOncePerConnection() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (engine, path) = Self.engine(Policy(prompt: .agent, promptTimeout: .seconds(30)), directory)
        let agent = FakeAgent()
        try await engine.registerAgent(Self.root, connection: ConnectionID(1), send: agent.send)
        let states = Task {
            try await withThrowingTaskGroup(of: AuthorizationStatus.self) { group in
                for index in 0..<30 {
                    group.addTask {
                        try await engine.request(
                            for: Self.alice, connection: ConnectionID(2 + UInt64(index % 2)), accuracy: .full
                        ).status
                    }
                }
                return try await group.reduce(into: [AuthorizationStatus]()) { $0.append($1) }
            }
        }
        let prompt = try #require(await agent.nextPrompt())
        // Every request waits on the one prompt before it is answered.
        while await engine.openPromptCount == 1, await engine.promptWaiterCount < 30 { await Task.yield() }
        await engine.received(
            RPCResponse(id: prompt["id"] ?? .null, outcome: .success(["decision": "allowOnce"])),
            connection: ConnectionID(1))
        let answers = try await states.value
        #expect(answers.count == 30 && answers.allSatisfy { $0 == .authorized })
        let decisions = Self.lines(path).filter {
            $0.contains(#""method":"authorization.request""#) && $0.contains(#""decidedBy":"allowOnce""#)
        }
        #expect(decisions.count == 2, "\(decisions.count) records")
    }
}
