import PetSpotJSON
import PetSpotLocation

/// The wire shapes of fixes, authorization states and status (SPEC §2, §5):
/// camelCase names, unknown values omitted (never null or NaN).
public enum WireCoding {
    /// A fix's `age` as the wire shows it: seconds, to the millisecond.
    static func wireAge(of fix: LocationFix, at now: ContinuousClock.Instant) -> Double {
        Double(wireAgeMilliseconds(of: fix, at: now)) / 1000
    }

    /// ``wireAge(of:at:)`` in whole milliseconds.
    static func wireAgeMilliseconds(of fix: LocationFix, at now: ContinuousClock.Instant) -> Int64 {
        Int64((fix.age(at: now) * 1000).rounded())
    }

    /// A fix as sent at `now` (its `age` is measured then).
    public static func encode(_ fix: LocationFix, at now: ContinuousClock.Instant = .now) -> JSONValue {
        var members: [String: JSONValue] = [
            "latitude": .number(fix.coordinate.latitude),
            "longitude": .number(fix.coordinate.longitude),
            "mode": .number(Double(fix.mode.rawValue)),
            "source": .string(fix.source.rawValue),
            "age": .number(wireAge(of: fix, at: now)),
            "accuracy": .string(fix.accuracy.rawValue),
        ]
        func put(_ key: String, _ value: Double?) {
            if let value, value.isFinite { members[key] = .number(value) }
        }
        put("altitude", fix.altitude)
        put("horizontalAccuracy", fix.horizontalAccuracy)
        put("verticalAccuracy", fix.verticalAccuracy)
        put("speed", fix.speed)
        put("course", fix.course)
        if let timestamp = fix.timestamp { members["timestamp"] = .string(timestamp.iso8601) }
        return .object(members)
    }

