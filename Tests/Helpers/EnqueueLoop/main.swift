import Glibc
import DeliveryTestSupport
import Foundation
import PetSpotOutbox
import PetSpotReport

// For OutboxCrashTests: queues reports one after another and prints
// `ACK <id>` (unbuffered) after each enqueue returned, until killed.
//
//     petspot-test-enqueue-loop OUTBOX-DIRECTORY PHOTO-FILE [COUNT]

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4, let count = Int(arguments.count == 4 ? arguments[3] : "100000")
else {
    FileHandle.standardError.write(Data("usage: petspot-test-enqueue-loop OUTBOX-DIRECTORY PHOTO-FILE [COUNT]\n".utf8))
    exit(64)
}
do {
    let queue = try Outbox.open(directory: arguments[1])
    let size = try FileManager.default.attributesOfItem(atPath: arguments[2])[.size] as? Int ?? 0
    for _ in 0..<count {
        let report = ReportFixtures.report(photoBytes: size)
        try queue.enqueueSynchronously(report: report, photoFile: arguments[2])
        let line = Array("ACK \(report.id.uuidString.lowercased())\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }
} catch {
    FileHandle.standardError.write(Data("petspot-test-enqueue-loop: \(error)\n".utf8))
    exit(1)
}
