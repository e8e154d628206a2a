import Glibc
public import PetSpotLocation

/// Reduced-accuracy positions: snapping to the centre of a fixed grid cell.
///
/// The grid is fixed on the globe, so every position inside one cell gives
/// bit-for-bit the same answer and repeated requests cannot be averaged
/// into the true position. Latitude is cut into equal bands of at least
/// `cellMeters` (180° divided into `floor(180° / (cellMeters / 111 320 m))`
/// bands); each band is cut into equal longitude cells at least `cellMeters`
/// wide at the band's centre latitude (one cell per band near the poles).
/// Cell centres are always valid coordinates, strictly inside the ranges.
public enum ReducedAccuracy {
    /// Metres per degree of latitude (and of longitude at the equator).
    public static let metersPerDegree = 111_320.0

    /// The centre of the grid cell of about `cellMeters` containing `coordinate`.
    ///
    /// - Parameters:
    ///   - coordinate: the true position. Latitudes outside `[-90, 90]` are
    ///     clamped, longitudes wrapped; a non-finite component counts as 0.
    ///     Longitude 180 and -180 are the same meridian and the same cell.
    ///   - cellMeters: the cell size; non-finite or non-positive values use
    ///     ``Policy/defaultReducedAccuracyMeters``.
    public static func snap(_ coordinate: Coordinate, cellMeters: Double) -> Coordinate {
        let size = cellMeters.isFinite && cellMeters > 0 ? cellMeters : Policy.defaultReducedAccuracyMeters
        let (band, bandCount) = bandIndex(of: coordinate.latitude, cellMeters: size)
        let bandHeight = 180.0 / Double(bandCount)
        let centreLatitude = min(90, max(-90, -90 + (Double(band) + 0.5) * bandHeight))

        let circumference = 360.0 * metersPerDegree * cos(centreLatitude * Double.pi / 180)
        let cellCount = max(1, Int(min(1e9, (circumference / size).rounded(.down))))
        let cellWidth = 360.0 / Double(cellCount)
        var longitude = coordinate.longitude.isFinite ? coordinate.longitude : 0
        longitude = (longitude + 180).truncatingRemainder(dividingBy: 360)
        if longitude < 0 { longitude += 360 }
        var cell = Int((longitude / cellWidth).rounded(.down))
        if cell >= cellCount { cell = 0 }  // 180° wraps to -180°
        if cell < 0 { cell = 0 }
        let centreLongitude = min(180, max(-180, -180 + (Double(cell) + 0.5) * cellWidth))
        return Coordinate(latitude: centreLatitude, longitude: centreLongitude)
    }

    /// The horizontal accuracy reported with a reduced fix: at least `cellMeters`.
    public static func horizontalAccuracy(_ reported: Double?, cellMeters: Double) -> Double {
        guard let reported, reported.isFinite, reported > cellMeters else { return cellMeters }
        return reported
    }

    /// `fix` as an authorized-reduced client sees it: snapped coordinate,
    /// horizontal accuracy at least `cellMeters`, accuracy marked `reduced`,
    /// and nothing else that narrows the position inside its cell (SPEC §3):
    /// no speed, course, altitude or vertical accuracy (enough for dead
    /// reckoning), and the receiver timestamp rounded down to the minute.
    public static func reduce(_ fix: LocationFix, cellMeters: Double) -> LocationFix {
        var reduced = fix
        reduced.coordinate = snap(fix.coordinate, cellMeters: cellMeters)
        reduced.horizontalAccuracy = horizontalAccuracy(fix.horizontalAccuracy, cellMeters: cellMeters)
        reduced.accuracy = .reduced
        reduced.altitude = nil
        reduced.verticalAccuracy = nil
        reduced.speed = nil
        reduced.course = nil
        reduced.timestamp = fix.timestamp.map(roundedToMinute)
        return reduced
    }

    /// `timestamp` rounded down to the whole minute.
    public static func roundedToMinute(_ timestamp: UTCTimestamp) -> UTCTimestamp {
        let seconds = timestamp.secondsSince1970
        guard seconds.isFinite else { return timestamp }
        return UTCTimestamp(secondsSince1970: (seconds / 60).rounded(.down) * 60)
    }

    private static func bandIndex(of latitude: Double, cellMeters: Double) -> (Int, Int) {
        let bandDegrees = cellMeters / metersPerDegree
        let bandCount = max(1, Int(min(1e9, (180.0 / bandDegrees).rounded(.down))))
        let clamped = latitude.isFinite ? min(90, max(-90, latitude)) : 0
        var band = Int(((clamped + 90) / (180.0 / Double(bandCount))).rounded(.down))
        if band >= bandCount { band = bandCount - 1 }  // the north pole belongs to the top band
        if band < 0 { band = 0 }
        return (band, bandCount)
    }
}
