import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import PetSpotKiosk
import PetSpotOutbox
import Testing

/// `/admin/status`: the outbox in figures, loopback only, no personal data.
@Suite("Kiosk admin status")
struct AdminStatusTests {
    @Test(arguments: [
        ("127.0.0.1", true), ("127.200.3.4", true), ("::1", true), ("::ffff:127.0.0.1", true),
        ("192.168.1.5", false), ("10.0.0.1", false), ("128.0.0.1", false), ("2001:db8::1", false),
        ("::ffff:10.0.0.1", false),
    ])
    func onlyLoopbackPeersMaySeeIt(address: String, allowed: Bool) throws {
        #expect(AdminAccess.allows(try SocketAddress(ipAddress: address, port: 50_000), host: "127.0.0.1") == allowed)
    }

    @Test func anUnknownPeerOrAUnixSocketPeerIsRefused() throws {
        #expect(!AdminAccess.allows(nil, host: "127.0.0.1"))
        #expect(!AdminAccess.allows(try SocketAddress(unixDomainSocketPath: "/run/x.sock"), host: "localhost"))
    }

    /// DNS rebinding: a page of another site whose name now resolves to 127.0.0.1 asks with its own
    /// name in `Host`. Only the loopback names are served, with or without a port.
    @Test(arguments: [
        ("127.0.0.1", true), ("127.0.0.1:8080", true), ("localhost", true), ("LOCALHOST:80", true),
        ("[::1]", true), ("[::1]:8080", true),
        ("attacker.example", false), ("attacker.example:8080", false), ("127.0.0.1.attacker.example", false),
        ("localhost.attacker.example", false), ("127.0.0.2", false), ("127.0.0.1:", false),
        ("127.0.0.1:80a", false), ("[::1]x", false), ("", false),
    ])
    func onlyLoopbackNamesMayAskForIt(host: String, allowed: Bool) throws {
        let peer = try SocketAddress(ipAddress: "127.0.0.1", port: 50_000)
        #expect(AdminAccess.allows(peer, host: host) == allowed)
        #expect(!AdminAccess.allows(peer, host: nil))
    }

    /// In-process (no peer address at all): refused, and no visit is opened for it.
    @Test func withoutAPeerAddressTheAnswerIs403() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let answer = try await client.execute(uri: "/admin/status", method: .get)
            #expect(answer.status == .forbidden)
            #expect(answer.headers[.setCookie] == nil)
        }
        #expect(harness.store.count == 0)
    }

    /// A real report goes through the flow into a real outbox; the status page on a loopback
    /// connection counts it and shows none of what the visitor typed.
    @Test func aSubmittedReportIsCountedAndNothingPersonalIsShown() async throws {
        let outboxDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "admin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outboxDirectory) }
        let outbox = try Outbox.open(directory: outboxDirectory.path)
        defer { try? outbox.close() }
        let harness = try await KioskHarness(
            reports: outbox,
            stationStatus: {
                do { return StationStatus(outbox: .success(try await outbox.summary())) } catch {
                    return StationStatus(outbox: .failure(.init(reason: "\(error)")))
                }
            })
        try await harness.run(.live) { client in
            let before = try await client.execute(uri: "/admin/status", method: .get)
            #expect(before.status == .ok)
            #expect(before.html.contains("id=\"admin.pending\">0<"))
            let browser = Browser(client)
            try await KioskFlowTests.toDetails(browser)
            try await browser.post("/report/details", [("action", "continue")] + KioskFlowTests.validDetails)
            let submitted = try await browser.post(
                "/report/contact",
                [
                    ("action", "submit"), ("phone", "+48 600 123 456"), ("email", "anna@example.com"),
                    ("caregiverPhone", "501502503"), ("address", "Ogrodowa 7"),
                ])
            #expect(submitted.headers[.location] == "/report/thanks")

            let page = try await client.execute(uri: "/admin/status", method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.setCookie] == nil)
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(page.html.contains("id=\"admin.pending\">1<"))
            #expect(page.html.contains("id=\"admin.rejected\">0<"))
            for personal in [
                "600 123 456", "anna@example.com", "501502503", "Ogrodowa", "Rex", "Beagle", "123456789012345",
                "52.2297",
            ] {
                #expect(!page.html.contains(personal), "the status page shows \(personal)")
            }
            let json = try await client.execute(
                uri: "/admin/status", method: .get, headers: [.accept: "application/json"])
            #expect(json.headers[.contentType] == "application/json")
            let summary = try JSONDecoder.iso8601.decode(OutboxSummary.self, from: Data(String(buffer: json.body).utf8))
            #expect(summary.pending == 1 && summary.delivered == 0)
        }
    }

    @Test func anUnreadableOutboxIsSaidSo() async throws {
        let harness = try await KioskHarness(stationStatus: {
            StationStatus(outbox: .failure(.init(reason: "disk on fire")))
        })
        try await harness.run(.live) { client in
            let page = try await client.execute(uri: "/admin/status", method: .get)
            #expect(page.status == .ok)
            #expect(page.html.contains("id=\"admin.problem\">disk on fire<"))
            let json = try await client.execute(
                uri: "/admin/status", method: .get, headers: [.accept: "application/json"])
            #expect(json.status == .serviceUnavailable)
        }
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
