import FoundationEssentials
import NIOCore
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol

/// What comes back from the daemon: answers matched to their callers,
/// notifications routed to their subscriptions, and what waits on a
/// connection that ended failed.
extension DaemonConnection {
    /// A line from connection `serial`: answers and notifications, one or a batch.
    func receive(_ line: ByteBuffer, on serial: Int) {
        guard let message = try? JSONValue.parse(Data(line.readableBytesView)) else { return }
        let messages: [JSONValue]
        if case .array(let elements) = message { messages = elements } else { messages = [message] }
        for message in messages { route(message, on: serial) }
    }

    private func route(_ message: JSONValue, on serial: Int) {
        if case .string(let method)? = message["method"] {
            guard case .number(let raw)? = message["params"]?["subscription"], let number = Int(exactly: raw) else {
                return
            }
            let key = SubscriptionKey(link: serial, number: number)
            guard let continuation = subscriptions[key] else { return }
            if method == RPCMethod.locationUpdate, let fixValue = message["params"]?["fix"] {
                if let fix = try? WireCoding.decodeFix(fixValue) { continuation.yield(fix) }
            } else if method == RPCMethod.locationError, let errorValue = message["params"]?["error"] {
                subscriptions.removeValue(forKey: key)
                continuation.finish(throwing: RPCCodec.decodeError(errorValue).locationError)
            }
            return
        }
        var outcome: Result<JSONValue, LocationError>
        if let errorValue = message["error"] {
            outcome = .failure(RPCCodec.decodeError(errorValue).locationError)
        } else {
            outcome = .success(message["result"] ?? .null)
        }
        guard case .number(let rawID)? = message["id"], let id = Int(exactly: rawID) else {
            // An answer without id (tooManyClients, a parse error): it
            // concerns everyone waiting on this connection.
            // An id this client never sends (not a whole number) is treated the same.
            if case .failure(let error) = outcome { failAll(on: serial, error) }
            return
        }
        if let watchLink = abandonedWatches.removeValue(forKey: id) {
            // Nobody wants this watch any more: end the subscription it opened.
            if case .success(let result) = outcome, case .number(let raw)? = result["subscription"],
                let number = Int(exactly: raw)
            {
                errands.yield(.sendUnwatch(number, link: watchLink))
            }
            return
        }
        // No entry: a late answer to a forgotten call, or to an unwatch.
        guard let entry = pending.removeValue(forKey: id) else { return }
        if let watch = entry.watch {
            switch outcome {
            case .success(let result):
                if case .number(let raw)? = result["subscription"], let number = Int(exactly: raw) {
                    let key = SubscriptionKey(link: serial, number: number)
                    subscriptions[key] = watch.continuation
                    let errands = self.errands
                    watch.subscribed { errands.yield(.unwatch(key)) }
                } else {
                    let error = LocationError.internalError("watch answered without a subscription")
                    outcome = .failure(error)
                    watch.continuation.finish(throwing: error)
                }
            case .failure(let error):
                watch.continuation.finish(throwing: error)
            }
        }
        if let waiter = entry.waiter {
            waiter.resume(returning: outcome)
        } else {
            early[id] = outcome
        }
    }

    /// Ends everything waiting on connection `serial` with `error`.
    func failAll(on serial: Int, _ error: LocationError) {
        for (id, entry) in pending where entry.link == serial {
            pending.removeValue(forKey: id)
            entry.watch?.continuation.finish(throwing: error)
            if let waiter = entry.waiter {
                waiter.resume(returning: .failure(error))
            } else {
                early[id] = .failure(error)
            }
        }
        for (key, continuation) in subscriptions where key.link == serial {
            subscriptions.removeValue(forKey: key)
            continuation.finish(throwing: error)
        }
    }
}
