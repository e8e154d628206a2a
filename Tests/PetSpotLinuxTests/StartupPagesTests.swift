import Glibc
import CMalloc
import Foundation
@testable import PetSpotLinux
import PetSpotPOSIX
import Synchronization
import Testing
import TestSupport

/// `StartupPages` drops only mappings whose contents are exactly the file's,
/// and what it drops still reads the same.
@Suite struct StartupPagesTests {
    static let sample = """
        55cb0a845000-55cb0bc84000 r-xp 00000000 fe:00 5365773                    /opt/petspot/bin/petspot-locationd
        Size:              20732 kB
        Rss:               11612 kB
        Anonymous:             0 kB
        Swap:                  0 kB
        VmFlags: rd ex mr mw me dw sd
        55cb0bc85000-55cb0bd0d000 r--p 0143f000 fe:00 5365773                    /opt/petspot/bin/petspot-locationd
        Rss:                 544 kB
        Anonymous:           544 kB
        Swap:                  0 kB
        55cb0bd0d000-55cb0bf54000 rw-p 014c7000 fe:00 5365773                    /opt/petspot/bin/petspot-locationd
        Rss:                1308 kB
        Anonymous:           192 kB
        55cb0bf54000-55cb0c003000 rw-p 00000000 00:00 0 
        Rss:                 344 kB
        Anonymous:           344 kB
        7f8ff381e000-7f8ff3844000 r--p 00000000 fe:00 333151                     /usr/lib/my lib/libc.so.6
        Rss:                 152 kB
        Anonymous:             0 kB
        Swap:                  8 kB
        7f8ff3844000-7f8ff399a000 r-xp 00026000 fe:00 333151                     /usr/lib/x86_64-linux-gnu/libc.so.6
        Rss:                1008 kB
        Anonymous:             0 kB
        7ffd3a7e2000-7ffd3a7e4000 r-xp 00000000 00:00 0                          [vdso]
        Rss:                   8 kB
        Anonymous:             0 kB

        """

    @Test func parsesMappingsAndTheirCounters() {
        let mappings = StartupPages.parse(Array(Self.sample.utf8))
        #expect(mappings.count == 7)
        #expect(mappings[0].start == 0x55cb_0a84_5000 && mappings[0].end == 0x55cb_0bc8_4000)
        #expect(mappings[0].permissions == "r-xp" && mappings[0].inode == 5_365_773)
        #expect(mappings[0].residentKiB == 11612 && mappings[0].anonymousKiB == 0)
        #expect(mappings[0].path == "/opt/petspot/bin/petspot-locationd")
        #expect(mappings[1].anonymousKiB == 544)
        #expect(mappings[4].path == "/usr/lib/my lib/libc.so.6")
        #expect(mappings[4].swapKiB == 8)
        #expect(mappings[6].path == "[vdso]")
    }

    @Test func onlyCleanReadOnlyFileMappingsQualify() {
        let clean = StartupPages.parse(Array(Self.sample.utf8)).map(\.isCleanFileMapping)
        // text: yes; RELRO (anonymous pages): no; writable data: no; anonymous
        // memory: no; swapped private pages: no; library text: yes; vdso: no.
        #expect(clean == [true, false, false, false, false, true, false])
    }

    @Test func releasedPagesReadTheSameAndLeaveResidency() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("constants.bin")
        let size = 256 << 10
        var pattern = [UInt8](repeating: 0, count: size)
        pattern.withUnsafeMutableBytes { bytes in
            var value: UInt32 = 12345  // pages that differ from each other
            for index in stride(from: 0, to: size, by: 4) {
                value = value &* 1_103_515_245 &+ 12345
                bytes.storeBytes(of: value, toByteOffset: index, as: UInt32.self)
            }
        }
        try Data(pattern).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let mapped = try #require(mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0))
        #expect(mapped != MAP_FAILED)
        defer { munmap(mapped, size) }
        #expect(memcmp(mapped, pattern, size) == 0)  // every page touched
        #expect(try Self.residentKiB(of: mapped) == size / 1024)

        let released = StartupPages.release()
        #expect(released.mappings >= 1)
        #expect(try Self.residentKiB(of: mapped) == 0)
        #expect(memcmp(mapped, pattern, size) == 0)
    }

    @Test func copyOnWritePagesAreKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("relro.bin")
        let size = 64 << 10
        try Data(repeating: 0x11, count: size).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        // Like RELRO: a private file mapping written (copy-on-write), then made read-only.
        let mapped = try #require(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, descriptor, 0))
        #expect(mapped != MAP_FAILED)
        defer { munmap(mapped, size) }
        mapped.storeBytes(of: 0x99, toByteOffset: 4096, as: UInt8.self)
        #expect(mprotect(mapped, size, PROT_READ) == 0)

        StartupPages.release()
        #expect(mapped.load(fromByteOffset: 4096, as: UInt8.self) == 0x99)
        #expect(mapped.load(fromByteOffset: 0, as: UInt8.self) == 0x11)
    }

    /// The `Rss:` of the mapping that starts at `address`, from this process's smaps.
    static func residentKiB(of address: UnsafeMutableRawPointer) throws -> Int {
        let text = try AtomicFile.read("/proc/self/smaps", atMost: 16 << 20)
        let start = UInt(bitPattern: address)
        let mapping = try #require(StartupPages.parse(text).first { $0.start == start })
        return mapping.residentKiB
    }

    /// With the threshold fixed, a large block still gets its own mapping
    /// after a larger one was freed (glibc would otherwise have raised its
    /// threshold past it and served it from an arena, kept after free).
    ///
    /// In a child process of its own (an exit test), set first as the
    /// kiosk sets it at start: in the shared test process, other tests'
    /// large blocks freed before the setting leave free chunks in the
    /// arenas, and malloc serves a block from those before it would map one.
    @Test func largeBlocksKeepTheirOwnMappingAfterALargerOneIsFreed() async {
        await #expect(processExitsWith: .success) {
            precondition(StartupPages.returnLargeBlocksWhenFreed(), "malloc refused the threshold")
            free(malloc(4 << 20))
            guard let block = malloc(512 << 10) else { fatalError("no memory") }
            // glibc's chunk header, just before the block: its size, with
            // bit 1 (IS_MMAPPED) set for a block with its own mapping.
            let header = block.load(fromByteOffset: -MemoryLayout<UInt>.size, as: UInt.self)
            precondition(header & 0x2 != 0, "a 512 KiB block came from an arena")
            free(block)
        }
    }
}