    /// Appends the members of ``encode(_:at:)`` that sort after `age`, in
    /// the serializer's order (sorted names), each as `,"name":value`, then
    /// the object's `}`: the same bytes `JSONValue.write(utf8:)` gives for
    /// them, without building the dictionary (``SplicedFix``, once per fix
    /// on the watch path; `UpdateNotificationTests` holds the two equal).
    static func writeMembersAfterAge(of fix: LocationFix, utf8 output: inout [UInt8]) {
        // Numbers and the timestamp go straight into `output` (no `JSONValue`,
        // no `String`): this runs once per fix on the gpsd reader (issue 40).
        func name(_ name: StaticString) {
            output.append(UInt8(ascii: ","))
            name.withUTF8Buffer { output.append(contentsOf: $0) }
        }
        func put(_ key: StaticString, _ value: Double?) {
            guard let value, value.isFinite else { return }
            name(key)
            JSONNumber.write(value, utf8: &output)
        }
        // `accuracy` and `age` sort first; the rest in this order.
        put(#""altitude":"#, fix.altitude)
        put(#""course":"#, fix.course)
        put(#""horizontalAccuracy":"#, fix.horizontalAccuracy)
        name(#""latitude":"#)
        JSONNumber.write(fix.coordinate.latitude, utf8: &output)
        name(#""longitude":"#)
        JSONNumber.write(fix.coordinate.longitude, utf8: &output)
        name(#""mode":"#)
        JSONNumber.write(Double(fix.mode.rawValue), utf8: &output)
        name(#""source":"#)
        JSONValue.string(fix.source.rawValue).write(utf8: &output)
        put(#""speed":"#, fix.speed)
        if let timestamp = fix.timestamp {
            // ISO 8601 digits, `-`, `:`, `.`, `T` and `Z`: nothing to escape.
            name(#""timestamp":""#)
            timestamp.appendISO8601(to: &output)
            output.append(UInt8(ascii: "\""))
        }
        put(#""verticalAccuracy":"#, fix.verticalAccuracy)
        output.append(UInt8(ascii: "}"))
    }

    /// A fix read back by a client at `now` (receipt time reconstructed from `age`).
    public static func decodeFix(
        _ value: JSONValue, at now: ContinuousClock.Instant = .now
    ) throws(RPCError)
        -> LocationFix
    {
        do {
            let fields = try JSONFields(value, path: "fix")
            let latitude = try fields.required("latitude", fields.number("latitude"))
            let longitude = try fields.required("longitude", fields.number("longitude"))
            let mode = try fields.required("mode", fields.integer("mode", in: 2...3))
            let source = try fields.required(
                "source", fields.choice("source", of: FixSourceKind.self, allowed: FixSourceKind.allCases))
            let accuracy =
                try fields.choice("accuracy", of: AccuracyAuthorization.self, allowed: AccuracyAuthorization.allCases)
                ?? .full
            let age = try fields.number("age") ?? 0
            var timestamp: UTCTimestamp?
            if let text = try fields.string("timestamp") { timestamp = UTCTimestamp(iso8601: text) }
            return LocationFix(
                coordinate: Coordinate(latitude: latitude, longitude: longitude),
                altitude: try fields.number("altitude"),
                horizontalAccuracy: try fields.number("horizontalAccuracy"),
                verticalAccuracy: try fields.number("verticalAccuracy"),
                speed: try fields.number("speed"),
                course: try fields.number("course"),
                timestamp: timestamp,
                mode: FixMode(rawValue: mode) ?? .twoD,
                source: source,
                receivedAt: now - .fromSeconds(age),
                accuracy: accuracy)
        } catch {
            throw .internalError("malformed fix from daemon: \(error.description)")
        }
    }

    /// A client identity.
    public static func encode(_ identity: ClientIdentity) -> JSONValue {
        var members: [String: JSONValue] = [
            "uid": .number(Double(identity.uid)), "gid": .number(Double(identity.gid)),
            "pid": .number(Double(identity.pid)),
        ]
        if let user = identity.user { members["user"] = .string(user) }
        if let groups = identity.groups { members["groups"] = .array(groups.map(JSONValue.string)) }
        if let unit = identity.unit { members["unit"] = .string(unit) }
        if let executable = identity.executable { members["executable"] = .string(executable) }
        return .object(members)
    }

    /// An authorization state (`authorization.status` / `authorization.request` result).
    public static func encode(_ state: AuthorizationState) -> JSONValue {
        var members: [String: JSONValue] = [
            "status": .string(state.status.rawValue), "decidedBy": .string(state.decidedBy.rawValue),
        ]
        if let accuracy = state.accuracy { members["accuracy"] = .string(accuracy.rawValue) }
        if let client = state.client { members["client"] = encode(client) }
        return .object(members)
    }

    /// An authorization state read back by a client.
    public static func decodeAuthorization(_ value: JSONValue) throws(RPCError) -> AuthorizationState {
        do {
            let fields = try JSONFields(value, path: "result")
            let status = try fields.required(
                "status", fields.choice("status", of: AuthorizationStatus.self, allowed: AuthorizationStatus.allCases))
            let accuracy = try fields.choice(
                "accuracy", of: AccuracyAuthorization.self, allowed: AccuracyAuthorization.allCases)
            let decidedBy =
                try fields.choice(
                    "decidedBy", of: DecisionOrigin.self, allowed: [.rule, .decision, .default]) ?? .default
            var client: ClientIdentity?
            if let raw = try fields.object("client") {
                client = ClientIdentity(
                    uid: UInt32(try raw.required("uid", raw.integer("uid", in: 0...Int(UInt32.max)))),
                    gid: UInt32(try raw.required("gid", raw.integer("gid", in: 0...Int(UInt32.max)))),
                    pid: Int32(try raw.required("pid", raw.integer("pid", in: 0...Int(Int32.max)))),
                    user: try raw.string("user"),
                    groups: try raw.array("groups")?.compactMap { value -> String? in
                        if case .string(let name) = value { return name }
                        return nil
                    },
                    unit: try raw.string("unit"),
                    executable: try raw.string("executable"))
            }
            return AuthorizationState(status: status, accuracy: accuracy, decidedBy: decidedBy, client: client)
        } catch {
            throw .internalError("malformed authorization state from daemon: \(error.description)")
        }
    }

    /// A source status (no coordinates).
    public static func encode(_ status: SourceStatus) -> JSONValue {
        var members: [String: JSONValue] = [
            "kind": .string(status.kind.rawValue), "connected": .bool(status.connected),
            "fixes": .number(Double(status.fixes)), "rejected": .number(Double(status.rejected)),
            "reconnects": .number(Double(status.reconnects)),
        ]
        if let device = status.device { members["device"] = .string(device) }
        if let age = status.lastFixAge { members["lastFixAge"] = .number((age * 1000).rounded() / 1000) }
        if let fallback = status.fallback { members["fallback"] = .string(fallback.rawValue) }
        if let reason = status.reason { members["reason"] = .string(reason) }
        return .object(members)
    }
}
