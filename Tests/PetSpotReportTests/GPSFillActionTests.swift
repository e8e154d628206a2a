import Glibc
import PetSpotFixHub
import PetSpotLocation
import PetSpotLocationMock
import PetSpotSimulatedSource
import PetSpotReport
import Testing

/// A service whose every answer is fixed: for failures the mock cannot produce.
private struct StubService: LocationService {
    var state: Result<AuthorizationState, LocationError>
    var fix: Result<LocationFix, LocationError>

    func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix { try fix.get() }
    func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> {
        AsyncThrowingStream { $0.finish() }
    }
    func authorizationStatus() async throws(LocationError) -> AuthorizationState { try state.get() }
    func requestAuthorization(accuracy: AccuracyAuthorization) async throws(LocationError) -> AuthorizationState {
        try state.get()
    }
}

/// Counts the daemon's methods a GPS tap calls, answering through `inner`.
private actor CallLog {
    var calls: [String] = []
    func note(_ method: String) { calls.append(method) }
}

private struct CountingService: LocationService {
    let inner: any LocationService
    let log = CallLog()

    func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix {
        await log.note("location.get")
        return try await inner.location(request)
    }
    func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> { inner.updates(options) }
    func authorizationStatus() async throws(LocationError) -> AuthorizationState {
        await log.note("authorization.status")
        return try await inner.authorizationStatus()
    }
    func requestAuthorization(accuracy: AccuracyAuthorization) async throws(LocationError) -> AuthorizationState {
        await log.note("authorization.request")
        return try await inner.requestAuthorization(accuracy: accuracy)
    }
}

@Suite("GPS fill action")
struct GPSFillActionTests {
    static let warsaw = ScriptedFix(latitude: 52.2297, longitude: 21.0122, horizontalAccuracy: 5)
    /// Short, so "no fix" ends quickly; the hub's own deadline ends the wait.
    static let shortRequest = LocationRequest(timeout: .milliseconds(200))

    private func mock(
        _ status: AuthorizationStatus, accuracy: AccuracyAuthorization? = nil,
        prompt: MockLocationService.PromptAnswer = .allow(.full), withFix: Bool = true
    ) async -> MockLocationService {
        let mock = MockLocationService(
            authorization: AuthorizationState(status: status, accuracy: accuracy, decidedBy: .default),
            promptAnswer: prompt)
        if withFix { await mock.send(.fix(Self.warsaw.makeFix())) }
        return mock
    }

