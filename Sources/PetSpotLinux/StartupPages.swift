#if canImport(Glibc)
import Glibc
import CMalloc
#elseif canImport(Musl)
import Musl
#endif
import PetSpotPOSIX
import Synchronization

/// Drops this process's page mappings of clean, read-only, file-backed
/// memory (code and constants of the binary and its shared libraries), so
/// that resident memory reflects what the program uses while serving rather
/// than what start-up (or a burst of work: a kiosk's visit) touched once.
/// The daemon calls it after start-up, after each reload and once requests
/// have stopped (``QuietPageRelease``); the kiosk after start-up and when
/// its last open visit ends (``ThrottledPageRelease``).
///
/// Start-up (argument parsing, TOML parsing, the Swift runtime's first
/// conformance scans) touches most of the binary, and the kernel maps file
/// pages in 64 KiB-or-larger runs around each fault, so an idle daemon's
/// resident memory was mostly file-backed (figures: docs/PERFORMANCE.md).
/// `MADV_DONTNEED` on such a mapping only removes page-table entries: the
/// pages stay in the page cache, nothing is re-read from disk, and what the
/// daemon touches again comes back with a minor fault.
///
/// Only mappings that are safe to drop are touched: file-backed, private
/// or shared, without write permission, with no anonymous (copy-on-write)
/// pages and nothing swapped: their contents are exactly the file's.
/// RELRO (relocated, then made read-only) and anything a debugger patched
/// carry anonymous pages and are skipped; so is every writable mapping.
public enum StartupPages {
    /// What one call released.
    public struct Released: Sendable, Equatable {
        /// Mappings advised.
        public var mappings = 0
        /// Resident bytes they had before (from `/proc/self/smaps`).
        public var residentBytes = 0

        public init(mappings: Int = 0, residentBytes: Int = 0) {
            self.mappings = mappings
            self.residentBytes = residentBytes
        }
    }

    /// One mapping as `/proc/PID/smaps` describes it.
    struct Mapping: Equatable {
        var start: UInt
        var end: UInt
        var permissions: String
        var inode: UInt64
        var path: String
        var residentKiB = 0
        var anonymousKiB = 0
        var swapKiB = 0

        /// Read-only, file-backed, and nothing in it differs from the file.
        var isCleanFileMapping: Bool {
            let flags = Array(permissions.utf8)
            return flags.count == 4 && flags[0] == UInt8(ascii: "r") && flags[1] == UInt8(ascii: "-")
                && inode != 0 && !path.hasPrefix("[") && anonymousKiB == 0 && swapKiB == 0
        }
    }

    /// Returns the heap's free pages to the kernel (glibc `malloc_trim`:
    /// start-up's temporary allocations), then releases every clean
    /// read-only file mapping of this process that has resident pages.
    /// Never throws: a failure leaves memory as it was.
    /// Makes malloc give blocks of `threshold` bytes or more their own
    /// mapping, returned to the kernel when freed, for the whole run.
    ///
    /// glibc raises its mmap threshold after the first large block is freed
    /// (up to 32 MiB), so later large blocks (a kiosk's photo buffers) come
    /// from the per-thread arenas, whose freed tops are kept, not returned:
    /// 100 kiosk reports left ~21 MiB of arenas resident. A fixed threshold
    /// (`M_MMAP_THRESHOLD`, which also stops the raising) left ~3 MiB
    /// (docs/PERFORMANCE.md, "What a device pays").
    /// - Returns: whether malloc took the setting.
    @discardableResult
    public static func returnLargeBlocksWhenFreed(threshold: Int32 = 128 * 1024) -> Bool {
        #if canImport(Glibc)
        return mallopt(M_MMAP_THRESHOLD, threshold) == 1
        #else
        return false
        #endif
    }

    @discardableResult
    public static func release(smapsPath: String = "/proc/self/smaps") -> Released {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
        guard let text = try? AtomicFile.read(smapsPath, atMost: 4 << 20) else { return Released() }
        var released = Released()
        for mapping in parse(text) where mapping.isCleanFileMapping && mapping.residentKiB > 0 {
            guard let address = UnsafeMutableRawPointer(bitPattern: mapping.start),
                madvise(address, Int(mapping.end - mapping.start), MADV_DONTNEED) == 0
            else { continue }
            released.mappings += 1
            released.residentBytes += mapping.residentKiB * 1024
        }
        return released
    }

    /// The mappings in an smaps text.
    static func parse(_ text: [UInt8]) -> [Mapping] {
        var mappings: [Mapping] = []
        for line in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if let dash = first.firstIndex(of: UInt8(ascii: "-")), fields.count >= 5,
                let start = UInt(String(decoding: first[..<dash], as: UTF8.self), radix: 16),
                let end = UInt(String(decoding: first[(dash + 1)...], as: UTF8.self), radix: 16),
                let inode = UInt64(String(decoding: fields[4], as: UTF8.self))
            {
                // The path is padded with spaces to a column.
                let path = fields.count > 5 ? fields[5].drop { $0 == UInt8(ascii: " ") } : []
                mappings.append(
                    Mapping(
                        start: start, end: end, permissions: String(decoding: fields[1], as: UTF8.self),
                        inode: inode, path: String(decoding: path, as: UTF8.self)))
                continue
            }
            guard !mappings.isEmpty, fields.count >= 2,
                let kiB = Int(String(decoding: fields[1], as: UTF8.self))
            else { continue }
            switch String(decoding: first, as: UTF8.self) {
            case "Rss:": mappings[mappings.count - 1].residentKiB = kiB
            case "Anonymous:": mappings[mappings.count - 1].anonymousKiB = kiB
            case "Swap:": mappings[mappings.count - 1].swapKiB = kiB
            default: break
            }
        }
        return mappings
    }
}
