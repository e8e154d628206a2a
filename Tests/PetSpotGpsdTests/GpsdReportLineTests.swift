import PetSpotLocation
import Testing

@testable import PetSpotGpsd

/// ``GpsdReport/init(line:)``: raw gpsd lines through the strict check and
/// the one-pass decode the reader uses, held to libgps's own parser on the
/// canonical TPV (``GpsdReport/init(decodingWithLibgps:)``); the gpsd fuzz
/// target drives both too.
@Suite("gpsd lines to reports", .timeLimit(.minutes(1)))
struct GpsdReportLineTests {
    static func canonical(_ line: String) throws(GpsdReport.LineProblem) -> String {
        String(decoding: GpsdReport.canonicalTPV(try GpsdReport.checkedTPV(Array(line.utf8))), as: UTF8.self)
    }

    /// What `GpsdReport(line:)` throws for `bytes`, `nil` when it decodes.
    static func problem(_ bytes: [UInt8]) -> GpsdReport.LineProblem? {
        do {
            _ = try GpsdReport(line: bytes)
            return nil
        } catch {
            return error
        }
    }

    static func isRejected(_ bytes: [UInt8]) -> Bool {
        if case .rejected? = problem(bytes) { return true }
        return false
    }

    @Test func tpvLineGivesAFix() throws {
        let line =
            #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"lat":-37.78,"lon":175.31,"altMSL":59.9,"eph":5.0}"#
        let report = try GpsdReport(line: Array(line.utf8))
        #expect(report.device == "/dev/ttyUSB0")
        guard case .fix(let fix) = report.outcome(receivedAt: .now) else {
            Issue.record("no fix")
            return
        }
        #expect(fix.coordinate.latitude == -37.78)
        #expect(fix.mode == .threeD)
        #expect(fix.horizontalAccuracy == 5.0)
        #expect(fix.altitude == 59.9)
    }

    @Test func gpsdsOwnLineKeepsEveryValue() throws {
        // gpsd 3.22's TPV for the synthetic receiver, as it writes it (with its \r\n).
        let line =
            #"{"class":"TPV","device":"tcp://127.0.0.1:4000","mode":3,"time":"2026-01-01T12:00:11.000Z","ept":0.005,"lat":52.229700000,"lon":21.012200000,"altHAE":130.0000,"altMSL":100.0000,"alt":100.0000,"track":12.5000,"magvar":6.1,"speed":0.000,"geoidSep":30.000,"eph":17.100,"sep":31.000}"#
            + "\r\n"
        let report = try GpsdReport(line: Array(line.utf8))
        #expect(report.device == "tcp://127.0.0.1:4000")
        #expect(report.mode == 3)
        #expect(report.latitude == 52.2297 && report.longitude == 21.0122)
        #expect(report.altitudeHAE == 130 && report.altitudeMSL == 100 && report.geoidSeparation == 30)
        #expect(report.eph == 17.1 && report.speed == 0 && report.track == 12.5)
        #expect(report.timeSeconds == 1_767_268_811 && report.timeNanoseconds == 0)
    }

