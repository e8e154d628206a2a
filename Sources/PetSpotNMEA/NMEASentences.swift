import PetSpotLocation

/// A fix as NMEA 0183 sentences (talker `GP`), for consumers that read a
/// receiver's output: GeoClue's `nmea-socket` source, gpsd, anything that
/// speaks NMEA. Each sentence is `$…*HH\r\n` with its XOR checksum.
///
/// - `GGA`: time, position, quality 1, HDOP, altitude (3D fixes). GeoClue
///   reads only this one, and turns HDOP into its accuracy by steps (≤ 1: 0 m,
///   ≤ 2: 1 m, ≤ 5: 3 m, ≤ 10: 50 m, ≤ 20: 100 m, else 300 m); the HDOP
///   written is the smallest whose step is no better than the fix's
///   horizontal accuracy (``hdop(forAccuracy:)``), so no consumer is told
///   the position is better than it is. An unknown accuracy is HDOP 99.9.
/// - `RMC`: time and date, status A, position, speed (knots) and course when known.
/// - `GSA`: the fix's mode (2D/3D) and the same HDOP.
///
/// Positions are written to 1/10 000 of a minute (about 0.2 m), as
/// receivers do; a reduced fix is written as it was reduced.
public enum NMEASentences {
    /// The sentences for `fix`, GGA first; a fix without a receiver time is stamped `now`.
    public static func sentences(for fix: LocationFix, now: UTCTimestamp) -> [String] {
        let fields = (fix.timestamp ?? now).fields
        let time = "\(pad(fields.hour))\(pad(fields.minute))\(pad(fields.second)).\(pad(fields.millisecond / 10))"
        let date = "\(pad(fields.day))\(pad(fields.month))\(pad(fields.year % 100))"
        let (latitude, north) = angle(fix.coordinate.latitude, degreeDigits: 2, positive: "N", negative: "S")
        let (longitude, east) = angle(fix.coordinate.longitude, degreeDigits: 3, positive: "E", negative: "W")
        let hdop = hdop(forAccuracy: fix.horizontalAccuracy)
        let altitude = fix.mode == .threeD ? fix.altitude.map { decimal($0, places: 1) } ?? "" : ""
        let speed = fix.speed.map { decimal($0 * 3600 / 1852, places: 2) } ?? ""
        let course = fix.course.map { decimal($0, places: 1) } ?? ""
        return [
            sentence("GPGGA,\(time),\(latitude),\(north),\(longitude),\(east),1,,\(hdop),\(altitude),M,,M,,"),
            sentence("GPRMC,\(time),A,\(latitude),\(north),\(longitude),\(east),\(speed),\(course),\(date),,,A"),
            // Mode, twelve satellite slots (unknown), PDOP, HDOP, VDOP.
            sentence(
                (["GPGSA", "A", fix.mode == .threeD ? "3" : "2"] + Array(repeating: "", count: 13) + [hdop, ""])
                    .joined(separator: ",")),
        ]
    }

    /// The HDOP written for a horizontal accuracy in metres (see the type's description).
    public static func hdop(forAccuracy accuracy: Double?) -> String {
        guard let accuracy, accuracy.isFinite else { return "99.9" }
        switch accuracy {
        case ...0: return "1.0"
        case ...1: return "2.0"
        case ...3: return "5.0"
        case ...50: return "10.0"
        case ...100: return "20.0"
        default: return "99.9"
        }
    }

    /// `$body*HH\r\n`.
    public static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        let hex = String(checksum, radix: 16, uppercase: true)
        return "$\(body)*\(hex.count == 1 ? "0" + hex : hex)\r\n"
    }

    /// `ddmm.mmmm` (or `dddmm.mmmm`) and the hemisphere letter.
    static func angle(_ degrees: Double, degreeDigits: Int, positive: String, negative: String) -> (String, String) {
        // In units of 1/10 000 minute, rounded once: no "60.0000" minutes.
        let units = Int64((abs(degrees) * 600_000).rounded())
        let whole = units / 600_000
        let minutes = units % 600_000
        let text = pad(whole, degreeDigits) + pad(minutes / 10_000, 2) + "." + pad(minutes % 10_000, 4)
        return (text, degrees < 0 ? negative : positive)
    }

    /// `value` with exactly `places` decimals.
    static func decimal(_ value: Double, places: Int) -> String {
        var scale: Double = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = Int64((abs(value) * scale).rounded())
        let divisor = Int64(scale)
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return "\(sign)\(scaled / divisor).\(pad(scaled % divisor, places))"
    }

    static func pad(_ value: Int64, _ width: Int = 2) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
