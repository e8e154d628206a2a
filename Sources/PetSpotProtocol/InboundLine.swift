import PetSpotJSON
import PetSpotLocation

/// One line a client sent, decoded once: the daemon's only reader of
/// request lines.
///
/// A `location.get`, the common request, comes out as its own case
/// whichever way it was read: by ``LocationGetLine``'s scanner when the
/// line is in its subset (no ``JSONValue`` built), else the general way
/// (``RPCCodec/decode(line:)`` and ``RPCParams/locationGet(_:)``). Every
/// other line, and a `location.get` whose parameters are refused, comes out
/// as the general decoding, which names the broken field.
public enum InboundLine: Sendable, Equatable {
    /// A well-formed `location.get` request (with an id).
    case locationGet(LocationGetLine)
    /// Anything else: a request, a response, a batch, or the error to answer.
    case other(RPCInbound)

    /// Decodes `line` (without its newline).
    public static func decode(_ line: some Collection<UInt8>) -> InboundLine {
        if let get = LocationGetLine.read(line) { return .locationGet(get) }
        let inbound = RPCCodec.decode(line: line)
        if case .single(.request(let request)) = inbound, request.method == RPCMethod.locationGet.rawValue,
            let id = request.id, let options = try? RPCParams.locationGet(request.params)
        {
            return .locationGet(LocationGetLine(id: id, request: options))
        }
        return .other(inbound)
    }
}
