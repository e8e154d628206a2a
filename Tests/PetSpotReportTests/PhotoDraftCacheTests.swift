import Foundation
import PetSpotReport
import Testing

@Suite("Photo draft cache")
struct PhotoDraftCacheTests {
    static let samples: [(String, [UInt8], PhotoInfo)] = [
        ("a.jpg", PhotoFixtures.jpeg(width: 640, height: 480), PhotoInfo(format: .jpeg, width: 640, height: 480)),
        ("b.png", PhotoFixtures.png(width: 800, height: 600), PhotoInfo(format: .png, width: 800, height: 600)),
        ("c.heic", PhotoFixtures.heic(sizes: [(4032, 3024)]), PhotoInfo(format: .heic, width: 4032, height: 3024)),
        ("d.gif", PhotoFixtures.gif(width: 320, height: 200), PhotoInfo(format: .gif, width: 320, height: 200)),
        (
            "e.webp", PhotoFixtures.webpLossy(width: 1024, height: 768),
            PhotoInfo(format: .webp, width: 1024, height: 768)
        ),
        // Recognised by content, not by name.
        ("photo.dat", PhotoFixtures.png(width: 2, height: 3), PhotoInfo(format: .png, width: 2, height: 3)),
    ]

    private func makeCache(_ root: URL, id: UUID = UUID()) -> PhotoDraftCache {
        PhotoDraftCache(
            draftID: id,
            environment: ["XDG_CACHE_HOME": root.appendingPathComponent("cache").path, "HOME": "/nonexistent"])
    }

    @Test(arguments: samples)
    func storesAcceptedFormats(name: String, bytes: [UInt8], info: PhotoInfo) throws {
        let root = try PhotoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let source = try PhotoFixtures.write(bytes, named: name, in: root)
        let id = UUID()
        let cache = makeCache(root, id: id)
        let draft = try cache.store(contentsOf: source)
        #expect(draft.info == info)
        #expect(draft.byteCount == bytes.count)
        let expectedDirectory = root.appendingPathComponent(
            "cache/PetSpot/ReportFoundPet/\(id.uuidString.lowercased())")
        #expect(draft.file.path == expectedDirectory.appendingPathComponent("photo.\(info.format.fileExtension)").path)
        #expect(try Data(contentsOf: draft.file) == Data(bytes))
        #expect(cache.current() == draft)
    }

    @Test(arguments: [
        ("image.bmp", PhotoFixtures.bmp, PhotoDraftError.unsupportedFormat),
        ("notes.jpg", Array("not really a jpeg\n".utf8), .unsupportedFormat),
        ("empty.png", [], .empty),
    ])
    func refusesOthers(name: String, bytes: [UInt8], error: PhotoDraftError) throws {
        let root = try PhotoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let source = try PhotoFixtures.write(bytes, named: name, in: root)
        let cache = makeCache(root)
        #expect(throws: error) { try cache.store(contentsOf: source) }
        #expect(cache.current() == nil)
    }

    @Test func missingFileIsAReadError() throws {
        let root = try PhotoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect {
            try makeCache(root).store(contentsOf: root.appendingPathComponent("nope.jpg"))
        } throws: { error in
            if case .readFailed = error as? PhotoDraftError { return true }
            return false
        }
    }

    @Test func tooLargeIsRefused() throws {
        let root = try PhotoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var cache = makeCache(root)
        cache.maximumBytes = 10
        let source = try PhotoFixtures.write(PhotoFixtures.png(width: 1, height: 1), named: "big.png", in: root)
        #expect(throws: PhotoDraftError.tooLarge(limit: 10)) { try cache.store(contentsOf: source) }
    }

    @Test func replacingDeletesThePreviousFile() throws {
        let root = try PhotoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = makeCache(root)
        let first = try cache.store(Data(PhotoFixtures.png(width: 1, height: 1)))
        let second = try cache.store(Data(PhotoFixtures.jpeg(width: 2, height: 2)))
        #expect(!FileManager.default.fileExists(atPath: first.file.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.directory.path) == ["photo.jpg"])
        #expect(cache.current() == second)
    }

    @Test func failedReplacementLeavesNoPhotoWhenTheOldOneWasRemoved() throws {
        let root = try PhotoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var cache = makeCache(root)
        try cache.store(Data(PhotoFixtures.png(width: 1, height: 1)))
        // An invalid photo is refused before anything is touched.
        #expect(throws: PhotoDraftError.unsupportedFormat) { try cache.store(Data("text".utf8)) }
        #expect(cache.current() != nil)
        // Low disk is found after the previous file is gone: no photo remains.
        cache.minimumFreeBytes = .max
        #expect {
            try cache.store(Data(PhotoFixtures.gif(width: 1, height: 1)))
        } throws: { error in
            if case .lowDiskSpace = error as? PhotoDraftError { return true }
            return false
        }
        #expect(cache.current() == nil)
    }

    @Test func clearRemovesTheDraft() throws {
        let root = try PhotoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = makeCache(root)
        try cache.clear()  // nothing yet: fine
        try cache.store(Data(PhotoFixtures.webpExtended(width: 3, height: 4)))
        try cache.clear()
        #expect(!FileManager.default.fileExists(atPath: cache.directory.path))
        #expect(cache.current() == nil)
    }

    @Test func writeFailureIsTyped() throws {
        let root = try PhotoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let blocker = try PhotoFixtures.write([1], named: "file", in: root)
        let cache = PhotoDraftCache(environment: ["XDG_CACHE_HOME": blocker.path])
        #expect {
            try cache.store(Data(PhotoFixtures.png(width: 1, height: 1)))
        } throws: { error in
            if case .writeFailed = error as? PhotoDraftError { return true }
            return false
        }
    }

    @Test(arguments: [
        (["XDG_CACHE_HOME": "/var/cache/kiosk", "HOME": "/home/k"], "/var/cache/kiosk"),
        (["XDG_CACHE_HOME": "", "HOME": "/home/k"], "/home/k/.cache"),
        (["XDG_CACHE_HOME": "relative/cache", "HOME": "/home/k"], "/home/k/.cache"),
        (["HOME": "/home/k"], "/home/k/.cache"),
    ])
    func cacheDirectory(environment: [String: String], base: String) {
        #expect(PhotoDraftCache.baseDirectory(environment: environment).path == base)
        let id = UUID()
        let cache = PhotoDraftCache(draftID: id, environment: environment)
        #expect(cache.directory.path == "\(base)/PetSpot/ReportFoundPet/\(id.uuidString.lowercased())")
    }
}
