import Logging
import PetSpotConfiguration
import PetSpotFixHub
import PetSpotGpsd

/// The live gpsd reader for `[source.gpsd]`.
enum GpsdSourceFactory {
    static func producer(_ settings: GpsdSettings, logger: Logger) -> any FixProducer {
        GpsdFixProducer(
            configuration: GpsdConfiguration(
                host: settings.host, port: settings.port, reconnectMax: settings.reconnectMax,
                device: settings.device, silenceTimeout: settings.silenceTimeout, owner: settings.owner),
            logger: logger)
    }
}
