import FoundationEssentials
import Hummingbird
import Logging
import PetSpotKioskConfiguration
import PetSpotLocation
import PetSpotPOSIX
import PetSpotReport

/// Step 2: the pet's details and the GPS button.
extension KioskRoutes {
    func detailsPage(_ request: Request, _ context: KioskRequestContext) async -> Response {
        guard let id = context.visit?.id, context.visit?.flow.step == .details else {
            return await redirectToStep(context)
        }
        let alert = request.uri.queryParameters.get("alert")
        store.update(id) { visit in
            guard case .permissionAlert = visit.gps else { return }
            switch alert {
            case "settings": visit.gpsSettingsShown = true
            case "open": break
            default: visit.gps = nil  // Cancel
            }
        }
        let today = dependencies.today()
        return await stepPage(context, step: .details) { builder.details($0, remaining: $1, today: today) }
    }

    func postDetails(_ request: Request, _ context: KioskRequestContext) async -> Response {
        await stepPost(context, step: .details, apply: Self.applyDetails) { id, form in
            guard form["action"] == "gps" else {
                let today = dependencies.today()
                let moved = store.update(id) { visit in
                    let errors = visit.flow.continue(today: today)
                    if !errors.isEmpty { visit.notice = Notice(toast: "", errors: errors) }
                    return visit
                }
                return redirect(moved.map(Self.path(of:)) ?? "/")
            }
            return await useGPS(id, request, context)
        }
    }

    /// "Use this station's location": one ``GPSFillAction`` (one `location.get`), its outcome kept in the
    /// visit as it is and rendered (the page, or JSON for the script) by ``PageBuilder/gps(_:settings:_:)``.
    func useGPS(_ id: String, _ request: Request, _ context: KioskRequestContext) async -> Response {
        let now = dependencies.clock.now()
        let allowed = store.update(id) { $0.gpsTaps.start(at: now) }
        guard allowed == true else { return await gpsBusy(request, context) }
        let outcome = await GPSFillAction(
            service: dependencies.location, request: LocationRequest(timeout: dependencies.gpsTimeout)
        ).perform()
        let language = store.update(id) { visit in
            visit.gpsTaps.finish()
            visit.flow.details.description.apply(outcome)
            visit.gps = outcome
            visit.gpsSettingsShown = false
            return visit.language
        }
        if case .permissionAlert(let permission) = outcome { noteRefusal(permission) }
        if (request.headers[.accept] ?? "").contains("application/json") {
            return GPSAnswer(PageBuilder.gps(outcome, KioskStrings.of(language ?? defaultLanguage))).response()
        }
        if case .permissionAlert = outcome { return redirect("/report/details?alert=open") }
        return redirect("/report/details#location")
    }

    /// A GPS tap over the visit's budget (``GPSTapBudget``): the daemon is
    /// not asked; the visitor reads "please wait" and may tap again shortly.
    func gpsBusy(_ request: Request, _ context: KioskRequestContext) async -> Response {
        let t = KioskStrings.of(context.visit?.language ?? defaultLanguage)
        let busy = t.translate(GPSFailure(.tooManyClients).message)
        if (request.headers[.accept] ?? "").contains("application/json") {
            return GPSAnswer(busy: busy).response()
        }
        if let id = context.visit?.id { store.update(id) { $0.notice = Notice(toast: busy) } }
        return redirect("/report/details#location")
    }

    /// Logs a refused GPS button with what the administrator needs (the
    /// account, what decided it, what to do) and keeps it for `/admin/status`:
    /// the visitor's page only says to type the coordinates or ask staff.
    func noteRefusal(_ permission: PermissionAlert) {
        let refusal = LocationRefusal(permission)
        refusals.record(refusal)
        logger.warning("GPS button refused: \(refusal.summary); to allow it, \(refusal.remedy)")
    }

    /// Puts the posted step 2 fields into the visit (no validation; Back keeps them too).
    static func applyDetails(_ form: SubmittedForm, to visit: inout Visit) {
        let previous = visit.flow.details.description
        visit.dateText = String(form["date"].trimmingWhitespace().prefix(10))
        var description = visit.flow.details.description
        description.date = CalendarDate(iso: visit.dateText)
        description.species = Species(rawValue: form["species"])
        description.race = String(form["race"].prefix(200))
        description.gender = Gender(rawValue: form["gender"])
        description.ageText = String(form["age"].prefix(10))
        description.latitudeText = String(form["latitude"].prefix(40))
        description.longitudeText = String(form["longitude"].prefix(40))
        // A hard cap, no error (seed 004).
        description.descriptionText = String(form["description"].prefix(FieldMessages.maximumTextLength))
        visit.flow.details.description = description
        visit.flow.details.chipNumber = String(form["chipNumber"].prefix(64))
        visit.flow.details.petName = String(form["petName"].prefix(200))
        if case .filled = visit.gps,
            previous.latitudeText != description.latitudeText || previous.longitudeText != description.longitudeText
        {
            visit.gps = nil  // typed over: no longer the station's position
        }
    }
}