    @Test func otherClassesAreSkippedAndBrokenLinesRejected() {
        #expect(throws: GpsdReport.LineProblem.notTPV) {
            try GpsdReport(line: Array(#"{"class":"SKY","satellites":[]}"#.utf8))
        }
        #expect(throws: GpsdReport.LineProblem.notTPV) {
            try GpsdReport(line: Array(#"{"class":"VERSION","release":"3.22","proto_major":3}"#.utf8))
        }
        for line in [
            #"{"class":"TPV","mode":3,"lat":1"#,  // truncated
            #"{"class":"TPV","mode":3,"lat":NaN,"lon":2}"#,  // not JSON
            #"{"class":"TPV","mode":3,"lat":1,"lon":2,"class":"TPV"}"#,  // duplicate member
            #"{"mode":3,"lat":1,"lon":2}"#,  // no class
            #"["class","TPV"]"#,
            "",
        ] {
            #expect(Self.isRejected(Array(line.utf8)), "\(line)")
        }
    }

    /// A line gpsd begins with another class than TPV is skipped without a
    /// parse (a SKY line is most of the reader's work per fix otherwise);
    /// one that names TPV first, or begins otherwise, is parsed in full, so
    /// a second `class` never smuggles a TPV past the strict check.
    @Test func anotherClassNamedFirstIsSkippedUnparsed() {
        // Not JSON after the class: skipped all the same (never decoded).
        #expect(throws: GpsdReport.LineProblem.notTPV) {
            try GpsdReport(line: Array(#"{"class":"SKY","satellites":[{"PRN":1,"#.utf8))
        }
        #expect(GpsdReport.namesAnotherClassFirst(Array(#"{"class":"SKY","x":1}"#.utf8)))
        #expect(GpsdReport.namesAnotherClassFirst(Array(#"{"class":"PPS"}"#.utf8)))
        for line in [
            #"{"class":"TPV","mode":3}"#,  // TPV: parsed
            #"{"class":"SKY","class":"TPV","mode":3,"lat":1,"lon":2}"#,  // skipped, never a fix
            #"{ "class":"SKY","mode":3}"#,  // another beginning: parsed
            #"{"class":"S\u004bY","mode":3}"#,  // an escape: parsed
            #"{"class":"SKY"x}"#,  // no comma or brace after the name: parsed
            #"{"class":"","mode":3}"#,
        ] {
            let skipped = GpsdReport.namesAnotherClassFirst(Array(line.utf8))
            #expect(skipped == line.hasPrefix(#"{"class":"SKY","#), "\(line)")
        }
        // The duplicate class is skipped by name, never decoded: no report comes of it.
        #expect(throws: GpsdReport.LineProblem.notTPV) {
            try GpsdReport(line: Array(#"{"class":"SKY","class":"TPV","mode":3,"lat":1,"lon":2}"#.utf8))
        }
        // Named TPV first, then another class: the strict parser refuses the duplicate.
        #expect(Self.isRejected(Array(#"{"class":"TPV","class":"SKY","mode":3,"lat":1,"lon":2}"#.utf8)))
    }

    @Test(
        arguments: [
            // (line, canonical TPV or nil when rejected)
            (#"{"class":"TPV","mode":2,"lat":1.5,"lon":2}"#, #"{"class":"TPV","lat":1.5,"lon":2,"mode":2}"#),
            // Unknown members are dropped, whatever their value.
            (
                #"{"lon":2,"jam":5,"x":{"class":"TPV"},"class":"TPV","mode":2,"lat":1}"#,
                #"{"class":"TPV","lat":1,"lon":2,"mode":2}"#
            ),
            // Numbers are written afresh; integers must be whole.
            (
                #"{"class":"TPV","mode":3.0,"lat":1E-5,"eph":12.500}"#,
                #"{"class":"TPV","eph":12.5,"lat":1e-05,"mode":3}"#
            ),
            (#"{"class":"TPV","mode":2.5}"#, nil),
            (#"{"class":"TPV","status":4294967298}"#, nil),
            // A known member of the wrong type rejects the line.
            (#"{"class":"TPV","mode":"2"}"#, nil),
            (#"{"class":"TPV","mode":2,"lat":{"class":"TPV"}}"#, nil),
            (#"{"class":"TPV","mode":2,"lat":[1]}"#, nil),
            (#"{"class":"TPV","mode":2,"lat":null}"#, nil),
            (#"{"class":"TPV","mode":2,"lat":true}"#, nil),
            (#"{"class":"TPV","device":7}"#, nil),
            // Strings: gpsd's escapes, non-ASCII kept as UTF-8, libgps's length limits.
            (#"{"class":"TPV","device":"a\/b\"c\u00e9\u0001"}"#, #"{"class":"TPV","device":"a/b\"cé\u0001"}"#),
            (
                "{\"class\":\"TPV\",\"device\":\"\(String(repeating: "d", count: 127))\"}",
                "{\"class\":\"TPV\",\"device\":\"\(String(repeating: "d", count: 127))\"}"
            ),
            ("{\"class\":\"TPV\",\"device\":\"\(String(repeating: "d", count: 128))\"}", nil),
            ("{\"class\":\"TPV\",\"datum\":\"\(String(repeating: "d", count: 40))\"}", nil),
            ("{\"class\":\"TPV\",\"time\":\"\(String(repeating: "1", count: 512))\"}", nil),
        ] as [(String, String?)])
    func canonicalTPV(line: String, expected: String?) throws {
        if let expected {
            #expect(try Self.canonical(line) == expected)
        } else {
            #expect(throws: (any Error).self) { try Self.canonical(line) }
        }
    }

    /// Every field of two reports; reals equal, both NaN, within 2 ulps
    /// (libgps's `safe_atof` is not correctly rounded), or both below
    /// 1e-300 (it reads those as 0).
    static func same(_ a: GpsdReport, _ b: GpsdReport) -> Bool {
        let reals: [(GpsdReport) -> Double] = [
            \.latitude, \.longitude, \.altitudeHAE, \.altitudeMSL, \.geoidSeparation, \.eph, \.epx, \.epy, \.epv,
            \.speed, \.track,
        ]
        func close(_ x: Double, _ y: Double) -> Bool {
            x == y || (x.isNaN && y.isNaN) || abs(x - y) <= 2 * max(x.ulp, y.ulp)
                || (abs(x) < 1e-300 && abs(y) < 1e-300)
        }
        return a.mode == b.mode && a.timeSeconds == b.timeSeconds && a.timeNanoseconds == b.timeNanoseconds
            && a.device == b.device && reals.allSatisfy { close($0(a), $0(b)) }
    }

    /// The reader's one-pass decode gives libgps's report for every line:
    /// gpsd's own, every member libgps reads, missing members (NaN, mode
    /// 0), times libgps reads oddly, a NUL in a string (libgps keeps a C
    /// string), unknown members. A line one refuses, the other refuses
    /// alike. Numbers agree to libgps's rounding (``same(_:_:)``).
    @Test func theOnePassDecodeAgreesWithLibgps() throws {
        let members =
            #""mode":3,"lat":-12.5,"lon":-45.25,"altHAE":130.25,"altMSL":100.5,"geoidSep":30,"eph":17.1,"epx":3.5,"#
            + #""epy":4.25,"epv":9.5,"speed":0.75,"track":359.5,"status":2,"leapseconds":18,"ept":0.005"#
        var lines = [
            #"{"class":"TPV","device":"tcp://127.0.0.1:4000","mode":3,"time":"2026-01-01T12:00:11.000Z","ept":0.005,"lat":52.229700000,"lon":21.012200000,"altHAE":130.0000,"altMSL":100.0000,"alt":100.0000,"track":12.5000,"magvar":6.1,"speed":0.000,"geoidSep":30.000,"eph":17.100,"sep":31.000}"#,
            "{\"class\":\"TPV\",\(members)}",
            "{\(members),\"class\":\"TPV\",\"device\":\"/dev/ttyACM0\"}",
            #"{"class":"TPV"}"#,
            #"{"class":"TPV","alt":12.5,"lat":1,"lon":2,"mode":3}"#,
            #"{"class":"TPV","mode":-1,"lat":-1e308,"lon":2.2250738585072014e-308,"eph":-0.0}"#,
            #"{"class":"TPV","device":"a\u0000b","mode":2,"lat":1,"lon":2}"#,
            #"{"class":"TPV","unknown":{"lat":5,"x":[1,{"y":null}]},"mode":2,"lat":1,"lon":2}"#,
        ]
        for time in [
            "2026-01-01T12:00:11.000Z", "2026-01-01T12:00:11.5Z", "2026-01-01T12:00:11Z",
            "2026-01-01T12:00:11.123456789Z",
            "1999-08-21T23:59:59.999Z", "2038-01-19T03:14:08.000Z", "2026-02-30T25:61:61.0Z", "2026-01-01", "noon", "",
            "2026-01-01T12:00:11.Z", "2026-01-01T12:00:11.5e3Z", #"2026-01-01T12:00:11.5\u0000Z"#,
        ] {
            lines.append(#"{"class":"TPV","mode":2,"lat":1,"lon":2,"time":""# + time + #""}"#)
        }
        for line in lines {
            let libgps = try GpsdReport(decodingWithLibgps: Array(line.utf8))
            let onePass = try GpsdReport(line: Array(line.utf8))
            #expect(Self.same(onePass, libgps), "\(line): \(onePass) vs libgps \(libgps)")
        }
        // Where they part: libgps reads a number below about 1e-307 as 0; it is kept here.
        let tiny = Array(#"{"class":"TPV","mode":2,"lat":5e-324,"lon":-1e-310}"#.utf8)
        let (kept, flushed) = (try GpsdReport(line: tiny), try GpsdReport(decodingWithLibgps: tiny))
        #expect(kept.latitude == .leastNonzeroMagnitude && kept.longitude < 0)
        #expect(flushed.latitude == 0 && flushed.longitude == 0)
        for line in [#"{"class":"TPV","mode":"2"}"#, #"{"class":"TPV","mode":2,"lat":1"#, #"{"class":"SKY"}"#] {
            #expect(Self.problem(Array(line.utf8)) != nil)
            #expect(throws: (any Error).self) { try GpsdReport(decodingWithLibgps: Array(line.utf8)) }
        }
    }

    @Test func nonASCIIDevicePathSurvivesLibgps() throws {
        // gpsd 3.22 writes non-ASCII path bytes as raw UTF-8.
        let line = #"{"class":"TPV","device":"/dev/gps\#u{e9}\#u{20ac}","mode":2,"lat":1,"lon":2}"#
        #expect(try GpsdReport(line: Array(line.utf8)).device == "/dev/gps\u{e9}\u{20ac}")
    }

    /// Each input that hung libgps 3.22 (`Fuzz/Corpus/gpsd/regression-libgps-*`)
    /// now ends, rejected, before libgps sees it.
    @Test func libgpsHangInputsAreRejected() throws {
        try #require(GpsdRegressions.names.count == 3, "regression inputs in \(GpsdRegressions.directory)")
        for name in GpsdRegressions.names {
            let bytes = try GpsdRegressions.bytes(name)
            #expect(Self.isRejected(bytes), "\(name)")
        }
    }

    /// Valid lines close to the hang inputs: libgps reads their canonical
    /// form to the end. Raw, a member name over 31 bytes made libgps 3.22
    /// stop there (and loop when a `"class":` followed).
    @Test func validLinesNearTheHangInputsDecodeFully() throws {
        let repaired = [
            #"{"class":"TPV","device":"/dev/ttyUSStringB1","mode":2,"lat":-37.78,"dev":175.31,"epx":10.0,"epy":12.0}"#,
            "{\"class\":\"TPV\",\"\(String(repeating: "#", count: 37))mode\":2,\"lat\":8,\"lon\":1,\"\(String(repeating: "#", count: 32))eph\":12}",
        ]
        let first = try GpsdReport(line: Array(repaired[0].utf8))
        #expect(first.mode == 2 && first.latitude == -37.78 && first.epx == 10 && first.epy == 12)
        let second = try GpsdReport(line: Array(repaired[1].utf8))
        #expect(second.mode == 0 && second.latitude == 8 && second.longitude == 1 && second.eph.isNaN)
    }
}
