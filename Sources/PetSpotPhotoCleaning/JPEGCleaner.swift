import CTurboJPEG
import PetSpotReport

/// JPEG: upright by a lossless TurboJPEG transform, every marker but JFIF
/// APP0 dropped, the ICC profile put back (see ``PhotoCleaner``).
enum JPEGCleaner {
    static func clean(_ bytes: [UInt8], maximumPixels: Int) throws(PhotoCleaningError) -> CleanedPhoto {
        let structure = try JPEGStructure.read(bytes)
        let turbo = try TurboJPEG(.transformer)
        let declared = try turbo.size(of: bytes)
        try PhotoCleaner.checkPixels(width: declared.width, height: declared.height, limit: maximumPixels)
        let transformed = try turbo.transform(bytes, operation: operation(for: structure.orientation))
        let cleaned = JPEGStructure.inserting(structure.iccSegments, into: transformed)
        let size = try turbo.size(of: cleaned)
        return CleanedPhoto(bytes: cleaned, format: .jpeg, width: size.width, height: size.height)
    }

    /// The transform that turns a photo with `orientation` upright.
    static func operation(for orientation: ExifOrientation) -> TJXOP {
        switch orientation {
        case .normal: TJXOP_NONE
        case .flipHorizontal: TJXOP_HFLIP
        case .rotate180: TJXOP_ROT180
        case .flipVertical: TJXOP_VFLIP
        case .transpose: TJXOP_TRANSPOSE
        case .rotate90: TJXOP_ROT90
        case .transverse: TJXOP_TRANSVERSE
        case .rotate270: TJXOP_ROT270
        }
    }
}
