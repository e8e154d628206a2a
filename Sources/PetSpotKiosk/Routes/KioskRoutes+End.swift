import FoundationEssentials
import Hummingbird
import PetSpotKioskConfiguration
import PetSpotReport

/// The end of a visit (thanks, cancel) and the idle reset.
extension KioskRoutes {
    // MARK: The end of a visit

    func thanksPage(_ context: KioskRequestContext) async -> Response {
        guard let visit = context.visit, let reference = visit.submittedReference else { return redirect("/") }
        return pages.response(builder.thanks(visit, reference: reference))
    }

    /// Ends the visit (deleting its draft at once); the welcome page is the next person's, in the station's language.
    func cancel(_ context: KioskRequestContext) async -> Response {
        guard let visit = context.visit else { return redirect("/") }
        store.end(visit.id, reason: "cancelled")
        var response = redirect("/")
        response.setCookie(VisitMiddleware.clearingCookie)
        return response
    }

    // MARK: Idle reset

    func activity(_ context: KioskRequestContext) async -> Response {
        guard let id = context.visit?.id, store.touch(id) else { return Response(status: .gone) }
        return Response(status: .noContent)
    }

    func stillTherePage(_ context: KioskRequestContext) async -> Response {
        guard let visit = context.visit, visit.hasContent, let remaining = store.remaining(visit.id) else {
            return redirect("/")
        }
        return pages.response(builder.stillThere(visit, remaining: remaining))
    }

    func stillHere(_ context: KioskRequestContext) async -> Response {
        guard let id = context.visit?.id else { return redirect("/") }
        let visit = store.update(id) { $0 }
        return redirect(visit.map(Self.path(of:)) ?? "/")
    }
}
