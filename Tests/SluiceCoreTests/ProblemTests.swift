import Foundation
import SluiceCore
import Testing

struct ProblemTests {
    @Test func serialisesWithSortedKeys() {
        let problem = Problem(
            type: "https://sluice.dev/problems/not-found", title: "Not found", status: 404,
            detail: "no upstream named \"x\"")
        let text = String(decoding: problem.jsonBytes, as: UTF8.self)
        #expect(
            text == #"{"detail":"no upstream named \"x\"","status":404,"title":"Not found","#
                + #""type":"https://sluice.dev/problems/not-found"}"#)
    }

    @Test func omitsMissingDetail() {
        let text = String(decoding: Problem(slug: "gone", title: "Gone", status: 410).jsonBytes, as: UTF8.self)
        #expect(text == #"{"status":410,"title":"Gone","type":"https://sluice.dev/problems/gone"}"#)
    }

    @Test(arguments: [
        (Problem.badRequest("d"), 400, "bad-request"), (.forbidden("d"), 403, "forbidden"),
        (.notFound("d"), 404, "not-found"), (.methodNotAllowed("d"), 405, "method-not-allowed"),
        (.internalError("d"), 500, "internal-error"), (.badGateway("d"), 502, "bad-gateway"),
        (.unavailable("d"), 503, "unavailable"), (.gatewayTimeout("d"), 504, "gateway-timeout"),
        (.loopDetected("d"), 508, "loop-detected"),
    ])
    func catalogEntriesRoundTrip(problem: Problem, status: Int, slug: String) throws {
        let object = try JSONSerialization.jsonObject(with: Data(problem.jsonBytes)) as? [String: Any]
        #expect(object?["status"] as? Int == status)
        #expect(object?["type"] as? String == "https://sluice.dev/problems/\(slug)")
        #expect(object?["detail"] as? String == "d")
        #expect((object?["title"] as? String)?.isEmpty == false)
    }
}
