import CLibGPS
import PetSpotJSON

import Glibc

extension GpsdReport {
    /// Why a gpsd line gave no report.
    public enum LineProblem: Error, Sendable, Equatable {
        /// Another class than TPV (VERSION, DEVICES, WATCH, SKY, ERROR, …):
        /// valid JSON of that class, or a line that names it first as gpsd
        /// writes (``namesAnotherClassFirst(_:)``, skipped unparsed). The
        /// source does not need it and skips it.
        case notTPV
        /// Not usable, with the reason: not strict JSON (truncated, duplicate
        /// member names, …), no `class`, or a TPV with a member of the wrong
        /// type or too long for libgps. The reader counts it as rejected.
        case rejected(String)
    }

    /// Decodes one raw gpsd line the way the reader does, as the strict
    /// path reads it (``init(strictLine:)``: our strict JSON parser's tree,
    /// in one pass over it): the TPV's members are type- and
    /// length-checked against libgps 3.22's table (``tpvMembers``) and read
    /// the way libgps reads them (``init(members:)``); the values are
    /// libgps's (``init(decodingWithLibgps:)``, its own parser, gives the
    /// same report for every line: `GpsdReportLineTests` and the gpsd fuzz
    /// target check the two against each other).
    ///
    /// libgps's parser never sees a line from the socket: its 3.22 parser
    /// loops forever on some lines (docs/ROBUSTNESS.md), and the canonical
    /// re-serialization it needed cost more than the rest of a fix's path
    /// (issue 28).
    ///
    /// A TPV line as gpsd writes it is decided by ``TPVScanner`` in one pass
    /// without a tree (issue 40); any other line takes the strict path
    /// (``init(strictLine:)``), which gives the same report for every line
    /// the scanner decides.
    /// - Parameter line: the line's bytes, without or with its trailing `\r\n`.
    /// - Throws: ``LineProblem`` when the line is not a usable TPV report.
    public init(line: some Collection<UInt8>) throws(LineProblem) {
        if let report = line.withContiguousStorageIfAvailable({ TPVScanner.report(UnsafeRawBufferPointer($0)) }) ?? nil
        {
            self = report
            return
        }
        try self.init(strictLine: line)
    }

    /// ``init(line:)`` by the strict path alone: our strict JSON parser's
    /// tree, checked (``checkedTPV(_:)``) and read (``init(members:)``). The
    /// reference ``TPVScanner`` is held to.
    /// - Throws: ``LineProblem`` when the line is not a usable TPV report.
    public init(strictLine line: some Collection<UInt8>) throws(LineProblem) {
        try self.init(members: Self.checkedTPV(line))
    }

    /// Decodes one raw gpsd line with libgps's own parser (`gps_unpack`),
    /// given only the canonical re-serialization of the checked TPV
    /// (``canonicalTPV(_:)``), then copies `gps_data_t` out. The reference
    /// ``init(line:)`` is held to, in tests and in the fuzz target: the
    /// reader does not use it.
    /// - Throws: ``LineProblem`` when the line is not a usable TPV report.
    public init(decodingWithLibgps line: some Collection<UInt8>) throws(LineProblem) {
        let canonical = Self.canonicalTPV(try Self.checkedTPV(line))
        // gps_unpack wants a mutable NUL-terminated C string.
        var text = canonical.map { CChar(bitPattern: $0) }
        text.append(0)
        let data = UnsafeMutablePointer<gps_data_t>.allocate(capacity: 1)
        defer { data.deallocate() }
        memset(data, 0, MemoryLayout<gps_data_t>.size)
        _ = gps_unpack(&text, data)
        self.init(UnsafePointer(data))
    }

    /// Reads checked TPV members as libgps 3.22's `json_tpv_read` does:
    /// members it does not know are ignored, a missing real is NaN, a
    /// missing `mode` is 0 (not seen), a missing `time` is 0, a string is
    /// cut at its first NUL byte (a C string), and `time` is read as libgps
    /// reads it (``libgpsTime(_:)``).
    init(members: [String: JSONValue]) {
        self.init(mode: 0)
        for (key, member) in members {
            guard let field = Self.fields[key] else { continue }
            switch member {
            case .number(let number): set(field, number: number)
            case .string(let text):
                var text = text
                text.withUTF8 { set(field, text: UnsafeRawBufferPointer($0)) }
            default: break
            }
        }
    }

