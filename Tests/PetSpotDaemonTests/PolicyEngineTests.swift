import Foundation
import Logging
@testable import PetSpotDaemon
import PetSpotJSON
import PetSpotLocation
import PetSpotPolicy
import PetSpotProtocol
import Testing
import TestSupport

/// A prompt agent in the test: the messages the daemon sends it, as a stream.
struct FakeAgent {
    let messages: AsyncStream<JSONValue>
    let send: MessageSink

    init() {
        let (messages, continuation) = AsyncStream<JSONValue>.makeStream()
        self.messages = messages
        self.send = { message in continuation.yield(message) }
    }

    /// The next `agent.prompt` request.
    func nextPrompt() async -> JSONValue? {
        for await message in messages where message["method"] == .string(RPCMethod.agentPrompt) { return message }
        return nil
    }
}

@Suite struct PolicyEngineTests {
    static let root = ClientIdentity(uid: 0, gid: 0, pid: 10, user: "root", groups: ["root"])
    static let alice = ClientIdentity(uid: 1000, gid: 1000, pid: 20, user: "alice", groups: ["alice"])

    static func engine(_ policy: Policy, _ directory: TemporaryDirectory) -> PolicyEngine {
        PolicyEngine(policy: policy, stateDirectory: directory.path, logger: Logger(label: "test"))
    }

