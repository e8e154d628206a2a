import Foundation
import PetSpotGpsd
import PetSpotLocation

/// The gpsd report path, twice per input:
///
/// 1. the input as a raw gpsd line: the reader's TPV/truncation check,
///    libgps's JSON parser (`gps_unpack`), and the mapping to a fix. Only
///    lines that are valid JSON objects with scalar members get there:
///    libgps 3.22's parser loops forever on some malformed lines and on
///    objects nested where a number belongs (Fuzz/Findings/libgps-unpack-hang*,
///    docs/ROBUSTNESS.md), a bug in the C library that gpsd itself never
///    triggers because its TPV reports are flat and valid;
/// 2. the input's bytes as the report's raw numbers (11 doubles, two
///    integers, a mode), so the mapping sees every bit pattern: NaN,
///    infinities, subnormals, out-of-range coordinates and modes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let now = ContinuousClock.now
    if isFlatJSONObject(bytes), let report = try? GpsdReport(line: bytes)
    {
        check(report.outcome(receivedAt: now))
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

/// Whether `bytes` are one JSON object whose members are all strings, numbers, booleans or null.
func isFlatJSONObject(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return false }
    return object.values.allSatisfy { !($0 is [Any]) && !($0 is [String: Any]) }
}
