import PetSpotKioskConfiguration

extension DeliverySender.Configuration {
    /// The sender's settings from the kiosk configuration's `[delivery]` table.
    public init(_ settings: DeliverySettings) {
        self.init(endpoint: settings.endpoint, tokenFile: settings.tokenFile)
        timeout = settings.timeout.seconds
        retention = settings.retention.seconds
        maxInFlight = settings.maxInFlight
        retryInitial = settings.retryInitial.seconds
        retryMax = settings.retryMax.seconds
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
