/// A receiver time in UTC, kept as seconds since the Unix epoch.
///
/// The core module stays free of Foundation: formatting and parsing of
/// ISO 8601 (`2019-04-07T12:00:01.500Z`) is done here with civil-date
/// arithmetic, always in UTC.
public struct UTCTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var secondsSince1970: Double

    /// Creates a timestamp from seconds since the epoch.
    public init(secondsSince1970: Double) { self.secondsSince1970 = secondsSince1970 }

    public static func < (lhs: UTCTimestamp, rhs: UTCTimestamp) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }

    /// The civil date and time in UTC, to the nearest millisecond.
    public struct Fields: Sendable, Hashable {
        public var year: Int64
        public var month: Int64
        public var day: Int64
        public var hour: Int64
        public var minute: Int64
        public var second: Int64
        public var millisecond: Int64
    }

    /// This time's civil date and time in UTC.
    public var fields: Fields {
        // To the nearest millisecond: a parsed "…00.035Z" is 0.034999… s, and
        // rounding down would print it back as ".034".
        let totalMillis = Int64((secondsSince1970 * 1000).rounded())
        var days = totalMillis / 86_400_000
        var millisOfDay = totalMillis % 86_400_000
        if millisOfDay < 0 {
            millisOfDay += 86_400_000
            days -= 1
        }
        let (year, month, day) = UTCTimestamp.civil(fromDays: days)
        return Fields(
            year: year, month: month, day: day, hour: millisOfDay / 3_600_000, minute: millisOfDay / 60_000 % 60,
            second: millisOfDay / 1000 % 60, millisecond: millisOfDay % 1000)
    }

    /// ISO 8601 in UTC with a `Z` suffix; milliseconds (to the nearest) only when non-zero.
    public var iso8601: String {
        let fields = self.fields
        guard (0...9999).contains(fields.year) else { return Self.wideYearText(fields) }
        return String(unsafeUninitializedCapacity: 24) { Self.writeDigits(fields, into: $0) }
    }

    /// Appends ``iso8601``'s UTF-8 bytes to `output`, without a `String`
    /// (a serializer writes one for every fix it sends; the text needs no
    /// JSON escape).
    public func appendISO8601(to output: inout [UInt8]) {
        let fields = self.fields
        guard (0...9999).contains(fields.year) else {
            output.append(contentsOf: Self.wideYearText(fields).utf8)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            let count = Self.writeDigits(fields, into: buffer)
            output.append(contentsOf: UnsafeMutableBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// The text for a year outside 0...9999 (any width, a sign when negative).
    private static func wideYearText(_ fields: Fields) -> String {
        var text = "\(pad(fields.year, 4))-\(pad(fields.month, 2))-\(pad(fields.day, 2))T\(pad(fields.hour, 2))"
        text += ":\(pad(fields.minute, 2)):\(pad(fields.second, 2))"
        if fields.millisecond != 0 { text += ".\(pad(fields.millisecond, 3))" }
        return text + "Z"
    }

    /// Writes a four-digit year's text into `buffer` (24 bytes at least):
    /// digits into one small buffer, as this runs for every fix sent.
    /// - Returns: the bytes written.
    private static func writeDigits(_ fields: Fields, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var index = 0
        func put(_ value: Int64, _ width: Int) {
            var value = value
            for offset in stride(from: width - 1, through: 0, by: -1) {
                buffer[index + offset] = UInt8(truncatingIfNeeded: 48 + value % 10)
                value /= 10
            }
            index += width
        }
        func put(_ byte: UInt8) {
            buffer[index] = byte
            index += 1
        }
        put(fields.year, 4)
        put(UInt8(ascii: "-"))
        put(fields.month, 2)
        put(UInt8(ascii: "-"))
        put(fields.day, 2)
        put(UInt8(ascii: "T"))
        put(fields.hour, 2)
        put(UInt8(ascii: ":"))
        put(fields.minute, 2)
        put(UInt8(ascii: ":"))
        put(fields.second, 2)
        if fields.millisecond != 0 {
            put(UInt8(ascii: "."))
            put(fields.millisecond, 3)
        }
        put(UInt8(ascii: "Z"))
        return index
    }

    public var description: String { iso8601 }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff…]Z`; anything else gives `nil`.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let byte = bytes[index]
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...UTCTimestamp.daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21 else { return nil }
            var scale = 0.1
            for index in 20..<(bytes.count - 1) {
                let byte = bytes[index]
                guard (48...57).contains(byte) else { return nil }
                fraction += Double(byte - 48) * scale
                scale /= 10
            }
        } else if bytes.count != 20 {
            return nil
        }
        let days = UTCTimestamp.days(fromCivil: year, month, day)
        secondsSince1970 = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
    }

    /// The number of days of `month` (1-12) in `year` (proleptic Gregorian).
    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (month <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, month, day)
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
