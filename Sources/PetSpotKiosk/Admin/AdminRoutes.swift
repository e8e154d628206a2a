import FoundationEssentials
import Hummingbird
import PetSpotOutbox

/// `GET /admin/status`: the station's outbox in figures for its operator, on
/// loopback only and asked for by a loopback name (``AdminAccess``), with no personal data; and the kiosk's
/// own figures: open visits, the GPS button's refusals with the account the
/// daemon saw and what to do (``LocationRefusal``, never on a visitor's
/// page). `Accept: application/json` gets the outbox summary as JSON (for
/// monitoring).
struct AdminRoutes: Sendable {
    let pages: PageRenderer
    let status: @Sendable () async -> StationStatus
    let store: VisitStore
    let refusals: LocationRefusals
    /// The connection gate's refusals (`nil` in router tests, which have no server).
    let peers: StationPeers?

    func register(on router: Router<KioskRequestContext>) {
        router.get("/admin/status") { request, context in await statusPage(request, context) }
    }

    func statusPage(_ request: Request, _ context: KioskRequestContext) async -> Response {
        guard AdminAccess.allows(context.peerAddress, host: request.head.authority) else {
            return Response(
                status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "403 the station status is shown on this machine only\n")))
        }
        let status = await status()
        if (request.headers[.accept] ?? "").contains("application/json") {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.sortedKeys]
            switch status.outbox {
            case .success(let summary):
                let data = (try? encoder.encode(summary)) ?? Data("{}".utf8)
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: data)))
            case .failure(let problem):
                let data = (try? encoder.encode(["error": problem.reason])) ?? Data("{}".utf8)
                return Response(
                    status: .serviceUnavailable, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: data)))
            }
        }
        let view = StationStatusView(
            status, openVisits: store.count, refusals: refusals.snapshot, peers: peers?.refusals)
        let html = view.html.text
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
