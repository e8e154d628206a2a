import PetSpotReport

/// Removes what a photo says besides its pixels (SPEC §7, "Photos leave
/// without metadata").
///
/// After cleaning, a photo holds no EXIF (GPS, camera, times, maker notes,
/// thumbnails), XMP, IPTC, comments or trailing data, and is upright:
///
/// - **JPEG**: the EXIF orientation is read, then TurboJPEG transforms the
///   image losslessly to upright (DCT coefficients move; nothing is
///   re-encoded) and writes it with no APPn or COM marker except JFIF's APP0.
///   A turn or flip that would move a partial MCU block (a width or height
///   not a multiple of 8 or 16, by subsampling) to the top or left drops
///   that partial block at the edge it would land on: up to 15 pixels of
///   the right or bottom edge of the stored image are cut. Data after the
///   first image's end (multi-picture extensions, trailers) is gone. The
///   ICC colour profile, if any, is kept (its APP2 segments copied as
///   they were): it describes colours, not the photographer.
/// - **HEIC**: libheif decodes the primary image with its `irot`/`imir`
///   transformations applied, and TurboJPEG encodes it as a JPEG (quality
///   90, 4:2:0), so the backend and a browser get a format they show.
///   Its ICC profile, if any, goes into the JPEG; depth maps, auxiliary
///   images, thumbnails and metadata items are not carried over.
/// - **PNG**: only critical and rendering chunks are kept (`IHDR`, `PLTE`,
///   `IDAT`, `IEND`, `tRNS`, `gAMA`, `cHRM`, `sRGB`, `iCCP`, `sBIT`, `pHYs`,
///   and APNG's `acTL`, `fcTL`, `fdAT`); `eXIf`, text, time and unknown
///   chunks go.
/// - **WEBP**: the `EXIF` and `XMP ` chunks and unknown chunks go; `VP8X`
///   no longer announces them and the RIFF size is rewritten.
/// - **GIF**: comment extensions, and application extensions other than
///   the looping ones (`NETSCAPE2.0`, `ANIMEXTS1.0`) that carry XMP, go.
///
/// A PNG or WEBP whose EXIF orientation is not upright is refused
/// (``PhotoCleaningError/orientationNotApplicable(_:)``): cameras write
/// JPEG or HEIC, so such files are rare, and turning them would take two
/// more codecs.
///
/// Every structure is read with bounds checks; lengths and offsets from
/// the file are never trusted. Damaged input gives
/// ``PhotoCleaningError/damaged(_:)``, never a trap or a hang.
public enum PhotoCleaner {
    /// The default pixel bound: 50 megapixels (a 48-megapixel phone camera
    /// fits). Decoding that as RGB takes 150 MB.
    public static let defaultMaximumPixels = 50_000_000

    /// Cleans `bytes`, whose format and header size the caller has read.
    /// - Parameters:
    ///   - bytes: the photo as uploaded.
    ///   - format: its format, recognised by content.
    ///   - width: its pixel width from the headers.
    ///   - height: its pixel height from the headers.
    ///   - maximumPixels: the largest `width × height` accepted, checked
    ///     before anything is decoded or transformed (for JPEG and HEIC
    ///     against the decoder's own reading of the header too).
    /// - Returns: the cleaned bytes, their format and pixel size.
    /// - Throws: ``PhotoCleaningError``.
    public static func clean(
        _ bytes: [UInt8], format: PhotoFormat, width: Int, height: Int, maximumPixels: Int = defaultMaximumPixels
    ) throws(PhotoCleaningError) -> CleanedPhoto {
        try checkPixels(width: width, height: height, limit: maximumPixels)
        switch format {
        case .jpeg: return try JPEGCleaner.clean(bytes, maximumPixels: maximumPixels)
        case .heic: return try HEICConverter.convert(bytes, maximumPixels: maximumPixels)
        case .png: return CleanedPhoto(bytes: try PNGCleaner.clean(bytes), format: .png, width: width, height: height)
        case .webp:
            return CleanedPhoto(bytes: try WebPCleaner.clean(bytes), format: .webp, width: width, height: height)
        case .gif: return CleanedPhoto(bytes: try GIFCleaner.clean(bytes), format: .gif, width: width, height: height)
        }
    }

    /// Refuses sizes above `limit` pixels (and non-positive sides).
    static func checkPixels(width: Int, height: Int, limit: Int) throws(PhotoCleaningError) {
        guard width > 0, height > 0 else { throw .damaged("the image has no pixels (\(width)×\(height))") }
        let (area, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, area <= limit else { throw .tooManyPixels(width: width, height: height, limit: limit) }
    }
}
