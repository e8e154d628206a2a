import Foundation
import PetSpotSimulatedSource

/// The scenario loader (simulated source): any bytes either give a
/// ``Scenario`` or a ``ScenarioError``; they must never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? Scenario.parse(Data(bytes: data, count: size))
    return 0
}
