import FoundationEssentials
import PetSpotJSON
import PetSpotLocation

/// Why a scenario file was refused; its description names the file or the
/// JSON member (`steps[3].fix.latitude`).
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

extension Scenario {
    /// Largest scenario file accepted (bytes).
    public static let maximumFileSize = 4 << 20
    /// Largest number of steps accepted.
    public static let maximumSteps = 100_000

    /// Loads a scenario file.
    /// - Throws: ``ScenarioError`` naming the file or the offending JSON member.
    public static func load(contentsOf path: String) throws(ScenarioError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "not readable" : "no such file"
            throw ScenarioError("cannot read scenario file \(path): \(reason)")
        }
        guard data.count <= maximumFileSize else {
            throw ScenarioError("scenario file \(path) is larger than \(maximumFileSize) bytes")
        }
        do throws(ScenarioError) {
            return try parse(data)
        } catch {
            throw ScenarioError("\(path): \(error.description)")
        }
    }

    /// Parses scenario JSON.
    /// - Throws: ``ScenarioError`` naming the offending JSON member.
    public static func parse(_ data: Data) throws(ScenarioError) -> Scenario {
        let root: JSONValue
        do {
            root = try JSONValue.parse(data)
        } catch {
            throw ScenarioError("not valid JSON (\(error))")
        }
        do throws(JSONFieldError) {
            let fields = try JSONFields(root)
            try fields.rejectUnknown(["steps", "loop"])
            let loops = try fields.bool("loop") ?? false
            let rawSteps = try fields.required("steps", fields.array("steps"))
            guard rawSteps.count <= maximumSteps else {
                throw JSONFieldError(path: "steps", message: "has more than \(maximumSteps) steps")
            }
            var steps: [Step] = []
            for (index, raw) in rawSteps.enumerated() {
                steps.append(try parseStep(JSONFields(raw, path: "steps[\(index)]")))
            }
            return Scenario(steps: steps, loops: loops)
        } catch {
            throw ScenarioError(error.description)
        }
    }

    private static let stepKinds = ["fix", "wait", "path", "noFix", "outage", "authorization"]

    private static func parseStep(_ step: JSONFields) throws(JSONFieldError) -> Step {
        let present = stepKinds.filter { step.has($0) }
        guard present.count == 1, let kind = present.first else {
            throw JSONFieldError(
                path: step.path, message: "must have exactly one of \(stepKinds.joined(separator: ", "))")
        }
        switch kind {
        case "fix":
            try step.rejectUnknown(["fix"])
            return .fix(try parseFix(step.required("fix", step.object("fix")), requireCoordinate: true))
        case "wait":
            try step.rejectUnknown(["wait"])
            return .wait(try seconds(step, "wait"))
        case "noFix":
            try step.rejectUnknown(["noFix"])
            return .noFix(try seconds(step, "noFix"))
        case "outage":
            try step.rejectUnknown(["outage", "reason"])
            return .outage(try seconds(step, "outage"), reason: try step.string("reason") ?? "simulated outage")
        case "authorization":
            try step.rejectUnknown(["authorization"])
            let auth = try step.required("authorization", step.object("authorization"))
            try auth.rejectUnknown(["status", "accuracy"])
            let status = try auth.required(
                "status", auth.choice("status", of: AuthorizationStatus.self, allowed: AuthorizationStatus.allCases))
            let accuracy = try auth.choice(
                "accuracy", of: AccuracyAuthorization.self, allowed: AccuracyAuthorization.allCases)
            return .authorization(status, accuracy)
        default:
            try step.rejectUnknown(["path"])
            let spec = try step.required("path", step.object("path"))
            try spec.rejectUnknown([
                "from", "to", "count", "interval", "altitude", "horizontalAccuracy", "verticalAccuracy", "speed",
                "course", "mode",
            ])
            let from = try parseFix(spec.required("from", spec.object("from")), requireCoordinate: true)
            let to = try parseFix(spec.required("to", spec.object("to")), requireCoordinate: true)
            let count = try spec.required("count", spec.integer("count", in: 1...100_000))
            var template = try parseFix(spec, requireCoordinate: false, ignoring: ["from", "to", "count", "interval"])
            template.latitude = from.latitude
            template.longitude = from.longitude
            return .path(
                from: Coordinate(latitude: from.latitude, longitude: from.longitude),
                to: Coordinate(latitude: to.latitude, longitude: to.longitude),
                count: count,
                interval: try seconds(spec, "interval"),
                template: template)
        }
    }

    private static func seconds(_ fields: JSONFields, _ key: String) throws(JSONFieldError) -> Duration {
        .fromSeconds(try fields.required(key, fields.number(key, in: 0...86_400)))
    }

    private static func parseFix(
        _ fix: JSONFields, requireCoordinate: Bool, ignoring extra: Set<String> = []
    ) throws(JSONFieldError) -> ScriptedFix {
        try fix.rejectUnknown(
            extra.union([
                "latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy", "speed", "course",
                "mode", "timestamp",
            ]))
        let latitude = try fix.number("latitude")
        let longitude = try fix.number("longitude")
        if requireCoordinate {
            _ = try fix.required("latitude", latitude)
            _ = try fix.required("longitude", longitude)
        }
        var mode: FixMode?
        if let raw = try fix.integer("mode", in: 2...3) { mode = FixMode(rawValue: raw) }
        var timestamp: UTCTimestamp?
        if let text = try fix.string("timestamp") {
            guard let value = UTCTimestamp(iso8601: text) else {
                throw JSONFieldError(
                    path: fix.path(of: "timestamp"), message: "must be ISO 8601 UTC like 2026-01-31T12:00:00Z")
            }
            timestamp = value
        }
        return ScriptedFix(
            latitude: latitude ?? .nan,
            longitude: longitude ?? .nan,
            altitude: try fix.number("altitude"),
            horizontalAccuracy: try fix.number("horizontalAccuracy"),
            verticalAccuracy: try fix.number("verticalAccuracy"),
            speed: try fix.number("speed"),
            course: try fix.number("course"),
            mode: mode,
            timestamp: timestamp)
    }
}
