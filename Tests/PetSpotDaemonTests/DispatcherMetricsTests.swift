import Logging
import MetricsTestKit
import NIOPosix
import PetSpotDaemon
import PetSpotFixHub
import PetSpotJSON
import PetSpotLocation
import PetSpotSimulatedSource
import PetSpotProtocol
import Testing

/// The dispatcher counts requests by method and error answers by code.
@Suite("Dispatcher metrics")
struct DispatcherMetricsTests {
    @Test("requests are counted by method, errors by code")
    func countsRequestsAndErrors() async throws {
        let metrics = TestMetrics()
        let hub = LiveFixHub(kind: .simulated)
        hub.receive(.fix(ScriptedFix(latitude: 1, longitude: 2, horizontalAccuracy: 5).makeFix()))
        let dispatcher = Dispatcher(
            hub: hub, policy: OpenAccess(), registry: ClientRegistry(capacity: 4), logger: Logger(label: "test"),
            fanOut: WatchFanOut(group: MultiThreadedEventLoopGroup.singleton, hub: hub), metrics: metrics)
        let session = ClientSession(id: ConnectionID(1), identity: ClientIdentity(uid: 1, gid: 1, pid: 1))
        func line(_ text: String) async -> JSONValue? {
            let reply = await dispatcher.reply(to: Array(text.utf8), session: session)
            return reply.text.flatMap { try? JSONValue.parse(bytes: Array($0.utf8).dropLast()) }
        }
        _ = await line(#"{"jsonrpc":"2.0","id":1,"method":"location.get"}"#)
        _ = await line(#"{"jsonrpc":"2.0","id":2,"method":"location.get","params":{"timeout":301}}"#)
        _ = await line(#"{"jsonrpc":"2.0","id":3,"method":"no.such"}"#)
        _ = await line("not json")
        func requests(_ method: String, _ outcome: String) throws -> Int64 {
            try metrics.expectCounter("petspot_requests_total", [("method", method), ("outcome", outcome)]).totalValue
        }
        #expect(try requests("location.get", "ok") == 1)
        #expect(try requests("location.get", "error") == 1)
        #expect(try requests("unknown", "error") == 1)
        #expect(try metrics.expectCounter("petspot_errors_total", [("code", "-32602")]).totalValue == 1)
        #expect(try metrics.expectCounter("petspot_errors_total", [("code", "-32601")]).totalValue == 1)
        #expect(try metrics.expectCounter("petspot_errors_total", [("code", "-32700")]).totalValue == 1)
        // The get that was answered was judged once (OpenAccess authorizes); the invalid one never.
        #expect(try metrics.expectCounter("petspot_authorizations_total", [("status", "authorized")]).totalValue == 1)
        #expect(metrics.counterTotal(label: "petspot_errors_total") == 3)
        // The same counts in daemon.status (a request is counted once answered: not the status request itself).
        let reply = await line(#"{"jsonrpc":"2.0","id":4,"method":"daemon.status"}"#)
        let counters = try #require(reply?["result"]?["counters"])
        #expect(counters["requests"]?["location.get"] == 2)
        #expect(counters["requests"]?["unknown"] == 1)
        #expect(counters["requests"]?["daemon.status"] == 0)
        #expect(counters["requests"]?["location.watch"] == 0)
        #expect(counters["errors"]?["-32602"] == 1)
        #expect(counters["errors"]?["-32601"] == 1)
        #expect(counters["errors"]?["-32700"] == 1)
        #expect(counters["errors"]?["-32001"] == 0)
    }
}
