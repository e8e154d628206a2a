import PetSpotGpsd
import PetSpotLocation
import Testing

/// ``GpsdReport/init(line:)``: raw gpsd lines through libgps's parser, the
/// path the gpsd fuzz target drives.
@Suite("gpsd lines to reports")
struct GpsdReportLineTests {
    @Test func tpvLineGivesAFix() throws {
        let line = #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"lat":-37.78,"lon":175.31,"altMSL":59.9,"eph":5.0}"#
        let report = try GpsdReport(line: Array(line.utf8))
        #expect(report.device == "/dev/ttyUSB0")
        guard case .fix(let fix) = report.outcome(receivedAt: .now) else {
            Issue.record("no fix")
            return
        }
        #expect(fix.coordinate.latitude == -37.78)
        #expect(fix.mode == .threeD)
        #expect(fix.horizontalAccuracy == 5.0)
    }

    @Test func otherLinesAreRefused() {
        #expect(throws: GpsdReport.LineProblem.notTPV) {
            try GpsdReport(line: Array(#"{"class":"SKY","satellites":[]}"#.utf8))
        }
        #expect(throws: GpsdReport.LineProblem.truncated) {
            try GpsdReport(line: Array(#"{"class":"TPV","mode":3,"lat":1"#.utf8))
        }
    }
}
