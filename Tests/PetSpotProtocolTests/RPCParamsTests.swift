import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import Testing

/// Runs `body` expecting -32602 with a message naming `parameter`.
private func expectInvalidParams<T>(
    naming parameter: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(RPCError) -> T
) {
    do {
        let value = try body()
        Issue.record("accepted, giving \(value)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == -32602, sourceLocation: sourceLocation)
        #expect(error.message.contains(parameter), "\(error.message)", sourceLocation: sourceLocation)
        #expect(error.reason == nil, sourceLocation: sourceLocation)
    }
}

@Suite struct LocationGetParamsTests {
    static let invalidCases: [(JSONValue, String)] = [
        (["maxAge": "abc"], "params.maxAge"),
        (["maxAge": -1], "params.maxAge"),
        (["maxAge": true], "params.maxAge"),
        (["timeout": -1], "params.timeout"),
        (["timeout": 301], "params.timeout"),
        (["timeout": "10"], "params.timeout"),
        (["minMode": 7], "params.minMode"),
        (["minMode": 2.5], "params.minMode"),
        (["minMode": 1], "params.minMode"),
        (["minMode": "3"], "params.minMode"),
        (["desiredAccuracy": -5], "params.desiredAccuracy"),
        (["desiredAccuracy": [1]], "params.desiredAccuracy"),
        (["uid": 0], "uid"),
        (["timeout": 5, "colour": "red"], "colour"),
    ]

    @Test(arguments: invalidCases)
    func invalid(params: JSONValue, parameter: String) {
        expectInvalidParams(naming: parameter) { () throws(RPCError) in try RPCParams.locationGet(params) }
    }

    @Test(arguments: [([1, 2] as JSONValue), "x", 5, true])
    func paramsMustBeNamed(params: JSONValue) {
        expectInvalidParams(naming: "params") { () throws(RPCError) in try RPCParams.locationGet(params) }
    }

    @Test func absentParamsGiveTheDefaults() throws {
        #expect(try RPCParams.locationGet(nil) == LocationRequest())
        #expect(try RPCParams.locationGet([:]) == LocationRequest())
        #expect(try RPCParams.locationGet(["timeout": nil]) == LocationRequest())
    }

    static let validCases: [(JSONValue, LocationRequest)] = [
        (
            ["maxAge": 2, "timeout": 3.5, "minMode": 3, "desiredAccuracy": 20],
            LocationRequest(
                maxAge: .seconds(2), timeout: .milliseconds(3500), minMode: .threeD, desiredAccuracy: 20)
        ),
        (["maxAge": 0, "timeout": 0], LocationRequest(maxAge: .zero, timeout: .zero)),
        (["timeout": 300], LocationRequest(timeout: .seconds(300))),
        (["minMode": 2], LocationRequest(minMode: .twoD)),
        (["minMode": 3.0], LocationRequest(minMode: .threeD)),
        (["desiredAccuracy": 0.5], LocationRequest(desiredAccuracy: 0.5)),
    ]

    @Test(arguments: validCases)
    func valid(params: JSONValue, expected: LocationRequest) throws {
        #expect(try RPCParams.locationGet(params) == expected)
    }

    @Test func encodedRequestParsesBack() throws {
        let request = LocationRequest(
            maxAge: .milliseconds(1500), timeout: .seconds(42), minMode: .threeD, desiredAccuracy: 12.5)
        #expect(try RPCParams.locationGet(RPCParams.encode(request)) == request)
    }
}

@Suite struct OtherParamsTests {
    @Test func watch() throws {
        #expect(try RPCParams.locationWatch(nil) == WatchOptions())
        #expect(
            try RPCParams.locationWatch(["distanceFilter": 50, "interval": 2])
                == WatchOptions(distanceFilter: 50, interval: .seconds(2)))
        #expect(try RPCParams.locationWatch(["interval": 0.1]) == WatchOptions(interval: .milliseconds(100)))
        let options = WatchOptions(distanceFilter: 7.5, interval: .milliseconds(250))
        #expect(try RPCParams.locationWatch(RPCParams.encode(options)) == options)
    }

    static let invalidWatchCases: [(JSONValue, String)] = [
        (["distanceFilter": -1], "params.distanceFilter"),
        (["distanceFilter": "far"], "params.distanceFilter"),
        (["interval": -0.5], "params.interval"),
        (["interval": "1"], "params.interval"),
        // Hardening item 4: a tiny interval would let one watch spin the daemon.
        (["interval": 1e-9], "params.interval"),
        (["interval": 0], "params.interval"),
        (["interval": 0.099], "params.interval"),
        (["subscription": 1], "subscription"),
    ]

    @Test(arguments: invalidWatchCases)
    func watchInvalid(params: JSONValue, parameter: String) {
        expectInvalidParams(naming: parameter) { () throws(RPCError) in try RPCParams.locationWatch(params) }
    }

    @Test func unwatch() throws {
        #expect(try RPCParams.locationUnwatch(["subscription": 3]) == 3)
        expectInvalidParams(naming: "params.subscription") { () throws(RPCError) in
            try RPCParams.locationUnwatch(nil)
        }
        expectInvalidParams(naming: "params.subscription") { () throws(RPCError) in
            try RPCParams.locationUnwatch([:])
        }
        expectInvalidParams(naming: "params.subscription") { () throws(RPCError) in
            try RPCParams.locationUnwatch(["subscription": 0])
        }
        expectInvalidParams(naming: "params.subscription") { () throws(RPCError) in
            try RPCParams.locationUnwatch(["subscription": 1.5])
        }
        expectInvalidParams(naming: "params.subscription") { () throws(RPCError) in
            try RPCParams.locationUnwatch(["subscription": "1"])
        }
        expectInvalidParams(naming: "id") { () throws(RPCError) in
            try RPCParams.locationUnwatch(["subscription": 1, "id": 2])
        }
    }

    @Test(arguments: [
        (JSONValue?.none, AccuracyAuthorization.full), (.some([:]), .full), (.some(["accuracy": "full"]), .full),
        (.some(["accuracy": "reduced"]), .reduced),
    ])
    func authorizationRequest(params: JSONValue?, expected: AccuracyAuthorization) throws {
        #expect(try RPCParams.authorizationRequest(params) == expected)
    }

    @Test(arguments: [(["accuracy": "medium"] as JSONValue), ["accuracy": 1], ["accuracy": "Full"], ["status": "x"]])
    func authorizationRequestInvalid(params: JSONValue) {
        let parameter = params["status"] == nil ? "params.accuracy" : "status"
        expectInvalidParams(naming: parameter) { () throws(RPCError) in try RPCParams.authorizationRequest(params) }
    }

    @Test func authorizationReset() throws {
        #expect(try RPCParams.authorizationReset(["uid": 1000]) == 1000)
        #expect(try RPCParams.authorizationReset(["uid": 0]) == 0)
        let invalid: [JSONValue?] = [
            nil, .some([:]), .some(["uid": -1]), .some(["uid": "root"]), .some(["uid": 1.5]),
            .some(["uid": 4_294_967_296]),
        ]
        for params in invalid {
            expectInvalidParams(naming: "params.uid") { () throws(RPCError) in
                try RPCParams.authorizationReset(params)
            }
        }
        expectInvalidParams(naming: "user") { () throws(RPCError) in
            try RPCParams.authorizationReset(["uid": 1, "user": "root"])
        }
    }

    @Test func methodsWithoutParams() throws {
        try RPCParams.none(nil)
        try RPCParams.none([:])
        expectInvalidParams(naming: "verbose") { () throws(RPCError) in try RPCParams.none(["verbose": true]) }
    }
}
