import Foundation
import PetSpotLocation
import PetSpotSimulatedSource
import Testing

private func parse(_ text: String) throws(ScenarioError) -> Scenario {
    try Scenario.parse(Data(text.utf8))
}

@Suite struct ScenarioParseTests {
    @Test func everyStepKind() throws {
        let scenario = try parse(
            """
            {
              "loop": true,
              "steps": [
                {"fix": {"latitude": 52.2297, "longitude": 21.0122, "altitude": 110,
                         "horizontalAccuracy": 8, "verticalAccuracy": 12, "speed": 0,
                         "course": 0, "mode": 3, "timestamp": "2026-01-31T12:00:00Z"}},
                {"fix": {"latitude": 1, "longitude": 2}},
                {"wait": 1.0},
                {"path": {"from": {"latitude": 52.2297, "longitude": 21.0122},
                          "to": {"latitude": 52.2307, "longitude": 21.0142},
                          "count": 10, "interval": 0.5, "horizontalAccuracy": 5, "mode": 2}},
                {"noFix": 3.0},
                {"outage": 2.0, "reason": "receiver unplugged"},
                {"outage": 0.25},
                {"authorization": {"status": "authorized", "accuracy": "reduced"}},
                {"authorization": {"status": "denied"}}
              ]
            }
            """)
        #expect(scenario.loops)
        #expect(scenario.producesFixes)
        let expected: [Scenario.Step] = [
            .fix(
                ScriptedFix(
                    latitude: 52.2297, longitude: 21.0122, altitude: 110, horizontalAccuracy: 8, verticalAccuracy: 12,
                    speed: 0, course: 0, mode: .threeD, timestamp: UTCTimestamp(iso8601: "2026-01-31T12:00:00Z"))),
            .fix(ScriptedFix(latitude: 1, longitude: 2)),
            .wait(.seconds(1)),
            .path(
                from: Coordinate(latitude: 52.2297, longitude: 21.0122),
                to: Coordinate(latitude: 52.2307, longitude: 21.0142), count: 10, interval: .milliseconds(500),
                template: ScriptedFix(latitude: 52.2297, longitude: 21.0122, horizontalAccuracy: 5, mode: .twoD)),
            .noFix(.seconds(3)),
            .outage(.seconds(2), reason: "receiver unplugged"),
            .outage(.milliseconds(250), reason: "simulated outage"),
            .authorization(.authorized, .reduced),
            .authorization(.denied, nil),
        ]
        #expect(scenario.steps.count == expected.count)
        for (got, want) in zip(scenario.steps, expected) { #expect(got == want) }
    }

    @Test func loopDefaultsToFalseAndEmptyStepsAreAllowed() throws {
        let scenario = try parse(#"{"steps": []}"#)
        #expect(!scenario.loops)
        #expect(scenario.steps.isEmpty)
        #expect(!scenario.producesFixes)
    }

    @Test func invalidCoordinatesAreAllowedOnPurpose() throws {
        let scenario = try parse(#"{"steps": [{"fix": {"latitude": 91, "longitude": 0}}]}"#)
        #expect(scenario.steps == [.fix(ScriptedFix(latitude: 91, longitude: 0))])
    }

    @Test(arguments: [
        (#"{"steps": [{"wait": 1}, {"fix": {"longitude": 1}}]}"#, "steps[1].fix.latitude: is required"),
        (#"{"steps": [{"fix": {"latitude": 1}}]}"#, "steps[0].fix.longitude: is required"),
        (#"{"steps": [{"fix": {"latitude": 1, "longitude": 2, "colour": 3}}]}"#, "steps[0].fix.colour"),
        (
            #"{"steps": [{"fix": {"latitude": "north", "longitude": 2}}]}"#,
            "steps[0].fix.latitude: must be a number, not string"
        ),
        (
            #"{"steps": [{"fix": {"latitude": 1, "longitude": 2, "mode": 4}}]}"#,
            "steps[0].fix.mode: must be a whole number from 2 to 3, not 4"
        ),
        (#"{"steps": [{"fix": {"latitude": 1, "longitude": 2, "mode": 1}}]}"#, "steps[0].fix.mode"),
        (
            #"{"steps": [{"fix": {"latitude": 1, "longitude": 2, "timestamp": "yesterday"}}]}"#,
            "steps[0].fix.timestamp: must be ISO 8601"
        ),
        (#"{"steps": [{"wait": -1}]}"#, "steps[0].wait: must be between 0 and 86400, not -1"),
        (#"{"steps": [{"noFix": -0.5}]}"#, "steps[0].noFix"),
        (#"{"steps": [{"outage": "long"}]}"#, "steps[0].outage: must be a number, not string"),
        (#"{"steps": [{"outage": 1, "reason": 5}]}"#, "steps[0].reason: must be a string, not number"),
        (#"{"steps": [{"wait": 1, "noFix": 2}]}"#, "steps[0]: must have exactly one of"),
        (#"{"steps": [{}]}"#, "steps[0]: must have exactly one of"),
        (#"{"steps": [{"jump": 1}]}"#, "steps[0]: must have exactly one of"),
        (#"{"steps": [{"wait": 1, "extra": true}]}"#, "steps[0].extra"),
        (#"{"steps": [5]}"#, "steps[0]: must be an object, not number"),
        (#"{"steps": {"wait": 1}}"#, "steps: must be an array, not object"),
        (#"{}"#, "steps: is required"),
        (#"{"steps": [], "repeat": true}"#, "unknown member repeat"),
        (#"{"steps": [], "loop": "yes"}"#, "loop: must be true or false, not string"),
        (#"[1]"#, "must be an object, not array"),
        (
            #"{"steps": [{"path": {"from": {"latitude": 1, "longitude": 2}, "to": {"latitude": 1}, "count": 2, "interval": 1}}]}"#,
            "steps[0].path.to.longitude: is required"
        ),
        (
            #"{"steps": [{"path": {"from": {"latitude": 1, "longitude": 2}, "to": {"latitude": 1, "longitude": 3}, "count": 0, "interval": 1}}]}"#,
            "steps[0].path.count"
        ),
        (
            #"{"steps": [{"path": {"from": {"latitude": 1, "longitude": 2}, "to": {"latitude": 1, "longitude": 3}, "count": 2}}]}"#,
            "steps[0].path.interval: is required"
        ),
        (
            #"{"steps": [{"path": {"from": {"latitude": 1, "longitude": 2}, "to": {"latitude": 1, "longitude": 3}, "count": 2, "interval": 1, "mode": 4}}]}"#,
            "steps[0].path.mode"
        ),
        (
            #"{"steps": [{"path": {"from": {"latitude": 1, "longitude": 2}, "to": {"latitude": 1, "longitude": 3}, "count": 2, "interval": 1, "speedy": 4}}]}"#,
            "steps[0].path.speedy"
        ),
        (#"{"steps": [{"authorization": {"status": "maybe"}}]}"#, "steps[0].authorization.status: must be one of"),
        (#"{"steps": [{"authorization": {}}]}"#, "steps[0].authorization.status: is required"),
        (
            #"{"steps": [{"authorization": {"status": "authorized", "accuracy": "fine"}}]}"#,
            "steps[0].authorization.accuracy"
        ),
        (#"{"steps": [{"wait": 1}, {"wait": 2}, {"fix": 7}]}"#, "steps[2].fix: must be an object, not number"),
    ])
    func errorsNameTheJSONPath(text: String, message: String) {
        do {
            let scenario = try parse(text)
            Issue.record("accepted: \(scenario)")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test func notJSON() {
        #expect(throws: ScenarioError.self) { try parse("{steps: []") }
        do {
            _ = try parse("{steps: []")
        } catch {
            #expect(error.description.hasPrefix("not valid JSON"))
        }
    }

    @Test func loadNamesTheFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "petspot-scenario-\(UUID().uuidString).json"
        ).path
        try Data(#"{"steps": [{"wait": -2}]}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try Scenario.load(contentsOf: path)
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("\(path): steps[0].wait"), "\(error.description)")
        }
        do {
            _ = try Scenario.load(contentsOf: path + ".missing")
            Issue.record("missing file accepted")
        } catch {
            #expect(error.description.contains(path + ".missing"))
        }
    }

    @Test func scriptedFixDefaults() {
        let twoD = ScriptedFix(latitude: 1, longitude: 2).makeFix()
        #expect(twoD.mode == .twoD)
        #expect(twoD.source == .simulated)
        #expect(twoD.timestamp != nil)
        let threeD = ScriptedFix(latitude: 1, longitude: 2, altitude: 50).makeFix()
        #expect(threeD.mode == .threeD)
        #expect(threeD.altitude == 50)
    }
}
