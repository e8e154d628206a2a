import Foundation
import PetSpotJSON
import PetSpotProtocol
import Testing

/// Responses a peer sends back (an agent answering `agent.prompt`) are
/// parsed as responses, not refused as broken requests.
@Suite struct RPCResponseParsingTests {
    static func parse(_ text: String) -> RPCParsed? {
        guard case .single(let parsed) = RPCCodec.decode(line: Array(text.utf8)) else { return nil }
        return parsed
    }

    @Test func aResultIsAResponse() {
        #expect(
            Self.parse(#"{"jsonrpc":"2.0","id":3,"result":{"decision":"allow"}}"#)
                == .response(RPCResponse(id: 3, outcome: .success(["decision": "allow"]))))
    }

    @Test func anErrorIsAResponse() {
        let parsed = Self.parse(
            #"{"jsonrpc":"2.0","id":"a","error":{"code":-32000,"message":"no","data":{"reason":"x"}}}"#)
        #expect(
            parsed
                == .response(
                    RPCResponse(id: "a", outcome: .failure(RPCError(code: -32000, message: "no", reason: "x")))))
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":""}}"#,
        #"{"jsonrpc":"2.0","result":1}"#,
        #"{"jsonrpc":"2.0","id":1,"error":"bad"}"#,
        #"{"jsonrpc":"2.0","id":1,"result":1,"extra":true}"#,
        #"{"jsonrpc":"2.0","id":1}"#,
    ])
    func malformedResponsesAreInvalid(_ text: String) {
        guard case .invalid(_, let error)? = Self.parse(text) else {
            Issue.record("not refused: \(text)")
            return
        }
        #expect(error.code == RPCError.invalidRequestCode)
    }

    @Test func aRequestStaysARequest() {
        #expect(Self.parse(#"{"jsonrpc":"2.0","id":1,"method":"m"}"#) == .request(RPCRequest(id: 1, method: "m")))
    }
}
