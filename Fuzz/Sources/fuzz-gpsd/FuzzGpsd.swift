import Foundation
import PetSpotGpsd
import PetSpotLocation

/// The gpsd report path, twice per input:
///
/// 1. the input as a gpsd TPV line (re-serialized by ``canonicalTPVLine(_:)``):
///    the reader's TPV/truncation check, libgps's JSON parser
///    (`gps_unpack`), and the mapping to a fix;
/// 2. the input's bytes as the report's raw numbers (11 doubles, two
///    integers, a mode), so the mapping sees every bit pattern: NaN,
///    infinities, subnormals, out-of-range coordinates and modes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let now = ContinuousClock.now
    if let line = canonicalTPVLine(bytes), let report = try? GpsdReport(line: line) {
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

/// The members of gpsd's TPV report (gpsd 3.22 `json_tpv_read`).
let tpvKeys: Set<String> = [
    "device", "mode", "status", "time", "leapseconds", "ept", "lat", "lon", "altHAE", "altMSL", "alt", "climb",
    "datum", "depth", "epc", "epd", "eph", "eps", "ept", "epv", "epx", "epy", "geoidSep", "magtrack", "magvar",
    "speed", "track", "ecefx", "ecefy", "ecefz", "ecefvx", "ecefvy", "ecefvz", "ecefpAcc", "ecefvAcc", "sep",
]

/// The input as gpsd would write a TPV line: a JSON object with gpsd's own
/// TPV keys and scalar values (anything the input gives them), serialized
/// afresh with `"class":"TPV"` first; `nil` when the input is no JSON object.
///
/// Raw fuzz bytes are not given to libgps: its 3.22 parser loops forever on
/// some malformed lines, on objects nested where a number belongs, and on
/// some valid lines with unknown or repeated keys
/// (`Fuzz/Findings/libgps-unpack-hang-*`, docs/ROBUSTNESS.md) — bugs in the
/// C library that gpsd's own output never triggers.
func canonicalTPVLine(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return nil }
    var members = ["\"class\":\"TPV\""]
    for key in object.keys.sorted() where tpvKeys.contains(key) {
        let value = object[key]!
        guard !(value is [Any]), !(value is [String: Any]),
            let encoded = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
        else { continue }
        members.append("\"\(key)\":" + String(decoding: encoded, as: UTF8.self))
    }
    return Array(("{" + members.joined(separator: ",") + "}").utf8)
}
