import PetSpotGpsd
import PetSpotLocation

/// The gpsd reader's path, twice per input:
///
/// 1. the input as the bytes read off the gpsd socket, the end of input
///    ending the last line: ``GpsdLineBuffer`` splits them, and every line
///    goes through `GpsdReport(line:)` (the strict JSON check and the
///    one-pass decode the reader uses) and through
///    `GpsdReport(decodingWithLibgps:)` (the canonical TPV, libgps's
///    `gps_unpack`, the copy out of `gps_data_t`): both must take or refuse
///    it alike and read it alike, and the fix must pass the mapping's
///    checks. libgps 3.22's parser loops forever on some lines
///    (docs/ROBUSTNESS.md); a line that reached it would show as a libFuzzer
///    timeout. The same bytes in 7-byte reads with a 64-byte line limit must
///    give the same lines, the longer ones as over-long;
/// 2. the input's bytes as the report's raw numbers (11 doubles, two
///    integers, a mode), so the mapping sees every bit pattern: NaN,
///    infinities, subnormals, out-of-range coordinates and modes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let now = ContinuousClock.now
    let whole = pieces(of: UnsafeRawBufferPointer(bytes), limit: GpsdLineBuffer.libgpsMaximumLength, readSize: size)
    let small = pieces(of: UnsafeRawBufferPointer(bytes), limit: 64, readSize: 7)
    precondition(whole.count == small.count, "reads changed the number of lines")
    for (piece, bounded) in zip(whole, small) {
        switch piece {
        case .line(let line):
            if line.count <= 64 {
                precondition(bounded == piece, "reads changed a line")
            } else if case .overlong(let length) = bounded {
                precondition(length == line.count || length == line.count + 1, "wrong over-long length")
            } else {
                preconditionFailure("a line over the limit was kept")
            }
            let report = try? GpsdReport(line: line)
            // The reader's one-pass scanner decides a plain TPV line itself: exactly as the strict path.
            let strict = try? GpsdReport(strictLine: line)
            precondition((report == nil) == (strict == nil), "the scanner and the strict path disagree on a line")
            if let report, let strict {
                precondition(agree(report, strict, exactly: true), "the scanner misread a line")
            }
            let libgps = try? GpsdReport(decodingWithLibgps: line)
            precondition((report == nil) == (libgps == nil), "one decoder refused a line the other took")
            if let report, let libgps {
                precondition(agree(report, libgps), "the one-pass decode and libgps disagree")
                check(report.outcome(receivedAt: now))
            }
        case .overlong:
            precondition(bounded == piece, "reads changed an over-long line")
        }
    }

    var reader = Reader(bytes: bytes)
    let report = GpsdReport(
        mode: Int(reader.byte()) % 6, latitude: reader.double(), longitude: reader.double(),
        altitudeHAE: reader.double(), altitudeMSL: reader.double(), geoidSeparation: reader.double(),
        eph: reader.double(), epx: reader.double(), epy: reader.double(), epv: reader.double(),
        speed: reader.double(), track: reader.double(), timeSeconds: reader.int(), timeNanoseconds: reader.int())
    check(report.outcome(receivedAt: now))
    return 0
}

/// The lines in `bytes` read `readSize` bytes at a time, the end of input ending the last one.
func pieces(of bytes: UnsafeRawBufferPointer, limit: Int, readSize: Int) -> [GpsdLineBuffer.Piece] {
    var buffer = GpsdLineBuffer(maximumLength: limit)
    var pieces: [GpsdLineBuffer.Piece] = []
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + max(1, readSize))
        buffer.append(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) { pieces.append($0) }
        start = end
    }
    if buffer.unfinishedCount > 0 {
        let newline: [UInt8] = [0x0A]
        newline.withUnsafeBytes { buffer.append($0) { pieces.append($0) } }
    }
    return pieces
}

/// Whether the reader's one-pass decode and libgps's parser read a line
/// alike: every field, reals equal, both NaN, within 2 ulps (libgps's
/// `safe_atof` is not correctly rounded) or both below 1e-300 (it reads
/// those as 0); `exactly`: reals bit for bit (or both NaN).
func agree(_ a: GpsdReport, _ b: GpsdReport, exactly: Bool = false) -> Bool {
    func close(_ x: Double, _ y: Double) -> Bool {
        if exactly { return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN) }
        return x == y || (x.isNaN && y.isNaN) || abs(x - y) <= 2 * max(x.ulp, y.ulp)
            || (abs(x) < 1e-300 && abs(y) < 1e-300)
    }
    let reals: [(GpsdReport) -> Double] = [
        \.latitude, \.longitude, \.altitudeHAE, \.altitudeMSL, \.geoidSeparation, \.eph, \.epx, \.epy, \.epv,
        \.speed, \.track,
    ]
    return a.mode == b.mode && a.timeSeconds == b.timeSeconds && a.timeNanoseconds == b.timeNanoseconds
        && a.device == b.device && reals.allSatisfy { close($0(a), $0(b)) }
}

/// A fix that comes out must satisfy the invariants the rest of the daemon relies on.
func check(_ outcome: GpsdReport.Outcome) {
    guard case .fix(let fix) = outcome else { return }
    let coordinate = fix.coordinate
    precondition(coordinate.latitude.isFinite && abs(coordinate.latitude) <= 90, "latitude out of range")
    precondition(coordinate.longitude.isFinite && abs(coordinate.longitude) <= 180, "longitude out of range")
    for value in [fix.horizontalAccuracy, fix.verticalAccuracy, fix.speed] {
        if let value { precondition(value.isFinite && value >= 0, "negative or non-finite estimate") }
    }
    if let course = fix.course { precondition(course >= 0 && course < 360, "course out of range") }
    if let altitude = fix.altitude { precondition(altitude.isFinite, "non-finite altitude") }
}

/// Reads fixed-size values from the input, zero past its end.
struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    mutating func byte() -> UInt8 {
        defer { offset += 1 }
        return offset < bytes.count ? bytes[offset] : 0
    }

    mutating func int() -> Int {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int(truncatingIfNeeded: value)
    }

    mutating func double() -> Double { Double(bitPattern: UInt64(bitPattern: Int64(int()))) }
}
