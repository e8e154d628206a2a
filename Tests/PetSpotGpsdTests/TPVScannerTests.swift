import Foundation
import TestSupport
import Testing

@testable import PetSpotGpsd

/// ``TPVScanner``, the reader's one-pass TPV decode, held to the strict
/// path (``GpsdReport/init(strictLine:)``): on gpsd 3.22's own TPV lines for
/// the real captures it decides every line and gives the strict report;
/// on hostile and mutated lines it either gives the strict report or leaves
/// the line to the strict path, never a report the strict path refuses.
@Suite("the one-pass TPV scanner against the strict path", .timeLimit(.minutes(2)))
struct TPVScannerTests {
    /// gpsd 3.22's TPV lines for the captures in ../shared/gps-logs (a
    /// sample of each replay, `Tests/Fixtures/gpsd-tpv-lines.txt` says how made).
    static let captured: [[UInt8]] = {
        let path = RepositoryPaths.root + "/Tests/Fixtures/gpsd-tpv-lines.txt"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").filter { $0.hasPrefix("{") }.map { Array($0.utf8) }
    }()

    /// Every field alike, bit for bit (NaN as NaN).
    static func identical(_ a: GpsdReport, _ b: GpsdReport) -> Bool {
        let reals: [(GpsdReport) -> Double] = [
            \.latitude, \.longitude, \.altitudeHAE, \.altitudeMSL, \.geoidSeparation, \.eph, \.epx, \.epy, \.epv,
            \.speed, \.track,
        ]
        return a.mode == b.mode && a.timeSeconds == b.timeSeconds && a.timeNanoseconds == b.timeNanoseconds
            && a.device == b.device
            && reals.allSatisfy { $0(a).bitPattern == $0(b).bitPattern || ($0(a).isNaN && $0(b).isNaN) }
    }

    static func scan(_ line: [UInt8]) -> GpsdReport? { line.withUnsafeBytes { TPVScanner.report($0) } }

    /// The scanner's verdict on `line` is the strict path's, or it leaves the line to it.
    static func agrees(_ line: [UInt8]) -> Bool {
        guard let scanned = scan(line) else { return true }
        guard let strict = try? GpsdReport(strictLine: line) else { return false }
        return identical(scanned, strict)
    }

    @Test func decidesEveryCapturedTPVAsTheStrictPathDoes() throws {
        try #require(Self.captured.count > 400, "gpsd's TPV lines in Tests/Fixtures/gpsd-tpv-lines.txt")
        for line in Self.captured {
            let text = String(decoding: line, as: UTF8.self)
            let scanned = try #require(Self.scan(line), "left to the strict path: \(text)")
            let strict = try GpsdReport(strictLine: line)
            #expect(Self.identical(scanned, strict), "\(text)")
            // And through the entry point the reader uses, with gpsd's \r\n.
            let viaLine = try GpsdReport(line: line + [0x0D, 0x0A])
            #expect(Self.identical(viaLine, strict), "\(text)")
        }
    }

    @Test(
        arguments: [
            // Left to the strict path, which accepts them.
            #"{"class":"TPV", "mode":2,"lat":1,"lon":2}"#,  // whitespace between tokens
            #"{"class":"TPV","device":"a\/b","mode":2}"#,  // an escape
            #"{"class":"TPV","device":"/dev/gps\#u{e9}","mode":2}"#,  // UTF-8
            #"{"class":"TPV","unknown":true,"mode":2}"#,
            #"{"class":"TPV","unknown":{"lat":5},"mode":2,"lat":1}"#,
            #"{"mode":2,"class":"TPV","lat":1}"#,  // class not first
            // Left to the strict path, which rejects them.
            #"{"class":"TPV","mode":2,"mode":3}"#,  // duplicates
            #"{"class":"TPV","x":1,"x":2}"#,
            #"{"class":"TPV","class":"SKY"}"#,
            #"{"class":"TPV","mode":2.5}"#,
            #"{"class":"TPV","status":4294967298}"#,
            #"{"class":"TPV","mode":"2"}"#,
            #"{"class":"TPV","lat":"1"}"#,
            #"{"class":"TPV","device":7}"#,
            #"{"class":"TPV","mode":2,"lat":1"#,  // truncated
            #"{"class":"TPV","mode":2,"lat":01}"#,
            #"{"class":"TPV","mode":2,"lat":1e999}"#,
            #"{"class":"TPV","mode":2,"lat":-}"#,
            #"{"class":"TPV","mode":2,"lat":NaN}"#,
            #"{"class":"TPV","mode":2,}"#,
            #"{"class":"TPV","mode":2}x"#,
            #"{"class":"TPV""#,
            "{\"class\":\"TPV\",\"device\":\"a\u{01}b\"}",  // a raw control character
            "{\"class\":\"TPV\",\"device\":\"\(String(repeating: "d", count: 128))\"}",
            "{\"class\":\"TPV\",\"time\":\"\(String(repeating: "1", count: 512))\"}",
        ])
    func hostileLinesAreLeftToTheStrictPath(_ line: String) {
        #expect(Self.scan(Array(line.utf8)) == nil, "\(line)")
    }

    @Test(
        arguments: [
            #"{"class":"TPV"}"#,
            #"{"class":"TPV","mode":3,"lat":-1e308,"lon":2.2250738585072014e-308,"eph":-0.0,"track":1E+2}"#,
            #"{"class":"TPV","":1,"jam":"x","mode":2,"lat":5e-324,"lon":-1e-310}"#,
            #"{"class":"TPV","mode":-2147483648,"status":2147483647,"leapseconds":18.0}"#,
            #"{"class":"TPV","time":"2026-01-01T12:00:11.123456789Z","device":"tcp://127.0.0.1:4000"}"#,
            #"{"class":"TPV","time":"noon","mode":2}  "#,
            "{\"class\":\"TPV\",\"device\":\"\(String(repeating: "d", count: 127))\"}\r\n",
            "{\"class\":\"TPV\",\"time\":\"\(String(repeating: "1", count: 511))\"}",
        ])
    func oddButPlainLinesAreDecidedAlike(_ line: String) throws {
        let bytes = Array(line.utf8)
        let scanned = try #require(Self.scan(bytes), "\(line)")
        #expect(Self.identical(scanned, try GpsdReport(strictLine: bytes)), "\(line)")
    }

    /// Every captured line, cut at every byte, and with each byte replaced
    /// by each byte that matters to the grammar: the scanner never takes a
    /// line the strict path refuses, and never reads one otherwise.
    @Test func mutatedCapturedLinesAgree() throws {
        try #require(!Self.captured.isEmpty)
        let replacements = Array(#"",:{}[]\ -+.eE0179tnu"#.utf8) + [0x00, 0x0A, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        var checked = 0
        for (number, line) in Self.captured.enumerated() where number % 80 == 0 {
            for cut in 0..<line.count {
                #expect(Self.agrees(Array(line[..<cut])), "\(String(decoding: line[..<cut], as: UTF8.self))")
            }
            for position in 0..<line.count {
                for byte in replacements where byte != line[position] {
                    var mutated = line
                    mutated[position] = byte
                    if !Self.agrees(mutated) {
                        Issue.record("disagree: \(String(decoding: mutated, as: UTF8.self))")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 10_000)
    }

    /// Random lines built from gpsd's members and tokens (a fixed seed).
    @Test func randomMemberSoupAgrees() {
        var random = SplitMix(seed: 40)
        let names = Array(GpsdReport.tpvMembers.keys).sorted() + ["class", "x", "", "Lat", "modes"]
        let values = [
            "1", "-0", "2.5", "1e3", "1E-400", "1e400", "01", "\"TPV\"", "\"\"", "\"a\\\"b\"", "true", "null", "[]",
            "{}",
            "2147483648", "-2147483649", "3.0", "\"2026-01-01T00:00:00Z\"", "-", "1.", ".5",
        ]
        for _ in 0..<5_000 {
            var line = #"{"class":"TPV""#
            for _ in 0..<random.next(upTo: 8) {
                line += ",\"\(names[random.next(upTo: names.count)])\":\(values[random.next(upTo: values.count)])"
            }
            line += random.next(upTo: 10) == 0 ? "" : "}"
            #expect(Self.agrees(Array(line.utf8)), "\(line)")
        }
    }
}
