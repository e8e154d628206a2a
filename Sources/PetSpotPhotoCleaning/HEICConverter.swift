import CHeif
import PetSpotReport

/// HEIC: the primary image decoded by libheif (upright: its `irot` and
/// `imir` applied), encoded as JPEG by TurboJPEG (see ``PhotoCleaner``).
enum HEICConverter {
    /// JPEG quality of the converted photo.
    static let quality = 90
    /// Largest ICC profile carried over (a JPEG holds at most 255 APP2 chunks).
    static let maximumProfileBytes = 255 * JPEGStructure.iccChunkCapacity

    /// `heif_init`, as libheif asks before first use: once per process (a
    /// static let is initialised once, thread-safely), never undone, so
    /// concurrent first conversions cannot race on its decoder registry.
    private static let initialized: Bool = heif_init(nil).code == heif_error_Ok

    static func convert(_ bytes: [UInt8], maximumPixels: Int) throws(PhotoCleaningError) -> CleanedPhoto {
        // libheif reads the caller's memory in place, so all of the work
        // happens while `bytes` is pinned.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(PhotoCleaningError) -> CleanedPhoto in try convert(raw, maximumPixels: maximumPixels) }
        }
        return try result.get()
    }

    private static func convert(
        _ raw: UnsafeRawBufferPointer, maximumPixels: Int
    ) throws(PhotoCleaningError) -> CleanedPhoto {
        guard initialized, let context = heif_context_alloc() else { throw .damaged("libheif could not start") }
        defer { heif_context_free(context) }
        try check(heif_context_read_from_memory_without_copy(context, raw.baseAddress, raw.count, nil))
        var handleOut: OpaquePointer?
        try check(heif_context_get_primary_image_handle(context, &handleOut))
        guard let handle = handleOut else { throw .damaged("HEIC without a primary image") }
        defer { heif_image_handle_release(handle) }
        // The bound holds before anything is decoded.
        try PhotoCleaner.checkPixels(
            width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)),
            limit: maximumPixels)
        let profile = colorProfile(of: handle)

        var imageOut: OpaquePointer?
        try check(heif_decode_image(handle, &imageOut, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nil))
        guard let image = imageOut else { throw .damaged("libheif returned no image") }
        defer { heif_image_release(image) }
        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        try PhotoCleaner.checkPixels(width: width, height: height, limit: maximumPixels)
        guard heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved) == 8 else {
            throw .damaged("HEIC decoded to more than 8 bits per channel")
        }
        var stride: Int32 = 0
        guard let pixels = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
            Int(stride) >= width * 3
        else { throw .damaged("libheif returned no RGB plane") }

        let turbo = try TurboJPEG(.compressor)
        let jpeg = try turbo.compress(rgb: pixels, width: width, pitch: Int(stride), height: height, quality: quality)
        let cleaned = JPEGStructure.inserting(JPEGStructure.iccSegments(profile: profile), into: jpeg)
        return CleanedPhoto(bytes: cleaned, format: .jpeg, width: width, height: height)
    }

    /// The ICC profile (`prof` or `rICC`), or empty when there is none or it is too large.
    private static func colorProfile(of handle: OpaquePointer) -> [UInt8] {
        let type = heif_image_handle_get_color_profile_type(handle)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return [] }
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0, size <= maximumProfileBytes else { return [] }
        var profile = [UInt8](repeating: 0, count: size)
        let error = profile.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
        return error.code == heif_error_Ok ? profile : []
    }

    private static func check(_ error: heif_error) throws(PhotoCleaningError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        throw .damaged("HEIC: \(message)")
    }
}