    @Test func promptAllowAndDenyDecideAtOnceAndAreRemembered() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = Self.engine(Policy(prompt: .allow), directory)
        let state = try await engine.request(for: Self.alice, connection: ConnectionID(1), accuracy: .reduced)
        #expect(state.status == .authorized && state.accuracy == .reduced && state.decidedBy == .decision)
        let again = Self.engine(Policy(prompt: .deny), directory)
        #expect(again.grant(for: Self.alice, connection: ConnectionID(2)).state.accuracy == .reduced)
        #expect(try await again.request(for: Self.root, connection: ConnectionID(3), accuracy: .full).status == .denied)
    }

    @Test func withoutAnAgentThePromptIsUnavailableAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = Self.engine(Policy(prompt: .agent, promptTimeout: .seconds(30)), directory)
        let started = ContinuousClock.now
        await #expect(throws: LocationError.promptUnavailable) {
            try await engine.request(for: Self.alice, connection: ConnectionID(1), accuracy: .full)
        }
        #expect(ContinuousClock.now - started < .seconds(20), "not at once: as if it waited for the 30 s limit")
        #expect(engine.grant(for: Self.alice, connection: ConnectionID(1)).state.status == .notDetermined)
    }

    @Test func aSilentAgentTimesOutAndTheClientStaysNotDetermined() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = Self.engine(Policy(prompt: .agent, promptTimeout: .milliseconds(300)), directory)
        let agent = FakeAgent()
        try await engine.registerAgent(Self.root, connection: ConnectionID(9), send: agent.send)
        let started = ContinuousClock.now
        await #expect(throws: LocationError.promptUnavailable) {
            try await engine.request(for: Self.alice, connection: ConnectionID(1), accuracy: .full)
        }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(20), "far below the 30 s default")
        #expect(engine.grant(for: Self.alice, connection: ConnectionID(1)).state.status == .notDetermined)
    }

    @Test(arguments: [
        ("allow", AuthorizationStatus.authorized, false), ("deny", .denied, false), ("allowOnce", .authorized, true),
    ])
    func theAgentDecides(_ decision: String, _ expected: AuthorizationStatus, _ once: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = Self.engine(Policy(prompt: .agent, promptTimeout: .seconds(10)), directory)
        let agent = FakeAgent()
        try await engine.registerAgent(Self.root, connection: ConnectionID(9), send: agent.send)
        async let state = engine.request(for: Self.alice, connection: ConnectionID(1), accuracy: .full)
        let prompt = try #require(await agent.nextPrompt())
        #expect(prompt["params"]?["client"]?["uid"] == .number(1000))
        #expect(prompt["params"]?["accuracy"] == "full")
        let id = try #require(prompt["id"])
        // An answer from another connection does not count.
        await engine.received(RPCResponse(id: id, outcome: .success(["decision": "deny"])), connection: ConnectionID(5))
        await engine.received(
            RPCResponse(id: id, outcome: .success(["decision": .string(decision), "accuracy": "reduced"])),
            connection: ConnectionID(9))
        let decided = try await state
        #expect(decided.status == expected)
        if expected == .authorized { #expect(decided.accuracy == .reduced) }
        #expect(
            engine.grant(for: Self.alice, connection: ConnectionID(2)).state.status
                == (once ? .notDetermined : expected))
        // The decision holds on the deciding connection until it closes;
        // only the end of an allow-once grant changes it then.
        #expect(engine.grant(for: Self.alice, connection: ConnectionID(1)).state.status == expected)
        await engine.connectionClosed(ConnectionID(1))
        #expect(
            engine.grant(for: Self.alice, connection: ConnectionID(1)).state.status
                == (once ? .notDetermined : expected))
    }

    @Test func theAgentLeavingEndsItsPendingPrompts() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = Self.engine(Policy(prompt: .agent, promptTimeout: .seconds(30)), directory)
        let agent = FakeAgent()
        try await engine.registerAgent(Self.root, connection: ConnectionID(9), send: agent.send)
        async let state = engine.request(for: Self.alice, connection: ConnectionID(1), accuracy: .full)
        _ = await agent.nextPrompt()
        await engine.connectionClosed(ConnectionID(9))
        do {
            _ = try await state
            Issue.record("the request was decided without an agent")
        } catch {
            #expect(error as? LocationError == .promptUnavailable)
        }
        #expect(await !engine.hasAgent)
    }

    @Test func onlyConfiguredPrincipalsMayRegisterOrReset() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = Self.engine(
            Policy(prompt: .deny, agent: PrincipalSet(groups: ["kiosk"]), admin: PrincipalSet(users: ["root"])),
            directory)
        await #expect(throws: LocationError.forbidden) {
            try await engine.registerAgent(Self.alice, connection: ConnectionID(1), send: FakeAgent().send)
        }
        var kiosk = Self.alice
        kiosk.groups = ["alice", "kiosk"]
        try await engine.registerAgent(kiosk, connection: ConnectionID(1), send: FakeAgent().send)
        _ = try await engine.request(for: Self.alice, connection: ConnectionID(2), accuracy: .full)
        await #expect(throws: LocationError.forbidden) { try await engine.reset(uid: 1000, by: Self.alice) }
        try await engine.reset(uid: 1000, by: Self.root)
        #expect(engine.grant(for: Self.alice, connection: ConnectionID(2)).state.status == .notDetermined)
        // A reload that drops the agent's group drops the agent.
        await engine.update(policy: Policy(prompt: .agent))
        #expect(await !engine.hasAgent)
    }

    @Test func aNewerAgentReplacesTheOlder() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = Self.engine(Policy(prompt: .agent, promptTimeout: .seconds(10)), directory)
        let first = FakeAgent()
        let second = FakeAgent()
        try await engine.registerAgent(Self.root, connection: ConnectionID(1), send: first.send)
        try await engine.registerAgent(Self.root, connection: ConnectionID(2), send: second.send)
        var firstMessages = first.messages.makeAsyncIterator()
        #expect(await firstMessages.next()?["method"] == "agent.replaced")
        async let state = engine.request(for: Self.alice, connection: ConnectionID(3), accuracy: .full)
        let prompt = try #require(await second.nextPrompt())
        await engine.received(
            RPCResponse(id: prompt["id"]!, outcome: .success(["decision": "allow"])), connection: ConnectionID(2))
        #expect(try await state.status == .authorized)
    }

    @Test func watchersAreWokenByResetsAndReloads() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = Self.engine(Policy(prompt: .allow), directory)
        var changes = engine.authorizationChanges().makeAsyncIterator()
        _ = try await engine.request(for: Self.alice, connection: ConnectionID(1), accuracy: .full)
        try await engine.reset(uid: 1000, by: Self.root)
        #expect(await changes.next() != nil)
        #expect(engine.grant(for: Self.alice, connection: ConnectionID(1)).state.status == .notDetermined)
        await engine.update(policy: Policy(defaultStatus: .denied))
        #expect(await changes.next() != nil)
        #expect(engine.grant(for: Self.alice, connection: ConnectionID(1)).state.status == .denied)
    }

    @Test func endedWatchersAreForgottenAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = Self.engine(Policy(prompt: .allow), directory)
        var live = engine.authorizationChanges().makeAsyncIterator()
        // Streams dropped at once, as ended watchers drop theirs.
        for _ in 0..<200 { _ = engine.authorizationChanges() }
        #expect(engine.authorizationObserverCount == 1)
        try await engine.reset(uid: 1000, by: Self.root)
        #expect(await live.next() != nil)
    }

    @Test func reducedAccuracyFollowsTheConfiguredGrid() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = Self.engine(Policy(prompt: .allow, reducedAccuracyMeters: 5000), directory)
        let fix = LocationFix(
            coordinate: Coordinate(latitude: 52.2301, longitude: 21.0101), horizontalAccuracy: 5, mode: .twoD,
            source: .simulated)
        let reduced = engine.presentation(for: .reduced).apply(fix)
        #expect(reduced == ReducedAccuracy.reduce(fix, cellMeters: 5000))
        #expect(engine.presentation(for: .full).apply(fix) == fix)
        // The grant carries the same presentation: the grid of the policy in force.
        _ = try await engine.request(for: Self.alice, connection: ConnectionID(1), accuracy: .reduced)
        #expect(engine.grant(for: Self.alice, connection: ConnectionID(1)).presentation?.apply(fix) == reduced)
    }
}
