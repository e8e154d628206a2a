import PetSpotDaemon
import Testing

/// Hardening item 2: a uid's share of `max_clients`, and the slots kept for prompt agents.
@Suite struct ClientRegistryTests {
    @Test func item02_aUidIsHeldToItsShare() async {
        let registry = ClientRegistry(capacity: 16, perUid: 4, reserved: 1)
        for _ in 0..<4 { #expect((try? await registry.admit(uid: 1000).get()) != nil) }
        #expect(await registry.admit(uid: 1000) == .failure(.uidShare(4)))
        #expect((try? await registry.admit(uid: 1001).get()) != nil)
        await registry.release(uid: 1000)
        #expect((try? await registry.admit(uid: 1000).get()) != nil)
    }

    @Test func item02_reservedSlotsAreForPromptAgentsOnly() async {
        let registry = ClientRegistry(capacity: 4, perUid: 4, reserved: 1)
        for uid in 1...3 { #expect((try? await registry.admit(uid: UInt32(uid)).get()) != nil) }
        #expect(await registry.admit(uid: 9) == .failure(.full))
        #expect((try? await registry.admit(uid: 0, agentCandidate: true).get()) != nil)
        #expect(await registry.admit(uid: 0, agentCandidate: true) == .failure(.full))
        #expect(await registry.clients == 4)
    }
}
