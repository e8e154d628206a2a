import Foundation
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import Testing

@Suite struct RPCErrorTests {
    @Test(arguments: [
        (LocationError.notDetermined, -32001, "notDetermined"), (.denied, -32002, "denied"),
        (.restricted, -32003, "restricted"), (.locationUnknown, -32010, "locationUnknown"),
        (.sourceUnavailable, -32011, "sourceUnavailable"), (.promptUnavailable, -32012, "promptUnavailable"),
        (.forbidden, -32030, "forbidden"), (.tooManyClients, -32040, "tooManyClients"),
    ])
    func applicationErrors(error: LocationError, code: Int, reason: String) {
        let wire = RPCError(error)
        #expect(wire.code == code)
        #expect(wire.reason == reason)
        let encoded = RPCCodec.encode(wire)
        #expect(encoded["code"] == .number(Double(code)))
        #expect(encoded["data"] == ["reason": .string(reason)])
        #expect(encoded["message"] == .string(error.description))
        // And back, as a client reads it.
        #expect(RPCCodec.decodeError(encoded) == wire)
        #expect(wire.locationError == error)
    }

    @Test func protocolErrorsMapToStandardCodes() {
        #expect(RPCError(.invalidRequest("bad")).code == -32600)
        #expect(RPCError(.internalError("boom")).code == -32603)
        #expect(RPCError(.daemonUnreachable("gone")).code == -32603)
        #expect(RPCError(.invalidRequest("bad")).reason == nil)
        #expect(RPCError.invalidParams("p").locationError == .invalidRequest("Invalid params: p"))
        #expect(RPCError.internalError("x").locationError == .internalError("Internal error: x"))
    }

    @Test func malformedErrorObject() {
        #expect(RPCCodec.decodeError(["message": "no code"]).code == -32603)
    }

    /// The request fuzzer's find: a peer's error code beyond Int trapped the reader.
    @Test(arguments: [-3.2077777777777777e29, 1e300, -1e300, 4_294_967_296, -32600.5, Double.infinity])
    func errorCodeBeyondInt32IsMalformed(code: Double) {
        let error = RPCCodec.decodeError(["code": .number(code), "message": "no"])
        #expect(error.code == -32603)
        #expect(error.message.contains("malformed error object"))
    }
}

private let receivedAt = ContinuousClock.now

private func fullFix() -> LocationFix {
    LocationFix(
        coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122), altitude: 110.5, horizontalAccuracy: 8,
        verticalAccuracy: 12, speed: 1.25, course: 270, timestamp: UTCTimestamp(secondsSince1970: 1_554_638_401.5),
        mode: .threeD, source: .gpsd, receivedAt: receivedAt, accuracy: .reduced)
}

@Suite struct WireFixTests {
    @Test func fullFixHasExactlyTheContractNames() throws {
        let encoded = WireCoding.encode(fullFix(), at: receivedAt + .milliseconds(2500))
        guard case .object(let members) = encoded else {
            Issue.record("not an object")
            return
        }
        #expect(
            Set(members.keys) == [
                "latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy", "speed", "course",
                "timestamp", "mode", "source", "age", "accuracy",
            ])
        #expect(members["latitude"] == 52.2297)
        #expect(members["longitude"] == 21.0122)
        #expect(members["altitude"] == 110.5)
        #expect(members["horizontalAccuracy"] == 8)
        #expect(members["verticalAccuracy"] == 12)
        #expect(members["speed"] == 1.25)
        #expect(members["course"] == 270)
        #expect(members["timestamp"] == "2019-04-07T12:00:01.500Z")
        #expect(members["mode"] == 3)
        #expect(members["source"] == "gpsd")
        #expect(members["age"] == 2.5)
        #expect(members["accuracy"] == "reduced")
    }

    @Test func unknownValuesAreOmitted() {
        let fix = LocationFix(
            coordinate: Coordinate(latitude: 1, longitude: 2), mode: .twoD, source: .static, receivedAt: receivedAt)
        let encoded = WireCoding.encode(fix, at: receivedAt)
        guard case .object(let members) = encoded else {
            Issue.record("not an object")
            return
        }
        #expect(Set(members.keys) == ["latitude", "longitude", "mode", "source", "age", "accuracy"])
        #expect(members["age"] == 0)
        #expect(members["mode"] == 2)
        #expect(members["accuracy"] == "full")
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteValuesAreOmittedNeverNullOrNaN(bad: Double) {
        var fix = fullFix()
        fix.altitude = bad
        fix.horizontalAccuracy = bad
        fix.verticalAccuracy = bad
        fix.speed = bad
        fix.course = bad
        let encoded = WireCoding.encode(fix, at: receivedAt)
        guard case .object(let members) = encoded else {
            Issue.record("not an object")
            return
        }
        #expect(Set(members.keys) == ["latitude", "longitude", "timestamp", "mode", "source", "age", "accuracy"])
        let text = encoded.serialized()
        #expect(!text.contains("null"))
        #expect(!text.lowercased().contains("nan"))
        #expect(!text.lowercased().contains("inf"))
    }

    @Test func ageIsMeasuredAtTheGivenInstant() {
        let fix = fullFix()
        #expect(WireCoding.encode(fix, at: receivedAt + .seconds(4))["age"] == 4)
        #expect(WireCoding.encode(fix, at: receivedAt + .milliseconds(1234))["age"] == 1.234)
        #expect(WireCoding.encode(fix, at: receivedAt - .seconds(1))["age"] == 0)
    }

    @Test func roundTrip() throws {
        let now = receivedAt + .milliseconds(1500)
        let fix = fullFix()
        #expect(try WireCoding.decodeFix(WireCoding.encode(fix, at: now), at: now) == fix)
        let minimal = LocationFix(
            coordinate: Coordinate(latitude: -33.5, longitude: 151.25), mode: .twoD, source: .simulated,
            receivedAt: receivedAt)
        #expect(try WireCoding.decodeFix(WireCoding.encode(minimal, at: receivedAt), at: receivedAt) == minimal)
    }

    @Test func roundTripThroughText() throws {
        let now = receivedAt + .milliseconds(1500)
        let text = WireCoding.encode(fullFix(), at: now).serialized()
        let parsed = try JSONValue.parse(Data(text.utf8))
        #expect(try WireCoding.decodeFix(parsed, at: now) == fullFix())
    }

    static let malformedCases: [(JSONValue, String)] = [
        (["longitude": 2, "mode": 2, "source": "gpsd"], "fix.latitude"),
        (["latitude": 1, "longitude": 2, "mode": 4, "source": "gpsd"], "fix.mode"),
        (["latitude": 1, "longitude": 2, "mode": 2, "source": "glonass"], "fix.source"),
        (["latitude": "1", "longitude": 2, "mode": 2, "source": "gpsd"], "fix.latitude"),
        ([1, 2], "fix"),
    ]

    @Test(arguments: malformedCases)
    func malformedFix(value: JSONValue, path: String) {
        do {
            let fix = try WireCoding.decodeFix(value)
            Issue.record("accepted: \(fix)")
        } catch {
            #expect(error.code == -32603)
            #expect(error.message.contains(path), "\(error.message)")
        }
    }
}

