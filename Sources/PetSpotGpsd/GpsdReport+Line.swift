import CLibGPS

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension GpsdReport {
    /// Why a raw gpsd line gave no report.
    public enum LineProblem: Error, Sendable, Equatable {
        /// Another class than TPV (VERSION, DEVICES, SKY, …): ignored by the source.
        case notTPV
        /// A TPV line that does not end with `}`: libgps would parse what it
        /// could, so its fields cannot be trusted (the reader counts it as malformed).
        case truncated
    }

    /// Decodes one raw gpsd JSON line the way the reader does: the same
    /// ``LineKind`` check, then libgps's own JSON parser (`gps_unpack`) into a
    /// fresh `gps_data_t`, then the same copy into a report.
    ///
    /// The reader gets its lines from `gps_read`, which runs `gps_unpack`
    /// itself; this entry point exists so tests and the fuzz target can feed
    /// lines without a socket.
    /// - Parameter line: the line's bytes, without or with its trailing newline.
    /// - Throws: ``LineProblem`` when the line is not a complete TPV report.
    public init(line: some Collection<UInt8>) throws(LineProblem) {
        switch LineKind(bytes: line) {
        case .other: throw .notTPV
        case .truncatedTPV: throw .truncated
        case .tpv: break
        }
        // gps_unpack wants a mutable NUL-terminated C string; a NUL inside the
        // line simply ends it early, as it would in libgps's own buffer.
        var text = line.map { CChar(bitPattern: $0) }
        text.append(0)
        let data = UnsafeMutablePointer<gps_data_t>.allocate(capacity: 1)
        defer { data.deallocate() }
        memset(data, 0, MemoryLayout<gps_data_t>.size)
        _ = gps_unpack(&text, data)
        self.init(UnsafePointer(data))
    }
}
