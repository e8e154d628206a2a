import PetSpotJSON
import PetSpotLocation

/// The methods of the wire protocol (SPEC §5).
public enum RPCMethod: String, Sendable, CaseIterable {
    case locationGet = "location.get"
    case locationWatch = "location.watch"
    case locationUnwatch = "location.unwatch"
    case authorizationStatus = "authorization.status"
    case authorizationRequest = "authorization.request"
    case authorizationReset = "authorization.reset"
    case agentRegister = "agent.register"
    case daemonStatus = "daemon.status"

    /// Notification the daemon sends a watcher with each fix.
    public static let locationUpdate = "location.update"
    /// Notification that ends a subscription with an error.
    public static let locationError = "location.error"
    /// Request the daemon sends a registered agent.
    public static let agentPrompt = "agent.prompt"
    /// Notification to an agent: the prompt `{"id"}` is withdrawn (everyone
    /// waiting on it left); its answer, if any, is no longer wanted.
    public static let agentCancel = "agent.cancel"
    /// Notification to a replaced agent: a newer one took over (`{"by": pid}`).
    public static let agentReplaced = "agent.replaced"
}

/// Parameter parsing: every method's params, checked with errors that name
/// the parameter (-32602).
/// The accepted ranges of `location.get`'s parameters, one place for
/// ``RPCParams/locationGet(_:)`` and ``LocationGetLine``.
enum LocationGetBounds {
    static let maxAge: ClosedRange<Double> = 0...86_400
    static let timeout: ClosedRange<Double> = 0...LocationRequest.maximumTimeout.seconds
    static let minMode: ClosedRange<Int> = 2...3
    static let desiredAccuracy: ClosedRange<Double> = 0...40_000_000
}

public enum RPCParams {
    /// Reads `params` as named parameters, rejecting unknown ones.
    static func fields(_ params: JSONValue?, allowed: Set<String>) throws(RPCError) -> JSONFields {
        guard let params else { return try! JSONFields(.object([:]), path: "params") }
        guard case .object = params else {
            throw .invalidParams("params must be an object of named parameters")
        }
        do {
            let fields = try JSONFields(params, path: "params")
            try fields.rejectUnknown(allowed)
            return fields
        } catch {
            throw .invalidParams(error.description)
        }
    }

    static func wrap<T>(_ body: () throws(JSONFieldError) -> T) throws(RPCError) -> T {
        do {
            return try body()
        } catch {
            throw .invalidParams(error.description)
        }
    }

    /// `location.get` → ``LocationRequest``.
    public static func locationGet(_ params: JSONValue?) throws(RPCError) -> LocationRequest {
        let fields = try fields(params, allowed: ["maxAge", "timeout", "minMode", "desiredAccuracy"])
        return try wrap { () throws(JSONFieldError) -> LocationRequest in
            let maxAge = try fields.number("maxAge", in: LocationGetBounds.maxAge)
            let timeout = try fields.number("timeout", in: LocationGetBounds.timeout)
            let minMode = try fields.integer("minMode", in: LocationGetBounds.minMode).flatMap(FixMode.init(rawValue:))
            let desired = try fields.number("desiredAccuracy", in: LocationGetBounds.desiredAccuracy)
            return LocationRequest(
                maxAge: maxAge.map(Duration.fromSeconds) ?? LocationRequest.defaultMaxAge,
                timeout: timeout.map(Duration.fromSeconds) ?? LocationRequest.defaultTimeout,
                minMode: minMode,
                desiredAccuracy: desired)
        }
    }

    /// `location.get` params for a request (client side).
    public static func encode(_ request: LocationRequest) -> JSONValue {
        var members: [String: JSONValue] = [
            "maxAge": .number(request.maxAge.seconds), "timeout": .number(request.timeout.seconds),
        ]
        if let minMode = request.minMode { members["minMode"] = .number(Double(minMode.rawValue)) }
        if let desired = request.desiredAccuracy { members["desiredAccuracy"] = .number(desired) }
        return .object(members)
    }

    /// `location.watch` → ``WatchOptions``.
    public static func locationWatch(_ params: JSONValue?) throws(RPCError) -> WatchOptions {
        let fields = try fields(params, allowed: ["distanceFilter", "interval"])
        return try wrap { () throws(JSONFieldError) -> WatchOptions in
            WatchOptions(
                distanceFilter: try fields.number("distanceFilter", in: 0...40_000_000),
                interval: try fields.number("interval", in: WatchOptions.minimumIntervalSeconds...86_400)
                    .map(Duration.fromSeconds))
        }
    }

    /// `location.watch` params (client side).
    public static func encode(_ options: WatchOptions) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if let distance = options.distanceFilter { members["distanceFilter"] = .number(distance) }
        if let interval = options.interval { members["interval"] = .number(interval.seconds) }
        return .object(members)
    }

    /// `location.unwatch` → the subscription number.
    public static func locationUnwatch(_ params: JSONValue?) throws(RPCError) -> Int {
        let fields = try fields(params, allowed: ["subscription"])
        return try wrap { () throws(JSONFieldError) -> Int in
            try fields.required("subscription", fields.integer("subscription", in: 1...Int(Int32.max)))
        }
    }

    /// `authorization.request` → the accuracy asked for (default full).
    public static func authorizationRequest(_ params: JSONValue?) throws(RPCError) -> AccuracyAuthorization {
        let fields = try fields(params, allowed: ["accuracy"])
        return try wrap { () throws(JSONFieldError) -> AccuracyAuthorization in
            try fields.choice("accuracy", of: AccuracyAuthorization.self, allowed: AccuracyAuthorization.allCases)
                ?? .full
        }
    }

    /// `authorization.reset` → the uid to reset.
    public static func authorizationReset(_ params: JSONValue?) throws(RPCError) -> UInt32 {
        let fields = try fields(params, allowed: ["uid"])
        return try wrap { () throws(JSONFieldError) -> UInt32 in
            UInt32(try fields.required("uid", fields.integer("uid", in: 0...Int(UInt32.max - 1))))
        }
    }

    /// Methods that take no parameters.
    public static func none(_ params: JSONValue?) throws(RPCError) {
        _ = try fields(params, allowed: [])
    }
}
