import Foundation
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import Testing

private func decode(_ text: String) -> RPCInbound {
    RPCCodec.decode(line: Array(text.utf8))
}

@Suite struct RPCDecodeTests {
    @Test(arguments: ["{", "", "{\"jsonrpc\":\"2.0\",", "nul", "{'a':1}", "\u{FF}"])
    func invalidJSONIsAParseError(line: String) {
        guard case .failure(let error) = decode(line) else {
            Issue.record("\(line) decoded as \(decode(line))")
            return
        }
        #expect(error.code == -32700)
    }

    @Test(arguments: ["42", "\"x\"", "null", "true", "[]"])
    func nonRequestDocumentIsInvalid(line: String) {
        guard case .failure(let error) = decode(line) else {
            Issue.record("\(line) decoded as \(decode(line))")
            return
        }
        #expect(error.code == -32600)
        #expect(error.reason == nil)
    }

    @Test func validRequest() {
        let inbound = decode(#"{"jsonrpc":"2.0","id":7,"method":"location.get","params":{"timeout":3}}"#)
        #expect(inbound == .single(.request(RPCRequest(id: 7, method: "location.get", params: ["timeout": 3]))))
    }

    @Test func notificationHasNoIDButNullIDIsARequest() throws {
        guard case .single(.request(let notification)) = decode(#"{"jsonrpc":"2.0","method":"daemon.status"}"#)
        else {
            Issue.record("notification not decoded")
            return
        }
        #expect(notification.id == nil)
        #expect(notification.isNotification)
        #expect(notification.params == nil)

        guard case .single(.request(let nullID)) = decode(#"{"jsonrpc":"2.0","id":null,"method":"daemon.status"}"#)
        else {
            Issue.record("request with id null not decoded")
            return
        }
        #expect(nullID.id == .null)
        #expect(!nullID.isNotification)
    }

    @Test func stringIDAndArrayParamsAreKept() {
        let inbound = decode(#"{"jsonrpc":"2.0","id":"abc","method":"m","params":[1,2]}"#)
        #expect(inbound == .single(.request(RPCRequest(id: "abc", method: "m", params: [1, 2]))))
    }

    /// A broken request object, and the id its error answer must carry.
    @Test(arguments: [
        (#"{"id":3,"method":"m"}"#, JSONValue.number(3)),  // jsonrpc missing
        (#"{"jsonrpc":"1.0","id":3,"method":"m"}"#, 3),
        (#"{"jsonrpc":2,"id":"a","method":"m"}"#, "a"),
        (#"{"jsonrpc":"2.0","id":3}"#, 3),  // method missing
        (#"{"jsonrpc":"2.0","id":3,"method":5}"#, 3),
        (#"{"jsonrpc":"2.0","id":3,"method":null}"#, 3),
        (#"{"jsonrpc":"2.0","id":{"a":1},"method":"m"}"#, nil),  // id object
        (#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#, nil),
        (#"{"jsonrpc":"2.0","id":true,"method":"m"}"#, nil),
        (#"{"jsonrpc":"2.0","id":3,"method":"m","params":5}"#, 3),  // params scalar
        (#"{"jsonrpc":"2.0","id":3,"method":"m","params":"x"}"#, 3),
        (#"{"jsonrpc":"2.0","id":3,"method":"m","params":null}"#, 3),
        (#"{"jsonrpc":"2.0","id":3,"method":"m","extra":1}"#, 3),
        (#"{"jsonrpc":"2.0","method":5}"#, nil),  // no id: the error goes to id null
    ])
    func invalidRequestObject(line: String, replyID: JSONValue) {
        guard case .single(.invalid(let id, let error)) = decode(line) else {
            Issue.record("\(line) decoded as \(decode(line))")
            return
        }
        #expect(id == replyID)
        #expect(error.code == -32600)
    }

    @Test func batchElementsAreParsedOnTheirOwn() {
        let inbound = decode(
            #"[{"jsonrpc":"2.0","id":1,"method":"a"}, 5, {"jsonrpc":"1.0","id":2,"method":"b"}, {"jsonrpc":"2.0","method":"c"}]"#
        )
        guard case .batch(let elements) = inbound else {
            Issue.record("not a batch: \(inbound)")
            return
        }
        #expect(elements.count == 4)
        guard elements.count == 4 else { return }
        #expect(elements[0] == .request(RPCRequest(id: 1, method: "a")))
        guard case .invalid(let id1, let error1) = elements[1], case .invalid(let id2, let error2) = elements[2]
        else {
            Issue.record("invalid elements were accepted: \(elements)")
            return
        }
        #expect(id1 == .null)
        #expect(error1.code == -32600)
        #expect(id2 == 2)
        #expect(error2.code == -32600)
        #expect(elements[3] == .request(RPCRequest(id: nil, method: "c")))
    }

    @Test func batchOfOneInvalidElement() {
        guard case .batch(let elements) = decode("[1]"), elements.count == 1,
            case .invalid(let id, let error) = elements[0]
        else {
            Issue.record("[1] decoded as \(decode("[1]"))")
            return
        }
        #expect(id == .null)
        #expect(error.code == -32600)
    }
}

@Suite struct RPCEncodeTests {
    @Test func responsesAndNotificationsHaveTheJSONRPCShape() throws {
        #expect(
            RPCCodec.line(RPCCodec.response(id: 1, result: true)) == #"{"id":1,"jsonrpc":"2.0","result":true}"# + "\n")
        let error = RPCError(.denied)
        #expect(
            RPCCodec.line(RPCCodec.response(id: "x", error: error))
                == #"{"error":{"code":-32002,"data":{"reason":"denied"},"message":"location permission was denied"},"id":"x","jsonrpc":"2.0"}"#
                + "\n")
        #expect(
            RPCCodec.line(RPCCodec.notification(method: "location.update", params: ["subscription": 4]))
                == #"{"jsonrpc":"2.0","method":"location.update","params":{"subscription":4}}"# + "\n")
    }

    @Test func standardErrorsCarryNoReason() {
        let encoded = RPCCodec.encode(RPCError.methodNotFound("nope"))
        #expect(encoded["code"] == -32601)
        #expect(encoded["data"] == nil)
        #expect(RPCError.invalidParams("x").code == -32602)
        #expect(RPCError.internalError("x").code == -32603)
        #expect(RPCError.parseError("x").code == -32700)
        #expect(RPCError.invalidRequest("x").code == -32600)
    }

    @Test func aLineIsOneLineWhateverTheStringsHold() throws {
        let message = RPCCodec.response(id: "a\nb", result: ["text": "line1\nline2\r\u{2028}"])
        let line = RPCCodec.line(message)
        #expect(line.last == "\n")
        #expect(line.filter { $0 == "\n" }.count == 1)
        let body = Array(line.utf8.dropLast())
        #expect(try JSONValue.parse(.init(body)) == message)
    }

    @Test func requestsRoundTripThroughTheDecoder() {
        let request = RPCCodec.request(id: 9, method: "location.get", params: ["maxAge": 1.5])
        let line = RPCCodec.line(request)
        #expect(
            decode(String(line.dropLast()))
                == .single(.request(RPCRequest(id: 9, method: "location.get", params: ["maxAge": 1.5]))))
        let notification = RPCCodec.request(id: nil, method: "x", params: nil)
        #expect(notification["id"] == nil)
        #expect(notification["params"] == nil)
    }
}
