import CTurboJPEG

/// A TurboJPEG instance for one cleaning: created, used on one thread, destroyed.
struct TurboJPEG: ~Copyable {
    private let handle: tjhandle

    /// A transformer (which also reads headers) or a compressor.
    enum Kind { case transformer, compressor }

    init(_ kind: Kind) throws(PhotoCleaningError) {
        guard let handle = kind == .transformer ? tjInitTransform() : tjInitCompress() else {
            throw .damaged("TurboJPEG could not start")
        }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    /// The last error's message.
    private var message: String {
        tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown TurboJPEG error"
    }

    /// Whether the last failure was only a warning (the operation completed).
    private var isWarning: Bool { tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) }

    /// Width and height from the frame header.
    func size(of jpeg: [UInt8]) throws(PhotoCleaningError) -> (width: Int, height: Int) {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let status = jpeg.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        // A warning (stray bytes before a marker) still reads the header.
        guard status == 0 || (isWarning && width > 0 && height > 0) else {
            throw .damaged("JPEG header: \(message)")
        }
        return (Int(width), Int(height))
    }

    /// `jpeg` transformed losslessly by `operation`, without any APPn or COM
    /// marker (TurboJPEG writes a fresh JFIF APP0). Partial MCU blocks that
    /// cannot move are trimmed. Warnings (a truncated scan, stray bytes)
    /// are accepted: the output is complete.
    func transform(_ jpeg: [UInt8], operation: TJXOP) throws(PhotoCleaningError) -> [UInt8] {
        var transform = tjtransform()
        transform.op = Int32(operation.rawValue)
        transform.options = TJXOPT_COPYNONE | (operation == TJXOP_NONE ? 0 : TJXOPT_TRIM)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: UInt = 0
        defer { if let output { tjFree(output) } }
        let status = jpeg.withUnsafeBufferPointer {
            tjTransform(handle, $0.baseAddress, UInt($0.count), 1, &output, &outputSize, &transform, TJFLAG_LIMITSCANS)
        }
        guard status == 0 || isWarning, let output, outputSize > 0 else { throw .damaged("JPEG: \(message)") }
        return Array(UnsafeBufferPointer(start: output, count: Int(outputSize)))
    }

    /// Interleaved 8-bit RGB pixels encoded as a baseline JPEG (4:2:0).
    func compress(
        rgb pixels: UnsafePointer<UInt8>, width: Int, pitch: Int, height: Int, quality: Int
    ) throws(PhotoCleaningError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: UInt = 0
        defer { if let output { tjFree(output) } }
        let status = tjCompress2(
            handle, pixels, Int32(width), Int32(pitch), Int32(height), Int32(TJPF_RGB.rawValue), &output, &outputSize,
            Int32(TJSAMP_420.rawValue), Int32(quality), 0)
        guard status == 0, let output, outputSize > 0 else { throw .damaged("JPEG encoding: \(message)") }
        return Array(UnsafeBufferPointer(start: output, count: Int(outputSize)))
    }
}