    @Test func authorizedFillsBothFieldsWithSixDecimals() async {
        let service = await mock(.authorized)
        let outcome = await GPSFillAction(service: service).perform()
        #expect(
            outcome
                == .filled(
                    latitude: "52.229700", longitude: "21.012200",
                    coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122), accuracy: .full,
                    horizontalAccuracy: Self.warsaw.makeFix().horizontalAccuracy))
        var form = DescriptionForm(latitudeText: "1", longitudeText: "2")
        form.apply(outcome)
        #expect(form.latitudeText == "52.229700" && form.longitudeText == "21.012200")
        #expect(await service.prompts == 0)
    }

    /// One tap, one `location.get` once decided; `authorization.request` only after a `notDetermined` answer.
    @Test(arguments: [
        (AuthorizationStatus.authorized, ["location.get"]),
        (.denied, ["location.get"]),
        (.restricted, ["location.get"]),
        (.notDetermined, ["location.get", "authorization.request", "location.get"]),
    ])
    func daemonCallsOfOneTap(status: AuthorizationStatus, calls: [String]) async {
        let service = CountingService(inner: await mock(status, prompt: .allow(.full)))
        let outcome = await GPSFillAction(service: service).perform()
        #expect(await service.log.calls == calls)
        #expect(outcome.isFilled == (status == .authorized || status == .notDetermined))
    }

    @Test func aSecondTapOfAnUndecidedStationIsOneGet() async {
        let service = CountingService(inner: await mock(.notDetermined, prompt: .allow(.full)))
        _ = await GPSFillAction(service: service).perform()
        #expect(await GPSFillAction(service: service).perform().isFilled)
        #expect(await service.log.calls == ["location.get", "authorization.request", "location.get", "location.get"])
    }

    @Test func authorizedReducedIsMarked() async {
        let outcome = await GPSFillAction(service: await mock(.authorized, accuracy: .reduced)).perform()
        guard case .filled(_, _, _, let accuracy, _) = outcome else {
            Issue.record("expected filled, got \(outcome)")
            return
        }
        #expect(accuracy == .reduced)
    }

    @Test func notDeterminedRequestsThenLocates() async {
        let service = await mock(.notDetermined, prompt: .allow(.full))
        let outcome = await GPSFillAction(service: service).perform()
        #expect(outcome.isFilled)
        #expect(await service.prompts == 1)
        #expect(await service.authorizationRequests == 1)
    }

    @Test func notDeterminedDeniedAtThePromptShowsTheAlert() async {
        let service = await mock(.notDetermined, prompt: .deny)
        let outcome = await GPSFillAction(service: service).perform()
        guard case .permissionAlert(let alert) = outcome else {
            Issue.record("expected an alert, got \(outcome)")
            return
        }
        #expect(alert.status == .denied)
        #expect(await service.prompts == 1)
    }

    @Test func notDeterminedWithNoAgentIsAMessage() async {
        let service = await mock(.notDetermined, prompt: .unavailable)
        let outcome = await GPSFillAction(service: service).perform()
        #expect(outcome == .failed(GPSFailure(.promptUnavailable)))
    }

    @Test(arguments: [AuthorizationStatus.denied, .restricted])
    func refusedShowsAlertWithCancelAndSettingsWithoutPrompting(status: AuthorizationStatus) async {
        let service = await mock(status)
        let outcome = await GPSFillAction(service: service).perform()
        guard case .permissionAlert(let alert) = outcome else {
            Issue.record("expected an alert, got \(outcome)")
            return
        }
        #expect(alert.status == status)
        #expect(alert.cancelTitle == "Cancel")
        #expect(alert.settingsTitle == "Settings")
        #expect(await service.prompts == 0)
    }

    @Test func kioskAlertSaysWhomToAskFromTheDaemonsAnswer() async {
        // Undecided at the tap; the request's answer names the account and what decided it.
        let client = ClientIdentity(uid: 1001, gid: 1001, pid: 42, user: "kiosk", unit: "petspot-kiosk.service")
        let service = StubService(
            state: .success(AuthorizationState(status: .restricted, decidedBy: .rule, client: client)),
            fix: .failure(.notDetermined))
        guard case .permissionAlert(let alert) = await GPSFillAction(service: service).perform() else {
            Issue.record("expected an alert")
            return
        }
        #expect(alert.client == client)
        #expect(alert.whomToAsk.contains("user kiosk"))
        #expect(alert.whomToAsk.contains("uid 1001"))
        #expect(alert.whomToAsk.contains("petspot-kiosk.service"))
        #expect(alert.whomToAsk.contains("[[policy.rules]]"))
    }

    @Test func aRememberedDenialNamesTheResetCommand() async {
        let client = ClientIdentity(uid: 1001, gid: 1001, pid: 42, user: "petspot-kiosk")
        let service = StubService(
            state: .success(AuthorizationState(status: .denied, decidedBy: .decision, client: client)),
            fix: .failure(.notDetermined))
        guard case .permissionAlert(let alert) = await GPSFillAction(service: service).perform() else {
            Issue.record("expected an alert")
            return
        }
        #expect(alert.decidedBy == .decision)
        #expect(alert.whomToAsk.contains("sudo petspot-location authorization reset --user petspot-kiosk"))
        #expect(!alert.remedy.contains("[[policy.rules]]"))
    }

    /// `location.get`'s refusal says neither who nor why: the account is this process's (what the
    /// daemon reads from the socket), and the hint gives both ways to allow it.
    @Test func aRefusalReadFromLocationGetNamesThisProcessAndBothRemedies() async {
        let service = StubService(state: .failure(.internalError("not asked")), fix: .failure(.denied))
        guard case .permissionAlert(let alert) = await GPSFillAction(service: service).perform() else {
            Issue.record("expected an alert")
            return
        }
        #expect(alert.client == nil && alert.decidedBy == nil)
        #expect(alert.uid == getuid())
        #expect(alert.remedy.contains(PermissionAlert.resetCommand(user: alert.user)))
        #expect(alert.remedy.contains("[[policy.rules]] entry for user \(alert.user)"))
        #expect(alert.whomToAsk.contains("uid \(getuid())"))
    }

    @Test func locationUnknownLeavesFieldsUnchanged() async {
        let service = await mock(.authorized, withFix: false)
        let outcome = await GPSFillAction(service: service, request: Self.shortRequest).perform()
        #expect(outcome == .failed(GPSFailure(.locationUnknown)))
        var form = DescriptionForm(latitudeText: "1,5", longitudeText: "2")
        form.apply(outcome)
        #expect(form.latitudeText == "1,5" && form.longitudeText == "2")
    }

    @Test func sourceUnavailableIsAMessage() async {
        let service = await mock(.authorized, withFix: false)
        await service.send(.disconnected(reason: "receiver unplugged"))
        let outcome = await GPSFillAction(service: service, request: Self.shortRequest).perform()
        #expect(outcome == .failed(GPSFailure(.sourceUnavailable)))
        if case .failed(let failure) = outcome {
            #expect(failure.message == "The GPS receiver is not available right now. Enter the coordinates by hand.")
        }
    }

    @Test func daemonUnreachableIsAMessage() async {
        let service = StubService(
            state: .failure(.daemonUnreachable("connect: ENOENT")), fix: .failure(.daemonUnreachable("connect: ENOENT"))
        )
        let outcome = await GPSFillAction(service: service).perform()
        guard case .failed(let failure) = outcome else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.error?.reason == "daemonUnreachable")
        #expect(failure.message == "The location service is not running. Enter the coordinates by hand.")
    }

    @Test func deniedAtTheFixIsAnAlert() async {
        let service = StubService(
            state: .success(.alwaysAuthorized), fix: .failure(.denied))
        guard case .permissionAlert(let alert) = await GPSFillAction(service: service).perform() else {
            Issue.record("expected an alert")
            return
        }
        #expect(alert.status == .denied)
    }

    @Test(arguments: [(91.0, 0.0), (0.0, -180.5), (Double.nan, 0.0)])
    func outOfRangeFixIsRefused(latitude: Double, longitude: Double) async {
        let fix = LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: longitude), mode: .twoD, source: .gpsd)
        let service = StubService(state: .success(.alwaysAuthorized), fix: .success(fix))
        #expect(await GPSFillAction(service: service).perform() == .failed(.invalidCoordinate))
    }

    @Test(arguments: [
        (52.2297, 6, "52.229700"), (-0.0000001, 6, "0.000000"), (-90, 6, "-90.000000"), (180, 4, "180.0000"),
        (21.01225, 2, "21.01"),
    ])
    func formatting(value: Double, decimals: Int, text: String) {
        #expect(GPSFillAction.format(value, decimals: decimals) == text)
    }
}