    /// The TPV members a report keeps (the rest are checked, then ignored).
    enum Field {
        case mode, latitude, longitude, altitudeHAE, altitudeMSL, geoidSeparation, eph, epx, epy, epv, speed, track
        case device, time
    }

    /// Which member fills which field: the one table ``init(members:)`` and ``TPVScanner`` read.
    static let fields: [String: Field] = [
        "mode": .mode, "lat": .latitude, "lon": .longitude, "altHAE": .altitudeHAE, "altMSL": .altitudeMSL,
        "geoidSep": .geoidSeparation, "eph": .eph, "epx": .epx, "epy": .epy, "epv": .epv, "speed": .speed,
        "track": .track, "device": .device, "time": .time,
    ]

    /// Sets a numeric field (a checked member's number; another field is left alone).
    mutating func set(_ field: Field, number: Double) {
        switch field {
        case .mode: mode = Int(number)
        case .latitude: latitude = number
        case .longitude: longitude = number
        case .altitudeHAE: altitudeHAE = number
        case .altitudeMSL: altitudeMSL = number
        case .geoidSeparation: geoidSeparation = number
        case .eph: eph = number
        case .epx: epx = number
        case .epy: epy = number
        case .epv: epv = number
        case .speed: speed = number
        case .track: track = number
        case .device, .time: break
        }
    }

    /// Sets a text field from a checked member's UTF-8 bytes, cut at the
    /// first NUL as libgps's C string is (a numeric field is left alone).
    mutating func set(_ field: Field, text: UnsafeRawBufferPointer) {
        let text = UnsafeRawBufferPointer(rebasing: text[..<(text.firstIndex(of: 0) ?? text.endIndex)])
        switch field {
        case .device: device = String(decoding: text, as: UTF8.self)
        case .time: (timeSeconds, timeNanoseconds) = Self.libgpsTime(text)
        default: break
        }
    }

    /// A gpsd time (UTF-8 bytes without a NUL) as libgps 3.22 reads it: by
    /// libgps's own `iso8601_to_timespec`, given a NUL-terminated copy on the stack.
    /// - Returns: seconds since the epoch and nanoseconds.
    static func libgpsTime(_ bytes: UnsafeRawBufferPointer) -> (seconds: Int, nanoseconds: Int) {
        if let time = canonicalTime(bytes) { return time }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { text in
            for (offset, byte) in bytes.enumerated() { text[offset] = CChar(bitPattern: byte) }
            text[bytes.count] = 0
            let time = iso8601_to_timespec(text.baseAddress!)
            return (Int(time.tv_sec), Int(time.tv_nsec))
        }
    }

