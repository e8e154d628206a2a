import PetSpotDaemon
import Testing

/// Hardening item 2: a uid's share of `max_clients`, and the slots kept for prompt agents.
@Suite struct ClientRegistryTests {
    @Test func item02_aUidIsHeldToItsShare() {
        let registry = ClientRegistry(capacity: 16, perUid: 4, reserved: 1)
        for _ in 0..<4 { #expect((try? registry.admit(uid: 1000).get()) != nil) }
        #expect(registry.admit(uid: 1000) == .failure(.uidShare(4)))
        #expect((try? registry.admit(uid: 1001).get()) != nil)
        registry.release(uid: 1000)
        #expect((try? registry.admit(uid: 1000).get()) != nil)
    }

    @Test func item02_reservedSlotsAreForPromptAgentsOnly() {
        let registry = ClientRegistry(capacity: 4, perUid: 4, reserved: 1)
        for uid in 1...3 { #expect((try? registry.admit(uid: UInt32(uid)).get()) != nil) }
        #expect(registry.admit(uid: 9) == .failure(.full))
        #expect((try? registry.admit(uid: 0, agentCandidate: true).get()) != nil)
        #expect(registry.admit(uid: 0, agentCandidate: true) == .failure(.full))
        #expect(registry.clients == 4)
    }
}
