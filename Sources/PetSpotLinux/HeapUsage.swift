#if canImport(Glibc)
import Glibc
import CMalloc
#elseif canImport(Musl)
import Musl
#endif

/// The bytes this process's allocator has handed out and not taken back
/// (glibc's `mallinfo2`: `uordblks`, bytes in use in the arenas, plus
/// `hblkhd`, bytes in blocks mapped on their own). Unlike resident memory
/// it does not depend on pages, arenas or what `malloc_trim` gave back, so
/// a difference over thousands of operations is the memory they kept
/// (`daemon.status` `memory.heapInUse`, the kiosk's `/admin/status`).
public enum HeapUsage {
    /// Bytes in use now; `nil` where the C library has no `mallinfo2`.
    public static var bytesInUse: Int? {
        #if canImport(Glibc)
        let info = mallinfo2()
        return Int(info.uordblks) + Int(info.hblkhd)
        #else
        return nil
        #endif
    }
}