    /// The time gpsd writes (`2026-11-29T23:40:01.500Z`: four-digit year
    /// from 1970, two-digit fields in range, no fraction or one of one to
    /// nine digits, `Z` last) read as ``libgpsTime(_:)`` reads it, without
    /// the C library's `strptime` (large and locale-aware, and run cold once
    /// per fix on the reader: issue 40); `nil` for any other text, which
    /// libgps then reads.
    ///
    /// libgps 3.22's `iso8601_to_timespec`: `strptime("%Y-%m-%dT%H:%M:%S")`,
    /// the seconds from gpsd's `mkgmtime` (its arithmetic, below, which does
    /// not check the day against the month), and the nanoseconds as C's
    /// truncation of `strtod(fraction) * 1e9`; with at most nine digits the
    /// fraction's `Double` is one exact division, `strtod`'s value.
    /// `GpsdTimeTests` holds this to libgps itself.
    static func canonicalTime(_ text: UnsafeRawBufferPointer) -> (seconds: Int, nanoseconds: Int)? {
        let count = text.count
        guard count == 20 || (22...30).contains(count), text[count - 1] == UInt8(ascii: "Z") else { return nil }
        func number(_ start: Int, _ width: Int) -> Int? {
            var value = 0
            for index in start..<(start + width) {
                let digit = Int(text[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"), text[10] == UInt8(ascii: "T"),
            text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            year >= 1970, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var nanoseconds = 0
        if count > 20 {
            let places = count - 21
            guard text[19] == UInt8(ascii: "."), let fraction = number(20, places) else { return nil }
            var scale = 1.0
            for _ in 0..<places { scale *= 10 }
            nanoseconds = Int(Double(fraction) / scale * 1e9)
        }
        // gpsd's mkgmtime, for tm_mon = month - 1 (0...11).
        let daysBeforeMonth = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]
        var days = (year - 1970) * 365 + daysBeforeMonth[month - 1]
        days += (year - 1968) / 4 - (year - 1900) / 100 + (year - 1600) / 400
        if year % 4 == 0, year % 100 != 0 || year % 400 == 0, month - 1 < 2 { days -= 1 }
        days += day - 1
        return (((days * 24 + hour) * 60 + minute) * 60 + second, nanoseconds)
    }

    /// The JSON type libgps 3.22 reads a TPV member as.
    enum MemberType {
        /// `t_real`: any finite number.
        case real
        /// `t_integer`: a whole number in `Int32`'s range (libgps would truncate anything else).
        case integer
        /// `t_string` / `t_time`: a string of at most `bytes` UTF-8 bytes
        /// (libgps fails on longer ones, its buffer being one byte larger).
        case string(bytes: Int)
    }

    /// The members of libgps 3.22's TPV (`json_tpv_read` in `libgps_json.c`,
    /// checked against libgps28 3.22 itself), `class` aside.
    static let tpvMembers: [String: MemberType] = {
        var members: [String: MemberType] = [
            "device": .string(bytes: 127),  // dev.path[GPS_PATH_MAX]
            "datum": .string(bytes: 39),  // fix.datum[40]
            "time": .string(bytes: 511),  // JSON_VAL_MAX
            "mode": .integer, "status": .integer, "leapseconds": .integer, "dgpsSta": .integer,
        ]
        let reals = [
            "alt", "altHAE", "altMSL", "climb", "depth", "dgpsAge", "ecefpAcc", "ecefvAcc", "ecefvx", "ecefvy",
            "ecefvz", "ecefx", "ecefy", "ecefz", "epc", "epd", "eph", "eps", "ept", "epv", "epx", "epy", "geoidSep",
            "lat", "lon", "magtrack", "magvar", "relD", "relE", "relN", "sep", "speed", "track", "velD", "velE",
            "velN", "wanglem", "wangler", "wanglet", "wspeedr", "wspeedt",
        ]
        for name in reals { members[name] = .real }
        return members
    }()

    /// The members of a line that is one strict JSON object (RFC 8259, no
    /// duplicate member names, see `PetSpotJSON`) of class TPV, each member
    /// libgps 3.22 knows (``tpvMembers``) a scalar of the type libgps reads
    /// it as and within libgps's length. Members libgps does not know are
    /// kept, whatever they hold (a newer gpsd adds some); nothing reads them.
    /// A line that begins with another class is skipped unparsed
    /// (``namesAnotherClassFirst(_:)``).
    /// - Throws: ``LineProblem/notTPV`` for valid JSON of another class,
    ///   ``LineProblem/rejected(_:)`` otherwise.
    static func checkedTPV(_ line: some Collection<UInt8>) throws(LineProblem) -> [String: JSONValue] {
        if namesAnotherClassFirst(line) { throw .notTPV }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes: line)
        } catch {
            throw .rejected("not JSON: \(error)")
        }
        guard case .object(let members) = value else { throw .rejected("not a JSON object") }
        guard case .string(let name)? = members["class"] else { throw .rejected("no class") }
        guard name == "TPV" else { throw .notTPV }
        for (key, member) in members {
            guard let type = tpvMembers[key] else { continue }
            switch (type, member) {
            case (.real, .number): break
            case (.integer, .number(let number)):
                guard number == number.rounded(.towardZero), Double(Int32.min) <= number, number <= Double(Int32.max)
                else { throw .rejected("TPV member \(key) must be a whole number, not \(JSONValue.format(number))") }
            case (.string(let limit), .string(let text)):
                guard text.utf8.count <= limit else {
                    throw .rejected("TPV member \(key) is longer than \(limit) bytes")
                }
            default:
                throw .rejected("TPV member \(key) must be \(type.jsonName), not \(member.typeName)")
            }
        }
        return members
    }

    /// The TPV line libgps is given by ``init(decodingWithLibgps:)``:
    /// `{"class":"TPV",…}` with only the members libgps 3.22 knows, from
    /// ``checkedTPV(_:)``, serialized afresh (compact, sorted, strings with
    /// only `"`, `\` and control characters escaped, as gpsd writes them).
    /// libgps parses such a line to its end without error, which is what
    /// keeps it out of the 3.22 loop.
    static func canonicalTPV(_ members: [String: JSONValue]) -> [UInt8] {
        var output = Array(#"{"class":"TPV""#.utf8)
        for (key, member) in members.sorted(by: { $0.key < $1.key }) where tpvMembers[key] != nil {
            output.append(UInt8(ascii: ","))
            JSONValue.string(key).write(utf8: &output)
            output.append(UInt8(ascii: ":"))
            member.write(utf8: &output)
        }
        output.append(UInt8(ascii: "}"))
        return output
    }
}

extension GpsdReport {
    /// Whether the line begins exactly as gpsd writes every report,
    /// `{"class":"NAME",` (or `}`) with NAME of ASCII letters and digits
    /// only, and NAME is not TPV.
    ///
    /// Such a line is skipped without being parsed: gpsd sends a SKY line
    /// beside each fix, several times a TPV's size (up to 5 KiB with its
    /// satellites), and parsing it was most of the reader's work per fix.
    /// Skipping is safe whatever follows: such a line is never decoded, so
    /// nothing in it reaches libgps or a client. A line that names TPV
    /// first, or begins otherwise, is parsed in full (strict JSON, no
    /// duplicate member names), so a second `class` member cannot smuggle a
    /// TPV past the check.
    static func namesAnotherClassFirst(_ line: some Collection<UInt8>) -> Bool {
        let prefix = #"{"class":""#.utf8
        guard line.starts(with: prefix) else { return false }
        let start = line.index(line.startIndex, offsetBy: prefix.count)
        guard let end = line[start...].firstIndex(of: UInt8(ascii: "\"")), end != start,
            line[start..<end].allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else { return false }
        let after = line.index(after: end)
        guard after != line.endIndex, line[after] == UInt8(ascii: ",") || line[after] == UInt8(ascii: "}")
        else { return false }
        return !line[start..<end].elementsEqual("TPV".utf8)
    }
}

extension GpsdReport.MemberType {
    /// The JSON type, for messages.
    var jsonName: String {
        switch self {
        case .real, .integer: "a number"
        case .string: "a string"
        }
    }
}

extension GpsdReport {
    /// Copies the fix fields and the device path of libgps's last TPV.
    init(_ data: UnsafePointer<gps_data_t>) {
        let fix = data.pointee.fix
        self.init(
            mode: Int(fix.mode),
            latitude: fix.latitude,
            longitude: fix.longitude,
            altitudeHAE: fix.altHAE,
            altitudeMSL: fix.altMSL,
            geoidSeparation: fix.geoid_sep,
            eph: fix.eph,
            epx: fix.epx,
            epy: fix.epy,
            epv: fix.epv,
            speed: fix.speed,
            track: fix.track,
            timeSeconds: Int(fix.time.tv_sec),
            timeNanoseconds: Int(fix.time.tv_nsec),
            device: withUnsafeBytes(of: data.pointee.dev.path) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
        )
    }
}