@Suite struct WireAuthorizationTests {
    @Test(arguments: [
        AuthorizationState(status: .notDetermined, decidedBy: .default),
        AuthorizationState(status: .denied, decidedBy: .decision),
        AuthorizationState(status: .restricted, decidedBy: .rule),
        AuthorizationState(status: .authorized, accuracy: .reduced, decidedBy: .rule),
        AuthorizationState(
            status: .authorized, accuracy: .full, decidedBy: .decision,
            client: ClientIdentity(
                uid: 1001, gid: 1001, pid: 42, user: "kiosk", groups: ["kiosk", "video"], unit: "kiosk.service",
                executable: "/usr/bin/petspot-report")),
        AuthorizationState(status: .denied, decidedBy: .default, client: ClientIdentity(uid: 0, gid: 0, pid: 1)),
    ])
    func roundTrip(state: AuthorizationState) throws {
        let encoded = WireCoding.encode(state)
        #expect(encoded["status"] == .string(state.status.rawValue))
        #expect(encoded["decidedBy"] == .string(state.decidedBy.rawValue))
        #expect(encoded["accuracy"] == state.accuracy.map { .string($0.rawValue) })
        #expect(try WireCoding.decodeAuthorization(encoded) == state)
        #expect(!encoded.serialized().contains("null"))
    }

    @Test func clientIdentityOmitsUnknownsAndGroupIDs() {
        let encoded = WireCoding.encode(ClientIdentity(uid: 5, gid: 6, pid: 7, groupIDs: [6, 10]))
        #expect(encoded == ["uid": 5, "gid": 6, "pid": 7])
    }

    @Test func authorizationStatesOnTheWire() {
        #expect(
            AuthorizationStatus.allCases.map(\.rawValue) == ["notDetermined", "authorized", "denied", "restricted"])
        #expect(AccuracyAuthorization.allCases.map(\.rawValue) == ["full", "reduced"])
    }

    @Test func sourceStatusHasNoCoordinates() {
        let full = WireCoding.encode(
            SourceStatus(
                kind: .gpsd, connected: true, device: "/dev/ttyACM0", lastFixAge: 1.23456, fixes: 10, rejected: 2,
                reconnects: 1, fallback: .static))
        #expect(
            full == [
                "kind": "gpsd", "connected": true, "device": "/dev/ttyACM0", "lastFixAge": 1.235, "fixes": 10,
                "rejected": 2, "reconnects": 1, "fallback": "static",
            ])
        let bare = WireCoding.encode(SourceStatus(kind: .simulated, connected: false))
        #expect(bare == ["kind": "simulated", "connected": false, "fixes": 0, "rejected": 0, "reconnects": 0])
    }
}

@Suite struct JSONSerializationTests {
    @Test(arguments: [
        (JSONValue("plain"), #""plain""#),
        ("quote\"back\\slash", #""quote\"back\\slash""#),
        ("tab\tnl\ncr\r", #""tab\tnl\ncr\r""#),
        ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
        ("zażółć €", "\"zażółć €\""),
        (1.5, "1.5"), (3, "3"), (-0.25, "-0.25"), (.number(.nan), "null"), (.number(.infinity), "null"),
        (nil, "null"), (true, "true"),
        (["b": 1, "a": [nil, false]] as JSONValue, #"{"a":[null,false],"b":1}"#),
    ])
    func serialized(value: JSONValue, text: String) {
        #expect(value.serialized() == text)
    }

    @Test func serializedTextParsesBack() throws {
        let value: JSONValue = [
            "s": "a\"b\\c\u{0}\u{7}\n😀", "n": 52.229_7, "i": -12, "a": [1, "x", nil, true, ["k": "v"]], "e": [:],
        ]
        let text = value.serialized()
        let parsed = try JSONValue.parse(Data(text.utf8))
        #expect(parsed == value)
    }

    @Test func booleansAreNotNumbers() throws {
        let parsed = try JSONValue.parse(Data(#"[true, 1, 0, false]"#.utf8))
        #expect(parsed == [true, 1, 0, false])
    }
}
